import { randomUUID } from 'node:crypto';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_INDEX, CUSTOMER_INDEX_ATTRIBUTES } from '../../lib/dynamodb/customer-requests';
import { limitKeyOf, slotKeyOf } from '../../lib/dynamodb/keys';
import { encodeCursor } from '../../lib/termination/read-termination-requests';
import { decisionEvent } from '../../scripts/local/decision-event';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { NUMBER_INDEX } from '../../lib/dynamodb/request-by-number';
import { tableDefinition } from '../../scripts/local/template-file';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf, type HandlerAnswer } from '../support/handler';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';

/*
 * What a customer sees of their own requests beyond a GET
 * (docs/decisions/0022-what-a-customer-sees-of-a-request.md, 0023-a-customers-requests-by-index.md):
 * the details of one request and the list of their requests on every contract, through the real
 * handlers against DynamoDB Local, whose tables are made from resources/tables.yml, index included.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;
let stack: LifecycleStack;

beforeAll(async () => {
  stack = await useLifecycleStack();
});
afterAll(() => stack.stop());

async function create(contractId: string, customerId: string = anna.customerId, body = validBody()): Promise<HandlerAnswer> {
  const answer = await callHandler({ contractId, customerId, body, headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return answer;
}

/** Frees the contract for another request, as a final status would, and forgets the customer's count, as time would. */
async function releaseSlot(contractId: string, customerId: string = anna.customerId): Promise<void> {
  const TableName = stack.tables.names.requests;
  await stack.tables.doc.send(new DeleteCommand({ TableName, Key: { ...slotKeyOf(contractId) } }));
  await stack.tables.doc.send(new DeleteCommand({ TableName, Key: { ...limitKeyOf(contractId, customerId) } }));
}

const details = (contractId: string, requestId: string, customerId: string = anna.customerId, headers: Record<string, string> = {}) =>
  callHandler({ method: 'GET', details: true, contractId, requestId, customerId, headers });
const mine = (query: Record<string, string> = {}, customerId: string = anna.customerId) =>
  callHandler({ method: 'GET', allContracts: true, query, customerId });

describe('GET .../termination-requests/{requestId}/details', () => {
  it('shows what was submitted, the account cut to its last 4 digits, and the timeline with the bank’s reasons', async () => {
    const contractId = await newContract(stack.tables);
    const body = validBody({ reasonCode: 'OTHER', comment: 'Moving abroad', documentIds: undefined });
    const created = await create(contractId, anna.customerId, body);
    const requestId = String(created.body['requestId']);
    const review = '2031-01-10T09:00:00.000Z';
    const rejected = '2031-01-12T15:30:00.000Z';
    expect((await stack.decide(decisionEvent({ requestId, contractId, status: 'IN_REVIEW', occurredAt: review }))).outcome).toBe('applied');
    const reason = 'The contract is pledged';
    const decided = decisionEvent({ requestId, contractId, status: 'REJECTED', reason, occurredAt: rejected });
    expect((await stack.decide(decided)).outcome).toBe('applied');

    const answer = await details(contractId, requestId);
    expect(answer.status).toBe(200);
    const { accountNumber, ...shownDetails } = DEMO_BANK_DETAILS;
    expect(answer.body).toEqual({
      request: {
        requestId,
        requestNumber: created.body['requestNumber'],
        status: 'REJECTED',
        createdAt: created.body['createdAt'],
        statusReason: reason,
        message: expect.stringContaining(reason),
      },
      submitted: {
        reasonCode: 'OTHER',
        desiredTerminationDate: body['desiredTerminationDate'],
        bankDetails: { ...shownDetails, accountNumberLast4: accountNumber.slice(-4) },
        comment: 'Moving abroad',
      },
      timeline: [
        { status: 'SUBMITTED', at: created.body['createdAt'] },
        { status: 'IN_REVIEW', at: review },
        { status: 'REJECTED', at: rejected, reason },
      ],
    });
    // The full number never leaves the service again, in any form.
    expect(answer.raw).not.toContain(accountNumber);
    expect(answer.raw).not.toContain(accountNumber.slice(0, 16));
  });

  it('shows a withdrawal as the last step, with no reason, and the documents the customer named', async () => {
    const contractId = await newContract(stack.tables);
    const documentIds = [anna.documents.passport];
    const requestId = String((await create(contractId, anna.customerId, validBody({ documentIds }))).body['requestId']);
    const withdrawn = await callHandler(withdrawalOf({ contractId, requestId }, anna.customerId));
    expect(withdrawn.status).toBe(200);
    const answer = await details(contractId, requestId);
    expect(answer.body['submitted']).toMatchObject({ documentIds });
    expect(answer.body['timeline']).toEqual([
      { status: 'SUBMITTED', at: expect.any(String) },
      { status: 'WITHDRAWN', at: withdrawn.body['withdrawnAt'] },
    ]);
  });

  it('costs one DynamoDB call when the request is the caller’s, and never shows it to anyone else', async () => {
    const contractId = await newContract(stack.tables);
    const requestId = String((await create(contractId)).body['requestId']);
    const uninstall = installSdkRecorder();
    try {
      const hit = await callsDuring('details', () => details(contractId, requestId));
      expect(hit.answer.status).toBe(200);
      expect(hit.calls.map((call) => call.operation)).toEqual(['dynamodb:GetItem']);
    } finally {
      uninstall();
    }
    const stranger = await details(contractId, requestId, boris.customerId);
    expect(stranger).toMatchObject({ status: 403, body: { errorCode: 'CONTRACT_ACCESS_DENIED' } });
    expect(stranger.raw).not.toContain(requestId);
    expect((await details(contractId, randomUUID())).body).toMatchObject({ errorCode: 'TERMINATION_REQUEST_NOT_FOUND' });
    expect((await details(randomUUID(), requestId)).body).toMatchObject({ errorCode: 'CONTRACT_NOT_FOUND' });
    const invalid = await details('nope', 'nope');
    expect(invalid.status).toBe(400);
    expect(invalid.body['details']).toEqual([
      { field: 'contractId', reason: 'must be a UUID' },
      { field: 'requestId', reason: 'must be a UUID' },
    ]);
  });

  it('leaves the GET of the same request exactly as it was: five fields, no more', async () => {
    const contractId = await newContract(stack.tables);
    const created = await create(contractId);
    const one = await callHandler({ method: 'GET', contractId, requestId: String(created.body['requestId']) });
    expect(Object.keys(one.body).sort()).toEqual(['createdAt', 'message', 'requestId', 'requestNumber', 'status']);
  });
});

describe('GET /api/v1/termination-requests', () => {
  it("lists the caller's requests on every contract, newest first, a page at a time", async () => {
    const customerId = `customer-${randomUUID()}`;
    const first = await newContract(stack.tables, { customerId });
    const second = await newContract(stack.tables, { customerId });
    const made: { contractId: string; requestId: string }[] = [];
    for (const contractId of [first, second, first]) {
      made.push({ contractId, requestId: String((await create(contractId, customerId)).body['requestId']) });
      await releaseSlot(contractId, customerId);
    }
    const newestFirst = [...made].reverse();
    const all = await mine({}, customerId);
    expect(all.status).toBe(200);
    expect(all.body['nextCursor']).toBeUndefined();
    expect(all.body['items']).toEqual(
      newestFirst.map(({ contractId, requestId }) => ({
        contractId,
        request: {
          requestId,
          requestNumber: expect.any(String),
          status: 'SUBMITTED',
          createdAt: expect.any(String),
          message: expect.any(String),
        },
      })),
    );

    const page = await mine({ limit: '2' }, customerId);
    expect(page.body['items']).toMatchObject(newestFirst.slice(0, 2).map(({ requestId }) => ({ request: { requestId } })));
    expect(page.body['nextCursor']).toBe(encodeCursor(newestFirst[1]?.contractId ?? '', newestFirst[1]?.requestId ?? ''));
    const next = await mine({ limit: '2', cursor: String(page.body['nextCursor']) }, customerId);
    expect(next.body).toEqual({
      items: [expect.objectContaining({ contractId: first, request: expect.objectContaining({ requestId: made[0]?.requestId }) })],
    });
  });

  it('shows the current status and the bank’s words, and an empty list to a customer with no requests', async () => {
    const customerId = `customer-${randomUUID()}`;
    const contractId = await newContract(stack.tables, { customerId });
    const requestId = String((await create(contractId, customerId)).body['requestId']);
    await stack.decide(decisionEvent({ requestId, contractId, status: 'REJECTED', reason: 'Pledged' }));
    expect((await mine({}, customerId)).body['items']).toMatchObject([{ request: { status: 'REJECTED', statusReason: 'Pledged' } }]);
    expect((await mine({}, `customer-${randomUUID()}`)).body).toEqual({ items: [] });
  });

  it("never shows a contract's previous owner's requests to its new owner, nor the reverse", async () => {
    const annasId = `customer-${randomUUID()}`;
    const borisId = `customer-${randomUUID()}`;
    const contractId = await newContract(stack.tables, { customerId: annasId });
    const annas = String((await create(contractId, annasId)).body['requestId']);
    await releaseSlot(contractId, annasId);
    await stack.tables.addContracts([{ contractId, customerId: borisId, status: 'ACTIVE' }]);
    const boriss = String((await create(contractId, borisId)).body['requestId']);
    expect((await mine({}, borisId)).body['items']).toEqual([
      expect.objectContaining({ request: expect.objectContaining({ requestId: boriss }) }),
    ]);
    expect((await mine({}, annasId)).body['items']).toEqual([
      expect.objectContaining({ request: expect.objectContaining({ requestId: annas }) }),
    ]);
  });

  it('costs one Query of the index, never the table, whatever the page holds', async () => {
    const customerId = `customer-${randomUUID()}`;
    const contractId = await newContract(stack.tables, { customerId });
    await create(contractId, customerId);
    const uninstall = installSdkRecorder();
    try {
      for (const customer of [customerId, `customer-${randomUUID()}`]) {
        const { answer, calls } = await callsDuring('customer-list', () => mine({}, customer));
        expect(answer.status).toBe(200);
        expect(calls.map((call) => [call.operation, call.accesses.map((access) => access.resource)])).toEqual([
          ['dynamodb:Query', [{ kind: 'table', name: stack.tables.names.requests, index: CUSTOMER_INDEX.name }]],
        ]);
      }
    } finally {
      uninstall();
    }
  });

  it('answers 400 for a limit out of range or a cursor that is not one of ours, and 401 without a customer', async () => {
    const answer = await mine({ limit: '0', cursor: 'not a cursor' });
    expect(answer.status).toBe(400);
    expect(answer.body['details']).toEqual([
      { field: 'limit', reason: expect.any(String) },
      { field: 'cursor', reason: expect.any(String) },
    ]);
    expect((await callHandler({ method: 'GET', allContracts: true, customerId: null })).status).toBe(401);
  });
});

describe('the index by customer', () => {
  it('is the one resources/tables.yml defines, keyed and projected as the code reads it', () => {
    const indexes = tableDefinition('RequestsTable').globalIndexes;
    // Besides it, only the index by number (tests/integration/request-by-number.test.ts).
    expect(indexes.map((i) => i.name).sort()).toEqual([CUSTOMER_INDEX.name, NUMBER_INDEX.name].sort());
    expect(indexes.find((i) => i.name === CUSTOMER_INDEX.name)).toEqual({
      name: CUSTOMER_INDEX.name,
      keys: [
        { name: CUSTOMER_INDEX.partitionKey, type: 'HASH' },
        { name: CUSTOMER_INDEX.sortKey, type: 'RANGE' },
      ],
      projectionType: 'INCLUDE',
      attributes: [...CUSTOMER_INDEX_ATTRIBUTES],
    });
  });

  it('holds the request items only, with what the list shows and no bank details, comment or documents', async () => {
    const customerId = `customer-${randomUUID()}`;
    const contractId = await newContract(stack.tables, { customerId });
    await create(contractId, customerId, validBody({ comment: 'A private comment' }));
    const { Items = [] } = await stack.tables.doc.send(
      new QueryCommand({
        TableName: stack.tables.names.requests,
        IndexName: CUSTOMER_INDEX.name,
        KeyConditionExpression: '#customer = :customer',
        ExpressionAttributeNames: { '#customer': CUSTOMER_INDEX.partitionKey },
        ExpressionAttributeValues: { ':customer': customerId },
      }),
    );
    // One item for the one request: not its slot, its number, its limit record or its key record.
    expect(Items).toHaveLength(1);
    expect(Object.keys(Items[0] ?? {}).sort()).toEqual(
      [
        'pk',
        'sk',
        CUSTOMER_INDEX.partitionKey,
        CUSTOMER_INDEX.sortKey,
        ...CUSTOMER_INDEX_ATTRIBUTES.filter((name) => name !== 'statusReason'),
      ].sort(),
    );
    expect(JSON.stringify(Items)).not.toContain(DEMO_BANK_DETAILS.accountNumber);
    expect(JSON.stringify(Items)).not.toContain('A private comment');
  });
});
