import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyOf, numberKeyOf, requestKeyOf, slotKeyOf, withdrawalKeyOf, type TableKey } from '../../lib/dynamodb/keys';
import { DynamoDbTerminationStore } from '../../lib/dynamodb/termination-table';
import { isFinal, moveTo } from '../../lib/termination/lifecycle';
import type { Decision } from '../../lib/termination/ports/decision';
import { at, templateFile } from '../../scripts/local/template-file';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf } from '../support/handler';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { localDocumentClient } from '../support/use-case';

/*
 * How long a request is kept (docs/decisions/0024-retention-by-calendar-year.md): the write that makes it final
 * sets its expiresAt, the table's TTL attribute, to the end of the retention period; an active
 * request has none; the key records keep their own 24 h; the number item stays. Against DynamoDB
 * Local, through the withdrawal's handler (configured with REQUEST_RETENTION_DAYS) and the
 * decision use case.
 */

const RETENTION_DAYS = 30;
const DAY = 86_400;
const anna = DEMO_CUSTOMERS.anna;
let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
  // Read by the withdrawal's handler when a test first calls it.
  process.env['REQUEST_RETENTION_DAYS'] = String(RETENTION_DAYS);
});

const seconds = (time: number) => Math.floor(time / 1000);

async function item(key: TableKey): Promise<Record<string, unknown> | undefined> {
  return (await tables.doc.send(new GetCommand({ TableName: tables.names.requests, Key: { ...key }, ConsistentRead: true }))).Item;
}

/** A request created through the create's handler, with its key and ids. */
async function created(): Promise<{ contractId: string; requestId: string; requestNumber: string; key: string }> {
  const contractId = await newContract(tables);
  const headers = headersWithKey();
  const answer = await callHandler({ contractId, body: validBody(), headers });
  expect(answer.status).toBe(201);
  return {
    contractId,
    requestId: String(answer.body['requestId']),
    requestNumber: String(answer.body['requestNumber']),
    key: String(headers['Idempotency-Key']),
  };
}

describe('a withdrawal', () => {
  it('stamps its request with the end of the retention period; the keys keep their 24 h, the number item stays, the slot goes', async () => {
    const request = await created();
    const requestKey = requestKeyOf(request.contractId, request.requestId);
    expect(await item(requestKey)).not.toHaveProperty('expiresAt');

    const before = seconds(Date.now());
    const withdrawalKey = '9b2f4c1e-7a3d-4e5f-8a6b-1c2d3e4f5a6b';
    const answer = await callHandler(withdrawalOf(request, anna.customerId, withdrawalKey));
    expect(answer.status).toBe(200);
    const withdrawnAt = seconds(Date.parse(String(answer.body['withdrawnAt'])));
    expect(withdrawnAt).toBeGreaterThanOrEqual(before);

    expect(await item(requestKey)).toMatchObject({ status: 'WITHDRAWN', expiresAt: withdrawnAt + RETENTION_DAYS * DAY });
    // The attribute the table's TTL deletes by.
    expect(at(templateFile('tables.yml'), 'Resources', 'RequestsTable', 'Properties', 'TimeToLiveSpecification', 'AttributeName')).toBe(
      'expiresAt',
    );
    expect(await item(slotKeyOf(request.contractId))).toBeUndefined();
    expect(await item(numberKeyOf(request.requestNumber))).not.toHaveProperty('expiresAt');
    const createKey = await item(idempotencyKeyOf(anna.customerId, request.key));
    const withdrawKey = await item(withdrawalKeyOf(anna.customerId, withdrawalKey));
    for (const record of [createKey, withdrawKey]) {
      expect(record?.['expiresAt']).toBeGreaterThan(before + DAY - 60);
      expect(record?.['expiresAt']).toBeLessThanOrEqual(seconds(Date.now()) + DAY);
    }
  });
});

describe('a decision', () => {
  /** The consumer's store on this file's tables, counting the DynamoDB calls it makes. */
  function countingStore() {
    const client = localDocumentClient(tables.endpoint);
    const counted = { calls: 0 };
    client.middlewareStack.add(
      (next) => (args) => {
        counted.calls++;
        return next(args);
      },
      { step: 'initialize', name: 'countCalls' },
    );
    return { store: new DynamoDbTerminationStore(client, tables.names), counted };
  }

  it('to a status still active sets no expiry; to a final one, the expiry it is handed, in its one call', async () => {
    const { store, counted } = countingStore();
    const appliedAt = '2030-03-18T09:00:00.000Z';
    const retainUntil = seconds(Date.parse(appliedAt)) + RETENTION_DAYS * DAY;
    const decide = async (request: { contractId: string; requestId: string }, status: Decision['status']) => {
      counted.calls = 0;
      // As the consumer hands it over: a final status with the end of its retention period (retention.ts).
      const move = isFinal(status) ? { ...moveTo(status), retainUntil } : moveTo(status);
      const decision = { eventId: `bo-${status}`, ...request, status, reason: undefined, occurredAt: appliedAt };
      expect(await store.applyDecision(decision, move, appliedAt)).toEqual({ kind: 'applied' });
      return counted.calls;
    };
    const completed = await created();
    const key = requestKeyOf(completed.contractId, completed.requestId);
    for (const status of ['IN_REVIEW', 'APPROVED'] as const) {
      expect(await decide(completed, status)).toBe(1);
      expect(await item(key)).not.toHaveProperty('expiresAt');
    }
    expect(await decide(completed, 'COMPLETED')).toBe(1);
    expect(await item(key)).toMatchObject({ status: 'COMPLETED', expiresAt: retainUntil });

    const rejected = await created();
    expect(await decide(rejected, 'REJECTED')).toBe(1);
    expect(await item(requestKeyOf(rejected.contractId, rejected.requestId))).toMatchObject({ status: 'REJECTED', expiresAt: retainUntil });
    expect(await item(numberKeyOf(rejected.requestNumber))).not.toHaveProperty('expiresAt');
  });
});
