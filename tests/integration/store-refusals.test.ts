import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyOf, requestKeyOf, slotKeyOf } from '../../lib/dynamodb/keys';
import { DynamoDbTerminationStore } from '../../lib/dynamodb/termination-table';
import { moveTo } from '../../lib/termination/lifecycle';
import type { NewRequest } from '../../lib/termination/ports/store';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { decisionOn, newRequest, withdrawalOf } from '../support/store-contract';
import { localDocumentClient } from '../support/use-case';

/*
 * How DynamoDbTerminationStore explains a refused write: from the first failed condition, in the
 * order of the write's items, with the item DynamoDB returned with it; where it came back without
 * it (a writer in between, or no item there), one consistent read of that very item, and no read
 * for an item the write does not ask back. DynamoDB Local returns the items, so a middleware takes
 * them off the real refusal to show the other path. What the facts are: the port's contract suite.
 */

let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
});

/** A store on a client of its own that, when told, drops the items off a refusal, and remembers its consistent reads. */
function watchedStore() {
  const client = localDocumentClient(tables.endpoint);
  const reads: { table: unknown; key: unknown }[] = [];
  let dropItems = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input: Record<string, unknown> = Object(args.input);
      // The document client's GetCommand runs as GetItemCommand, its key not yet marshalled at this step.
      if (context.commandName === 'GetItemCommand' && input['ConsistentRead'] === true)
        reads.push({ table: input['TableName'], key: input['Key'] });
      try {
        return await next(args);
      } catch (error) {
        if (dropItems && error instanceof TransactionCanceledException)
          for (const reason of error.CancellationReasons ?? []) delete reason.Item;
        if (dropItems && error instanceof ConditionalCheckFailedException) delete error.Item;
        throw error;
      }
    },
    { step: 'initialize', name: 'dropRefusalItems' },
  );
  return {
    store: new DynamoDbTerminationStore(client, tables.names),
    reads,
    /** From now on, refusals come without their items, and reads are counted afresh. */
    withoutItems: () => {
      dropItems = true;
      reads.length = 0;
    },
  };
}

const now = () => Math.floor(Date.now() / 1000);

async function createdOn(store: DynamoDbTerminationStore, customerId = 'customer-anna'): Promise<NewRequest> {
  const contractId = randomUUID();
  await tables.doc.send(new PutCommand({ TableName: tables.names.contracts, Item: { contractId, customerId, status: 'ACTIVE' } }));
  const request = newRequest(contractId, { customerId });
  expect(await store.create(request, now())).toEqual({ kind: 'created' });
  return request;
}

describe('a refused write, explained by the store', () => {
  it('reads nothing when the failed item came back with the refusal', async () => {
    const { store, reads } = watchedStore();
    const request = await createdOn(store);
    expect(await store.create(newRequest(request.contractId), now())).toMatchObject({ kind: 'slot-taken' });
    expect(await store.create({ ...request, requestId: randomUUID(), fingerprint: 'other' }, now())).toMatchObject({ kind: 'key-taken' });
    expect(reads).toEqual([]);
  });

  it('reads the first failed item consistently when it came back without it: the key before the slot', async () => {
    const { store, reads, withoutItems } = watchedStore();
    const request = await createdOn(store);
    withoutItems();
    expect(await store.create({ ...request, requestId: randomUUID() }, now())).toMatchObject({
      kind: 'key-taken',
      record: { fingerprint: request.fingerprint },
    });
    expect(reads).toEqual([{ table: tables.names.requests, key: idempotencyKeyOf('customer-anna', request.idempotencyKey) }]);
    reads.length = 0;
    expect(await store.create(newRequest(request.contractId), now())).toEqual({
      kind: 'slot-taken',
      holder: { requestNumber: request.requestNumber, customerId: 'customer-anna' },
    });
    expect(reads).toEqual([{ table: tables.names.requests, key: slotKeyOf(request.contractId) }]);
  });

  it('reads the contract from its own table, and says it was read after', async () => {
    const { store, reads, withoutItems } = watchedStore();
    const request = await createdOn(store, 'customer-boris');
    withoutItems();
    expect(await store.create(newRequest(request.contractId), now())).toEqual({
      kind: 'contract-condition-failed',
      contract: { contractId: request.contractId, customerId: 'customer-boris', status: 'ACTIVE' },
      readAfter: true,
    });
    expect(reads).toEqual([{ table: tables.names.contracts, key: { contractId: request.contractId } }]);
  });

  it('reads nothing for an item the write does not ask back: a taken number', async () => {
    const { store, reads, withoutItems } = watchedStore();
    const request = await createdOn(store);
    const other = await createdOn(store);
    withoutItems();
    const clash = newRequest(request.contractId, { requestNumber: other.requestNumber });
    await store.withdraw(withdrawalOf(request), now());
    reads.length = 0;
    expect(await store.create(clash, now())).toEqual({ kind: 'number-taken' });
    expect(reads).toEqual([]);
  });

  it("a decision's single update and a withdrawal's slot: each read once, where it failed", async () => {
    const { store, reads, withoutItems } = watchedStore();
    const request = await createdOn(store);
    await store.applyDecision(decisionOn(request, 'APPROVED'), moveTo('APPROVED'), new Date().toISOString());
    withoutItems();
    expect(await store.applyDecision(decisionOn(request, 'IN_REVIEW'), moveTo('IN_REVIEW'), new Date().toISOString())).toMatchObject({
      kind: 'request-condition-failed',
      request: { status: 'APPROVED' },
    });
    expect(reads).toEqual([{ table: tables.names.requests, key: requestKeyOf(request.contractId, request.requestId) }]);

    const submitted = await createdOn(store);
    const holder = { requestId: randomUUID(), requestNumber: 'TR-2345-6789', customerId: 'customer-anna' };
    await tables.doc.send(
      new PutCommand({ TableName: tables.names.requests, Item: { ...slotKeyOf(submitted.contractId), kind: 'ACTIVE_SLOT', ...holder } }),
    );
    reads.length = 0;
    expect(await store.withdraw(withdrawalOf(submitted), now())).toEqual({
      kind: 'slot-condition-failed',
      slotRequestId: holder.requestId,
    });
    expect(reads).toEqual([{ table: tables.names.requests, key: slotKeyOf(submitted.contractId) }]);
  });
});
