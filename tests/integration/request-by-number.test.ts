import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numberKeyOf, requestKeyOf, slotKeyOf, type TableKey } from '../../lib/dynamodb/keys';
import { findRequestByNumber, NUMBER_INDEX, NUMBER_INDEX_ATTRIBUTES } from '../../lib/dynamodb/request-by-number';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { tableDefinition } from '../../scripts/local/template-file';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf } from '../support/handler';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';

/*
 * A request by its number (docs/decisions/0026-a-request-by-its-number.md): the create, through
 * the real handler against DynamoDB Local (tables made from resources/tables.yml), writes a
 * number item that holds the number alone, and the index by number finds the request in one
 * Query, never a scan, for as long as its request item lives, and no longer.
 */

const anna = DEMO_CUSTOMERS.anna;
let stack: LifecycleStack;

beforeAll(async () => {
  stack = await useLifecycleStack();
});
afterAll(() => stack.stop());

async function item(key: TableKey): Promise<Record<string, unknown> | undefined> {
  return (await stack.tables.doc.send(new GetCommand({ TableName: stack.tables.names.requests, Key: { ...key }, ConsistentRead: true })))
    .Item;
}

async function created(): Promise<{ contractId: string; requestId: string; requestNumber: string }> {
  const contractId = await newContract(stack.tables);
  const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return { contractId, requestId: String(answer.body['requestId']), requestNumber: String(answer.body['requestNumber']) };
}

describe('the number item', () => {
  it('holds the number alone: nothing in it points to the request, the contract or the customer', async () => {
    const request = await created();
    expect(await item(numberKeyOf(request.requestNumber))).toEqual({ ...numberKeyOf(request.requestNumber), kind: 'REQUEST_NUMBER' });
  });
});

describe('the index by number', () => {
  it('is the one resources/tables.yml defines, keyed and projected as the code reads it', () => {
    expect(tableDefinition('RequestsTable').globalIndexes.find((index) => index.name === NUMBER_INDEX.name)).toEqual({
      name: NUMBER_INDEX.name,
      keys: [{ name: NUMBER_INDEX.partitionKey, type: 'HASH' }],
      projectionType: 'INCLUDE',
      attributes: [...NUMBER_INDEX_ATTRIBUTES],
    });
  });

  it('finds an active request in one Query of the index, though its slot carries the number too', async () => {
    const request = await created();
    expect(await item(slotKeyOf(request.contractId))).toMatchObject({ requestNumber: request.requestNumber });
    const uninstall = installSdkRecorder();
    try {
      const found = await callsDuring('by number', () =>
        findRequestByNumber(stack.tables.doc, stack.tables.names.requests, request.requestNumber),
      );
      expect(found.answer).toEqual({ contractId: request.contractId, requestId: request.requestId });
      expect(found.calls.map((call) => [call.operation, call.accesses.map((access) => access.resource)])).toEqual([
        ['dynamodb:Query', [{ kind: 'table', name: stack.tables.names.requests, index: NUMBER_INDEX.name }]],
      ]);
    } finally {
      uninstall();
    }
  });

  it('finds a final request until its item goes, then nothing: the number item stays, naming no one', async () => {
    const request = await created();
    expect((await callHandler(withdrawalOf(request, anna.customerId))).status).toBe(200);
    expect(await findRequestByNumber(stack.tables.doc, stack.tables.names.requests, request.requestNumber)).toEqual({
      contractId: request.contractId,
      requestId: request.requestId,
    });
    // What the table's TTL does once the retention ends.
    await stack.tables.doc.send(
      new DeleteCommand({ TableName: stack.tables.names.requests, Key: { ...requestKeyOf(request.contractId, request.requestId) } }),
    );
    expect(await findRequestByNumber(stack.tables.doc, stack.tables.names.requests, request.requestNumber)).toBeUndefined();
    expect(await item(numberKeyOf(request.requestNumber))).toEqual({ ...numberKeyOf(request.requestNumber), kind: 'REQUEST_NUMBER' });
  });

  it('finds nothing for a number no request carries', async () => {
    expect(await findRequestByNumber(stack.tables.doc, stack.tables.names.requests, 'TR-2222-2222')).toBeUndefined();
  });
});
