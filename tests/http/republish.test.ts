import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFor } from '../../lib/dynamodb/termination-table';
import { eventIdOf } from '../../lib/events/request-events';
import { moveTo } from '../../lib/termination/lifecycle';
import type { Decision } from '../../lib/termination/ports/decision';
import { startAwsStandIn, type AwsStandIn } from '../../scripts/local/aws-stand-in';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { writeRunningStack } from '../../scripts/local/running-stack';
import { signToken } from '../../scripts/local/signing-key';
import { validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { startHttpStack, type HttpStack } from '../support/http-stack';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { verifiedEvents } from '../support/signed-events';

/*
 * npm run republish on the local stack: the command as npm runs it (a child process), finding the
 * stack in a stack file as npm start writes one; the request found by its number in DynamoDB
 * Local; the real publisher in serverless offline, invoked through its Lambda API as in AWS,
 * rebuilding the events from the request item and putting them on the EventBridge stand-in.
 */

const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const dir = mkdtempSync(join(tmpdir(), 'republish-'));
const stackFile = join(dir, 'stack.json');
const anna = DEMO_CUSTOMERS.anna;
let tables: TestTables;
let standIn: AwsStandIn;
let stack: HttpStack;

beforeAll(async () => {
  tables = await useFreshTables();
  standIn = await startAwsStandIn();
  stack = await startHttpStack({
    dynamoDbEndpoint: tables.endpoint,
    tables: tables.names,
    env: { EVENTBRIDGE_ENDPOINT: standIn.endpoint, KMS_ENDPOINT: standIn.endpoint, EVENT_SIGNING_KEY_ID: standIn.kms.key.keyId },
  });
  writeRunningStack(
    {
      pid: process.pid,
      apiUrl: stack.offline.url,
      dynamoDbEndpoint: tables.endpoint,
      jwksUri: 'http://127.0.0.1:1/.well-known/jwks.json',
      lambdaPort: stack.lambdaPort,
      awsStandIn: standIn.endpoint,
      pageUrl: 'http://127.0.0.1:1',
      tables: tables.names,
    },
    stackFile,
  );
});
afterAll(async () => {
  await stack.stop();
  await standIn.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function republish(...args: string[]): Promise<{ code: number; out: string }> {
  return promisify(execFile)(process.execPath, [tsx, 'scripts/republish.ts', ...args], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], LOCAL_STACK_FILE: stackFile },
    timeout: 30_000,
  }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (error: unknown) => ({
      code: typeof error === 'object' && error !== null && 'code' in error ? Number(error.code) : -1,
      out: typeof error === 'object' && error !== null && 'stderr' in error ? String(error.stderr) : String(error),
    }),
  );
}

describe('npm run republish on the local stack', () => {
  it("puts a request's events on the bus again, rebuilt from its item: every step, with the eventIds they always had", async () => {
    const contractId = await newContract(tables);
    const created = await stack.post(contractId, {
      authorization: `Bearer ${signToken(stack.key, { customerId: anna.customerId })}`,
      body: validBody(),
    });
    expect(created.status).toBe(201);
    const requestId = String(created.body['requestId']);
    const requestNumber = String(created.body['requestNumber']);
    const store = storeFor({
      requestsTableName: tables.names.requests,
      dynamodb: { region: 'eu-central-1', endpoint: tables.endpoint, requestTimeoutMs: 2000, connectTimeoutMs: 1000, maxAttempts: 3 },
    });
    const occurredAt = '2026-11-25T10:00:00.000Z';
    const decision: Decision = {
      requestId,
      contractId,
      eventId: 'bo-republish-1',
      status: 'IN_REVIEW',
      reason: 'Documents are being checked',
      occurredAt,
    };
    expect(await store.applyDecision(decision, moveTo('IN_REVIEW'), new Date().toISOString())).toEqual({ kind: 'applied' });
    standIn.clear();

    const { code, out } = await republish('--request', requestNumber.toLowerCase());
    expect([code, out]).toEqual([0, expect.stringContaining(`Request ${requestId} of contract ${contractId}`)]);
    expect(out).toContain(`eventId ${eventIdOf(requestId, 'SUBMITTED')}`);
    expect(out).toContain(`eventId ${eventIdOf(requestId, 'IN_REVIEW')}`);
    expect(verifiedEvents(standIn).map((event) => [event.source, event.detailType, event.detail])).toEqual([
      [
        'bank.contract-termination',
        'TerminationRequestSubmitted',
        expect.objectContaining({
          eventId: eventIdOf(requestId, 'SUBMITTED'),
          requestId,
          requestNumber,
          status: 'SUBMITTED',
          bankDetails: validBody()['bankDetails'],
        }),
      ],
      [
        'bank.contract-termination',
        'TerminationRequestStatusChanged',
        {
          eventId: eventIdOf(requestId, 'IN_REVIEW'),
          requestId,
          contractId,
          requestNumber,
          previousStatus: 'SUBMITTED',
          status: 'IN_REVIEW',
          reason: 'Documents are being checked',
          changedAt: occurredAt,
          changedBy: 'BACK_OFFICE',
          decisionEventId: 'bo-republish-1',
        },
      ],
    ]);

    standIn.clear();
    const one = await republish('--request', requestNumber, '--status', 'in_review');
    expect(one.code).toBe(0);
    expect(verifiedEvents(standIn).map((event) => event.detail)).toEqual([
      expect.objectContaining({ eventId: eventIdOf(requestId, 'IN_REVIEW') }),
    ]);
  }, 90_000);

  it('says so, and publishes nothing, for a number no request has', async () => {
    standIn.clear();
    const { code, out } = await republish('--request', 'TR-2222-2222');
    expect([code, out]).toEqual([1, expect.stringContaining('No request numbered TR-2222-2222')]);
    expect(standIn.events).toEqual([]);
  }, 60_000);
});
