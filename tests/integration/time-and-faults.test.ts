import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTerminationRequest, type CreateDeps, type CreateOutcome } from '../../lib/termination/create-termination-request';
import { freePort } from '../../scripts/local/free-port';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler } from '../support/handler';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { localDocumentClient, useCaseCall, useCaseDeps } from '../support/use-case';

/*
 * What DynamoDB Local cannot show on its own: a clock that moves, and DynamoDB failing. The use
 * case is called directly where the test needs its clock or its client.
 */

let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
});

/** The use case's dependencies on this file's tables, through a client of their own unless one is given. */
function deps(overrides: Partial<CreateDeps> = {}, client: DynamoDBDocumentClient = localDocumentClient(tables.endpoint)): CreateDeps {
  return useCaseDeps(client, tables.names, overrides);
}

/** The request of a created outcome; fails the test on any other. */
function createdRequest(outcome: CreateOutcome): unknown {
  expect(outcome.kind).toBe('created');
  return outcome.kind === 'created' ? outcome.request : undefined;
}

/** Makes the next `count` transactions fail with the given reasons before DynamoDB sees them. */
function failTransactions(client: DynamoDBDocumentClient, count: number, reasons: CancellationReason[]): { seen: () => number } {
  let failed = 0;
  let transactions = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' || context.commandName === 'TransactWriteCommand') {
        transactions++;
        if (failed < count) {
          failed++;
          throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectCancellation' },
  );
  return { seen: () => transactions };
}

describe('time-dependent rules come after the key', () => {
  it('replays with 200 after the desired date has passed', async () => {
    const call = useCaseCall({ contractId: await newContract(tables), body: validBody({ desiredTerminationDate: '2030-01-10' }) });
    // 23:00 and then 00:30 in Moscow: the date has passed, the key (24 h) has not expired.
    const first = await createTerminationRequest(deps({ now: () => new Date('2030-01-10T20:00:00Z') }), call);
    const later = await createTerminationRequest(deps({ now: () => new Date('2030-01-10T21:30:00Z') }), call);
    expect(later).toMatchObject({ kind: 'replayed', request: createdRequest(first) });
  });

  it('refuses a past date with 400 when the key is new', async () => {
    const promise = createTerminationRequest(
      deps({ now: () => new Date('2030-01-11T10:00:00Z') }),
      useCaseCall({ contractId: await newContract(tables), body: validBody({ desiredTerminationDate: '2030-01-10' }) }),
    );
    await expect(promise).resolves.toMatchObject({
      kind: 'refused',
      refusal: { code: 'VALIDATION_ERROR', problems: [{ field: 'desiredTerminationDate', code: 'dateInPast' }] },
    });
  });

  it('treats an expired key as absent: the contract slot then answers 409', async () => {
    const call = useCaseCall({ contractId: await newContract(tables) });
    const t0 = new Date('2030-01-01T00:00:00Z');
    await createTerminationRequest(deps({ now: () => t0 }), call);
    const afterTtl = createTerminationRequest(deps({ now: () => new Date(t0.getTime() + 25 * 3600_000) }), call);
    await expect(afterTtl).resolves.toMatchObject({ kind: 'refused', refusal: { code: 'ACTIVE_REQUEST_ALREADY_EXISTS' } });
  });
});

describe('faults DynamoDB Local cannot show (injected at the SDK)', () => {
  it('retries TransactionConflict and then creates', async () => {
    const client = localDocumentClient(tables.endpoint);
    const injected = failTransactions(client, 3, [
      { Code: 'None' },
      { Code: 'TransactionConflict' },
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'None' },
    ]);
    const result = await createTerminationRequest(deps({}, client), useCaseCall({ contractId: await newContract(tables) }));
    expect(result.kind).toBe('created');
    expect(injected.seen()).toBe(4);
  });

  it('answers 503, never 500, when conflicts outlast the retry budget', async () => {
    const client = localDocumentClient(tables.endpoint);
    failTransactions(client, 1000, [{ Code: 'TransactionConflict' }]);
    const promise = createTerminationRequest(deps({ budgetMs: 300 }, client), useCaseCall({ contractId: await newContract(tables) }));
    await expect(promise).resolves.toMatchObject({ kind: 'unavailable' });
  });

  it('reads the key consistently when its cancellation reason lacks the old item', async () => {
    const call = useCaseCall({ contractId: await newContract(tables) });
    const first = await createTerminationRequest(deps(), call);
    const client = localDocumentClient(tables.endpoint);
    failTransactions(client, 1, [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }]);
    const replay = await createTerminationRequest(deps({}, client), call);
    expect(replay).toMatchObject({ kind: 'replayed', request: createdRequest(first) });
  });

  // The SDK fills in ClientRequestToken on its own; the store sets it explicitly. Either way this must hold.
  it('answers 201 when the SDK retries an attempt that committed but lost its answer', async () => {
    const client = localDocumentClient(tables.endpoint);
    let lost = 0;
    client.middlewareStack.add(
      (next) => async (args) => {
        const output = await next(args);
        if (lost === 0 && JSON.stringify(args).includes('TransactWriteItems')) {
          lost++;
          throw Object.assign(new Error('socket hang up after the commit'), { name: 'TimeoutError', $metadata: {} });
        }
        return output;
      },
      { step: 'finalizeRequest', name: 'loseAnswer', priority: 'low' },
    );
    const result = await createTerminationRequest(deps({}, client), useCaseCall({ contractId: await newContract(tables) }));
    expect(lost).toBe(1);
    expect(result.kind).toBe('created');
  });

  it('takes a new number when the drawn one is taken', async () => {
    const client = localDocumentClient(tables.endpoint);
    const injected = failTransactions(client, 2, [
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed' },
      { Code: 'None' },
    ]);
    const result = await createTerminationRequest(deps({}, client), useCaseCall({ contractId: await newContract(tables) }));
    expect(result.kind).toBe('created');
    expect(injected.seen()).toBe(3);
  });
});

describe('DynamoDB unreachable', () => {
  it('answers 503 with Retry-After within the time budget, and writes nothing', async () => {
    const deadPort = await freePort();
    const before = (await tables.requestItems()).length;
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${deadPort}`,
      DYNAMODB_CONNECT_TIMEOUT_MS: '200',
      DYNAMODB_REQUEST_TIMEOUT_MS: '500',
    });
    // The handler reads these when it is imported, at this file's first call: the one below.
    const started = Date.now();
    const answer = await callHandler({ contractId: await newContract(tables), body: validBody(), headers: headersWithKey() });
    expect(answer.status).toBe(503);
    expect(answer.headers['Retry-After']).toBe('1');
    expect(answer.body).toMatchObject({ errorCode: 'SERVICE_UNAVAILABLE', details: [] });
    expect(Date.now() - started).toBeLessThan(8000);
    expect((await tables.requestItems()).length).toBe(before);
  });

  it('throws on a missing table instead of calling it a refusal or an outage', async () => {
    const missing = useCaseDeps(localDocumentClient(tables.endpoint), { ...tables.names, requests: 'no-such-table' });
    const promise = createTerminationRequest(missing, useCaseCall({ contractId: await newContract(tables) }));
    // Not a refusal and not "unavailable": a bug, which the edge answers with a bare 500.
    await expect(promise).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
