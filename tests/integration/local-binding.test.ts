import { describe, expect, inject, it } from 'vitest';
import { networkAddress, probe } from '../support/reachability';
import { startAwsStandIn } from '../../scripts/local/aws-stand-in';
import { startJwksServer } from '../../scripts/local/jwks-server';

/*
 * The local stack listens on loopback only (docs/security.md): another machine on the network
 * must not reach DynamoDB Local, the JWKS or the AWS stand-in. Checked by connecting to this
 * machine's own network address, which any interface-wide listener would accept. For DynamoDB
 * Local this is the check that a new version still binds where its launcher
 * (scripts/local/java/LoopbackDynamoDbLocal.java) tells it to.
 */

const outside = networkAddress();

describe.skipIf(outside === undefined)(`the local stack, seen from ${outside ?? 'the network'}`, () => {
  it('DynamoDB Local answers on loopback only', async () => {
    const port = Number(new URL(inject('dynamoDbEndpoint')).port);
    expect(await probe('127.0.0.1', port)).toBe('open');
    expect(await probe(outside ?? '', port)).not.toBe('open');
  });

  it('the EventBridge/SQS stand-in and the JWKS answer on loopback only', async () => {
    const standIn = await startAwsStandIn();
    const jwks = await startJwksServer({ keys: [] }, 0);
    try {
      for (const url of [standIn.endpoint, jwks.origin]) {
        const port = Number(new URL(url).port);
        expect(await probe('127.0.0.1', port)).toBe('open');
        expect(await probe(outside ?? '', port)).not.toBe('open');
      }
    } finally {
      await standIn.stop();
      await jwks.stop();
    }
  });
});
