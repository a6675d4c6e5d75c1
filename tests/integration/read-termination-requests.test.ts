import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as timeOrderedUuid } from 'uuid';
import { buildCreateTransaction } from '../../lib/dynamodb/create-transaction';
import { partItem } from '../../lib/dynamodb/write-parts';
import { beforeAll, describe, expect, it } from 'vitest';
import { limitKeyOf, slotKeyOf } from '../../lib/dynamodb/keys';
import { cursorPosition, encodeCursor } from '../../lib/termination/read-termination-requests';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, type HandlerAnswer } from '../support/handler';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';
import { newRequest } from '../support/store-contract';

/*
 * GET one request and GET the contract's list, through their handlers against DynamoDB Local.
 * A contract holds one active request at a time; to give one several, a test releases the slot
 * in the table, as a final status will (and the customer's limit record, as time would).
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;
let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
});

async function create(contractId: string): Promise<HandlerAnswer> {
  const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return answer;
}

/**
 * Stands in for a final status, and for the months a customer would need to make this many
 * requests on one contract (docs/decisions/0020-request-limit.md): the contract may take a new
 * request, and its customer's count starts afresh.
 */
async function releaseSlot(contractId: string, customerId: string = anna.customerId): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.names.requests, Key: { ...slotKeyOf(contractId) } }));
  await tables.doc.send(new DeleteCommand({ TableName: tables.names.requests, Key: { ...limitKeyOf(contractId, customerId) } }));
}

const getOne = (contractId: string, requestId: string, options: { customerId?: string; headers?: Record<string, string> } = {}) =>
  callHandler({ method: 'GET', contractId, requestId, ...options });
const list = (contractId: string, query: Record<string, string> = {}, customerId?: string) =>
  callHandler({ method: 'GET', contractId, query, ...(customerId === undefined ? {} : { customerId }) });

describe('GET one request', () => {
  it('answers 200 with the request as created, and its message in the language asked', async () => {
    const contractId = await newContract(tables);
    const created = await create(contractId);
    const requestId = String(created.body['requestId']);
    const answer = await getOne(contractId, requestId, { headers: { 'Accept-Language': 'ru' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...created.body, message: expect.stringContaining(String(created.body['requestNumber'])) });
    expect(answer.body['message']).toMatch(/принята/);
  });

  it('finds it whatever the case of the ids', async () => {
    const contractId = await newContract(tables);
    const requestId = String((await create(contractId)).body['requestId']);
    expect((await getOne(contractId.toUpperCase(), requestId.toUpperCase())).status).toBe(200);
  });

  it('answers 404 TERMINATION_REQUEST_NOT_FOUND for a request of another contract of the same customer', async () => {
    const first = await newContract(tables);
    const second = await newContract(tables);
    const requestId = String((await create(first)).body['requestId']);
    const answer = await getOne(second, requestId);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ errorCode: 'TERMINATION_REQUEST_NOT_FOUND', details: [{ field: 'requestId' }] });
  });

  it('answers 404 CONTRACT_NOT_FOUND, and 403 for another customer, telling nothing of the request', async () => {
    const contractId = await newContract(tables);
    const requestId = String((await create(contractId)).body['requestId']);
    expect((await getOne(randomUUID(), requestId)).body).toMatchObject({ errorCode: 'CONTRACT_NOT_FOUND' });
    const denied = await getOne(contractId, requestId, { customerId: boris.customerId });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ errorCode: 'CONTRACT_ACCESS_DENIED' });
    expect(denied.raw).not.toContain(requestId);
    // Boris's own contract, Anna's token, a request id that does not exist there: still 403.
    const borisContract = await newContract(tables, { customerId: boris.customerId });
    expect((await getOne(borisContract, randomUUID())).status).toBe(403);
  });

  it('answers 400 listing both ids when neither is a UUID, and 401 without a customer', async () => {
    const answer = await getOne('nope', 'also-nope');
    expect(answer.status).toBe(400);
    expect(answer.body['details']).toEqual([
      { field: 'contractId', reason: 'must be a UUID' },
      { field: 'requestId', reason: 'must be a UUID' },
    ]);
    expect((await callHandler({ method: 'GET', contractId: randomUUID(), requestId: randomUUID(), customerId: null })).status).toBe(401);
  });
});

describe('GET the list', () => {
  it('lists a contract with no requests as empty, and pages the others newest first', async () => {
    const contractId = await newContract(tables);
    expect((await list(contractId)).body).toEqual({ items: [] });

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(String((await create(contractId)).body['requestId']));
      await releaseSlot(contractId);
    }
    const newestFirst = [...ids].reverse();
    const all = await list(contractId);
    expect(all.status).toBe(200);
    expect(all.body['items']).toHaveLength(3);
    expect(all.body['items']).toMatchObject(newestFirst.map((requestId) => ({ requestId, status: 'SUBMITTED' })));
    expect(all.body['nextCursor']).toBeUndefined();

    const first = await list(contractId, { limit: '2' });
    expect(first.body['items']).toMatchObject(newestFirst.slice(0, 2).map((requestId) => ({ requestId })));
    const cursor = String(first.body['nextCursor']);
    const second = await list(contractId, { limit: '2', cursor });
    expect(second.body['items']).toMatchObject([{ requestId: newestFirst[2] }]);

    // The cursor is bound to the contract it was made on: on another of the caller's contracts it is not valid.
    const other = await newContract(tables);
    await create(other);
    const elsewhere = await list(other, { limit: '2', cursor });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', details: [{ field: 'cursor', reason: 'is not valid' }] });
  });

  it("answers 404 for an unknown contract and 403 for another customer's, with or without requests", async () => {
    expect((await list(randomUUID())).body).toMatchObject({ errorCode: 'CONTRACT_NOT_FOUND' });
    const borisContract = await newContract(tables, { customerId: boris.customerId });
    expect((await list(borisContract)).status).toBe(403);
    const borisCreated = await callHandler({
      contractId: borisContract,
      body: validBody(),
      headers: headersWithKey(),
      customerId: boris.customerId,
    });
    expect(borisCreated.status).toBe(201);
    const withRequest = await list(borisContract);
    expect(withRequest.status).toBe(403);
    expect(withRequest.raw).not.toMatch(/TR-/);
  });

  it('answers 400 for a limit out of range or a cursor that is not one of ours', async () => {
    const contractId = await newContract(tables);
    const answer = await list(contractId, { limit: '0', cursor: 'not-a-cursor' });
    expect(answer.status).toBe(400);
    expect(answer.body['details']).toEqual([
      { field: 'limit', reason: 'must be a whole number from 1 to 100' },
      { field: 'cursor', reason: 'is not valid' },
    ]);
    expect((await list(contractId, { limit: '101' })).status).toBe(400);
  });

  it("never shows another customer's requests, even with a cursor made for them", async () => {
    const borisContract = await newContract(tables, { customerId: boris.customerId });
    await tables.doc.send(
      new PutCommand({
        TableName: tables.names.requests,
        Item: { pk: `CONTRACT#${borisContract}`, sk: 'REQUEST#018f0000-0000-7000-8000-000000000001', customerId: boris.customerId },
      }),
    );
    const answer = await list(borisContract, { cursor: encodeCursor(borisContract, 'ffffffff-ffff-7fff-bfff-ffffffffffff') });
    expect(answer.status).toBe(403);
    expect(anna.customerId).not.toBe(boris.customerId);
  });
});

describe('after a contract changes owner (0015-reading-requests.md)', () => {
  /** Anna made `count` requests (the last one still active); then the contract became Boris's. */
  async function transferred(count: number): Promise<{ contractId: string; annas: string[] }> {
    const contractId = await newContract(tables);
    const annas: string[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0) await releaseSlot(contractId);
      annas.push(String((await create(contractId)).body['requestId']));
    }
    await tables.addContracts([{ contractId, customerId: boris.customerId, status: 'ACTIVE' }]);
    return { contractId, annas };
  }

  it('the new owner sees none of the old owner’s requests: GET is 404, the list is empty, a new request waits for the slot', async () => {
    const { contractId, annas } = await transferred(1);
    const [annasRequest = ''] = annas;
    const get = await getOne(contractId, annasRequest, { customerId: boris.customerId });
    expect(get.status).toBe(404);
    expect(get.body).toMatchObject({ errorCode: 'TERMINATION_REQUEST_NOT_FOUND' });
    expect(await list(contractId, {}, boris.customerId)).toMatchObject({ status: 200, body: { items: [] } });
    const borisCreate = await callHandler({ contractId, body: validBody(), headers: headersWithKey(), customerId: boris.customerId });
    expect(borisCreate.status).toBe(409);
    // Anna's active request holds the slot, but its number is not Boris's to know.
    expect(borisCreate.body['message']).toBe('An active termination request already exists for this contract.');
    expect(borisCreate.raw).not.toMatch(/TR-/);
  });

  it('the old owner keeps reading the requests they made, and may make no new one', async () => {
    const { contractId, annas } = await transferred(2);
    expect((await getOne(contractId, annas[0] ?? '')).status).toBe(200);
    expect((await list(contractId)).body['items']).toMatchObject([...annas].reverse().map((requestId) => ({ requestId })));
    await releaseSlot(contractId);
    const annaCreate = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    expect(annaCreate.status).toBe(403);
  });

  it('pages each customer through their own requests only, however they are interleaved', async () => {
    const { contractId, annas } = await transferred(3);
    await releaseSlot(contractId);
    const boriss: string[] = [];
    for (let i = 0; i < 2; i++) {
      if (i > 0) await releaseSlot(contractId);
      const created = await callHandler({ contractId, body: validBody(), headers: headersWithKey(), customerId: boris.customerId });
      expect(created.status).toBe(201);
      boriss.push(String(created.body['requestId']));
    }
    const pagesOf = async (customerId: string): Promise<unknown[]> => {
      const seen: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await list(contractId, { limit: '2', ...(cursor === undefined ? {} : { cursor }) }, customerId);
        expect(page.status).toBe(200);
        const items = page.body['items'];
        if (Array.isArray(items)) seen.push(...items.map((item: { requestId?: unknown }) => item.requestId));
        cursor = typeof page.body['nextCursor'] === 'string' ? page.body['nextCursor'] : undefined;
      } while (cursor !== undefined);
      return seen;
    };
    expect(await pagesOf(anna.customerId)).toEqual([...annas].reverse());
    expect(await pagesOf(boris.customerId)).toEqual([...boriss].reverse());
  });

  it("never stands a cursor on another customer's request, however many of them lie between the caller's", async () => {
    // Boris's request, then 350 of Anna's (more than any number of reads per page could skip), then the contract is Boris's again.
    const contractId = await newContract(tables, { customerId: boris.customerId });
    const borisIds = [timeOrderedUuid()];
    const annaIds = Array.from({ length: 350 }, () => timeOrderedUuid());
    const requestItem = (requestId: string, customerId: string) =>
      partItem(buildCreateTransaction(tables.names, newRequest(contractId, { requestId, customerId }), 0), 'request')?.Put?.Item ?? {};
    const items = [...borisIds.map((id) => requestItem(id, boris.customerId)), ...annaIds.map((id) => requestItem(id, anna.customerId))];
    for (let at = 0; at < items.length; at += 25) {
      const batch = items.slice(at, at + 25).map((Item) => ({ PutRequest: { Item } }));
      await tables.doc.send(new BatchWriteCommand({ RequestItems: { [tables.names.requests]: batch } }));
    }
    borisIds.push(
      String(
        (await callHandler({ contractId, body: validBody(), headers: headersWithKey(), customerId: boris.customerId })).body['requestId'],
      ),
    );

    const seen: unknown[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(contractId, { limit: '1', ...(cursor === undefined ? {} : { cursor }) }, boris.customerId);
      expect(page.status).toBe(200);
      const pageItems = page.body['items'];
      if (Array.isArray(pageItems)) seen.push(...pageItems.map((item: { requestId?: unknown }) => item.requestId));
      cursor = typeof page.body['nextCursor'] === 'string' ? page.body['nextCursor'] : undefined;
      if (cursor !== undefined) cursors.push(String(cursorPosition(cursor, contractId)));
    } while (cursor !== undefined && cursors.length < 10);
    expect(seen).toEqual([...borisIds].reverse());
    expect(cursors.filter((requestId) => !borisIds.includes(requestId))).toEqual([]);
  });

  it("costs one Query per 100 of another customer's requests read, not one per request", async () => {
    const { contractId } = await transferred(30);
    const uninstall = installSdkRecorder();
    try {
      const stranger = await callsDuring('list', () => list(contractId, { limit: '1' }, 'customer-stranger'));
      expect(stranger.answer.status).toBe(403);
      const owner = await callsDuring('list', () => list(contractId, { limit: '1' }, boris.customerId));
      expect(owner.answer.body).toEqual({ items: [] });
      // One Query of one item (and the caller's limit record, in the same call), then 100 at a time (30 items:
      // one more), then the contract: not one per item.
      for (const { calls } of [stranger, owner])
        expect(calls.map((c) => c.operation)).toEqual(['dynamodb:Query', 'dynamodb:Query', 'dynamodb:GetItem']);
    } finally {
      uninstall();
    }
  });
});
