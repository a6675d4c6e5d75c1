import { createServer, type Server } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { assertLoopbackOnly, networkAddress, probe, ReachableFromNetworkError } from '../../scripts/local/reachability';
import { startAwsStandIn } from '../../scripts/local/aws-stand-in';
import { startJwksServer } from '../../scripts/local/jwks-server';

/*
 * The local stack listens on loopback only (docs/security.md): another machine on the network
 * must not reach DynamoDB Local, the JWKS or the AWS stand-in. Checked by connecting to this
 * machine's own network address, which any interface-wide listener would accept.
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

describe.skipIf(outside === undefined)('the check npm start makes after starting DynamoDB Local (issue 16.5)', () => {
  async function listening(host: string): Promise<{ server: Server; port: number }> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const address = server.address();
    return { server, port: address !== null && typeof address === 'object' ? address.port : 0 };
  }

  it('fails loudly for a port that listens on every interface, and passes one on loopback', async () => {
    const everywhere = await listening('0.0.0.0');
    const loopback = await listening('127.0.0.1');
    try {
      await expect(assertLoopbackOnly('a server', everywhere.port)).rejects.toBeInstanceOf(ReachableFromNetworkError);
      await expect(assertLoopbackOnly('a server', loopback.port)).resolves.toBeUndefined();
    } finally {
      everywhere.server.close();
      loopback.server.close();
    }
  });
});
