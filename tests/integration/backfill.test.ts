import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { numberKeyOf, requestKeyOf, slotKeyOf, type TableKey } from '../../lib/dynamodb/keys';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler } from '../support/handler';
import { jsonObject } from '../support/json';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { runMigrate } from '../support/migrate';

/*
 * The migration of items written before the indexes by customer and by number
 * (lib/dynamodb/backfill.ts; docs/decisions/0026-a-request-by-its-number.md), run by npm run
 * migrate as an operator runs it after a deploy (docs/deploy.md), against DynamoDB Local: requests
 * made before the index by customer get their `requestedBy` and show on the customer's list;
 * number items written before the number stood alone lose the ids they recorded; nothing else
 * changes, and a second run finds nothing to do.
 */

const anna = DEMO_CUSTOMERS.anna;
let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
});

/** What npm run migrate says this migration did. */
async function run(): Promise<Record<string, unknown>> {
  const { code, report, said } = await runMigrate(tables);
  expect(code, said).toBe(0);
  return report['request-indexes'] ?? {};
}

async function item(key: TableKey): Promise<Record<string, unknown> | undefined> {
  return (await tables.doc.send(new GetCommand({ TableName: tables.names.requests, Key: { ...key }, ConsistentRead: true }))).Item;
}

async function created(): Promise<{ contractId: string; requestId: string; requestNumber: string }> {
  const contractId = await newContract(tables);
  const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return { contractId, requestId: String(answer.body['requestId']), requestNumber: String(answer.body['requestNumber']) };
}

/** The customer's own list, through the real handler: the request ids it shows. */
async function listed(): Promise<string[]> {
  const answer = await callHandler({ method: 'GET', allContracts: true, customerId: anna.customerId, query: { limit: '100' } });
  expect(answer.status).toBe(200);
  const items = Array.isArray(answer.body['items']) ? answer.body['items'] : [];
  return items.map((entry: unknown) => String(jsonObject(jsonObject(entry)['request'])['requestId']));
}

describe('npm run migrate: requests and number items written before the indexes', () => {
  let old: { contractId: string; requestId: string; requestNumber: string };
  let current: { contractId: string; requestId: string; requestNumber: string };
  let currentItems: (Record<string, unknown> | undefined)[];

  beforeAll(async () => {
    old = await created();
    current = await created();
    // As they were written before the two indexes: no requestedBy on the request, the ids on the number.
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.names.requests,
        Key: { ...requestKeyOf(old.contractId, old.requestId) },
        UpdateExpression: 'REMOVE requestedBy',
      }),
    );
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.names.requests,
        Key: { ...numberKeyOf(old.requestNumber) },
        UpdateExpression: 'SET requestId = :requestId, contractId = :contractId',
        ExpressionAttributeValues: { ':requestId': old.requestId, ':contractId': old.contractId },
      }),
    );
    currentItems = await Promise.all(
      [requestKeyOf(current.contractId, current.requestId), numberKeyOf(current.requestNumber), slotKeyOf(current.contractId)].map(item),
    );
  });

  it("gives a request made before the index by customer its requestedBy, from its own customerId: the customer's list shows it", async () => {
    expect(await listed()).not.toContain(old.requestId);
    const report = await run();
    expect(report).toEqual({ found: 2, requestsGivenCustomer: 1, numbersStripped: 1, alreadyDone: 0 });
    expect(await item(requestKeyOf(old.contractId, old.requestId))).toMatchObject({ requestedBy: anna.customerId });
    expect(await listed()).toContain(old.requestId);
  });

  it('leaves a number item written before the number stood alone with the number alone', async () => {
    expect(await item(numberKeyOf(old.requestNumber))).toEqual({ ...numberKeyOf(old.requestNumber), kind: 'REQUEST_NUMBER' });
  });

  it('changes nothing written since: the request, its number and its slot are as they were', async () => {
    const now = await Promise.all(
      [requestKeyOf(current.contractId, current.requestId), numberKeyOf(current.requestNumber), slotKeyOf(current.contractId)].map(item),
    );
    expect(now).toEqual(currentItems);
    expect(await item(slotKeyOf(old.contractId))).not.toHaveProperty('requestedBy');
  });

  it('finds nothing to do the second time', async () => {
    expect(await run()).toEqual({ found: 0, requestsGivenCustomer: 0, numbersStripped: 0, alreadyDone: 0 });
  });
});
