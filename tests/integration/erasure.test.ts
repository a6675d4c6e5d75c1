import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  idempotencyKeyOf,
  limitKeyOf,
  numberKeyOf,
  requestKeyOf,
  slotKeyOf,
  withdrawalKeyOf,
  type TableKey,
} from '../../lib/dynamodb/keys';
import { CustomerData } from '../../lib/dynamodb/customer-data';
import { ledgerPartition } from '../../lib/dynamodb/erasure-ledger';
import { DynamoDbTerminationStore } from '../../lib/dynamodb/termination-table';
import { ERASURE_RULES } from '../../lib/termination/erasure';
import { isFinal, moveTo } from '../../lib/termination/lifecycle';
import type { Decision } from '../../lib/termination/ports/decision';
import { createLedgerTable } from '../../scripts/local/tables';
import { localClient } from '../../scripts/local/dynamodb-local';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf } from '../support/handler';
import { jsonObject } from '../support/json';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { localDocumentClient } from '../support/use-case';

/*
 * npm run subject-access and npm run erase (docs/operations.md, *A customer asks to be erased*),
 * run as an operator runs them, against DynamoDB Local: what a customer with final and active
 * requests gets back, what an erasure takes and what it leaves, a retried call after it, a second
 * run, and a point-in-time restore followed by a reapply.
 */

const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const anna = DEMO_CUSTOMERS.anna;
let tables: TestTables;
let ledger: string;

beforeAll(async () => {
  tables = await useFreshTables();
  ledger = `erasures-${randomUUID().slice(0, 8)}`;
  await createLedgerTable(localClient(tables.endpoint), ledger);
});

/** One of the commands, as `npm run <command> -- <args>` runs it, on this file's tables: its JSON answer. */
async function run(script: 'subject-access' | 'erase', args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [tsx, `scripts/${script}.ts`, ...args, '--endpoint', tables.endpoint, '--table', tables.names.requests, '--ledger-table', ledger],
    { env: { PATH: process.env['PATH'], HOME: process.env['HOME'] }, timeout: 60_000 },
  );
  return jsonObject(JSON.parse(stdout));
}

async function item(key: TableKey): Promise<Record<string, unknown> | undefined> {
  return (await tables.doc.send(new GetCommand({ TableName: tables.names.requests, Key: { ...key }, ConsistentRead: true }))).Item;
}

interface Made {
  contractId: string;
  requestId: string;
  requestNumber: string;
  createKey: string;
  body: Record<string, unknown>;
}

async function created(): Promise<Made> {
  const contractId = await newContract(tables);
  const headers = headersWithKey();
  const body = validBody();
  const answer = await callHandler({ contractId, body, headers });
  expect(answer.status).toBe(201);
  return {
    contractId,
    requestId: String(answer.body['requestId']),
    requestNumber: String(answer.body['requestNumber']),
    createKey: String(headers['Idempotency-Key']),
    body,
  };
}

async function completed(request: Made): Promise<void> {
  const store = new DynamoDbTerminationStore(localDocumentClient(tables.endpoint), tables.names);
  for (const status of ['IN_REVIEW', 'APPROVED', 'COMPLETED'] as const) {
    const move = isFinal(status) ? { ...moveTo(status), retainUntil: Math.floor(Date.now() / 1000) + 86_400 } : moveTo(status);
    const decision: Decision = {
      eventId: `bo-${status}-${request.requestId}`,
      ...request,
      status,
      reason: undefined,
      occurredAt: new Date().toISOString(),
    };
    expect(await store.applyDecision(decision, move, new Date().toISOString())).toEqual({ kind: 'applied' });
  }
}

describe('a customer with a withdrawn, a completed and an active request', () => {
  let withdrawn: Made;
  let done: Made;
  let active: Made;
  const withdrawalKey = randomUUID();
  /** Every item of the customer's erased requests as it stood before the erasure: what a restore brings back. */
  let before: Record<string, unknown>[];
  let erasedAt: string;

  beforeAll(async () => {
    withdrawn = await created();
    expect((await callHandler(withdrawalOf(withdrawn, anna.customerId, withdrawalKey))).status).toBe(200);
    done = await created();
    await completed(done);
    active = await created();
  });

  it('subject-access: their requests as stored, their limit records, their key records as fingerprints and times', async () => {
    const document = await run('subject-access', ['--customer', anna.customerId]);
    expect(document['customerId']).toBe(anna.customerId);
    const requests = Array.isArray(document['requests']) ? document['requests'].map(jsonObject) : [];
    expect(requests.map((r) => r['requestNumber']).sort()).toEqual([withdrawn, done, active].map((r) => r.requestNumber).sort());
    // As stored: what they submitted, the full account number included, and the history.
    const stored = requests.find((r) => r['requestId'] === withdrawn.requestId);
    expect(stored).toMatchObject({
      status: 'WITHDRAWN',
      bankDetails: withdrawn.body['bankDetails'],
      statusHistory: [{ status: 'WITHDRAWN' }],
    });
    const limits = Array.isArray(document['limitRecords']) ? document['limitRecords'].map(jsonObject) : [];
    expect(limits.map((l) => l['sk'])).toEqual([
      `REQUEST_LIMIT#${anna.customerId}`,
      `REQUEST_LIMIT#${anna.customerId}`,
      `REQUEST_LIMIT#${anna.customerId}`,
    ]);
    const keys = Array.isArray(document['keyRecords']) ? document['keyRecords'].map(jsonObject) : [];
    expect(keys).toHaveLength(4);
    for (const key of keys) {
      expect(key).toEqual({
        key: expect.any(Object),
        kind: expect.any(String),
        fingerprint: expect.any(String),
        requestId: expect.any(String),
        createdAt: expect.any(String),
        expiresAt: expect.any(Number),
      });
      expect(JSON.stringify(key)).not.toContain('responseJson');
    }
  });

  it('erase: the final requests and all that names them go, in conditional writes; the active one stays, with its number and why', async () => {
    const keysOf = (r: Made): TableKey[] => [
      requestKeyOf(r.contractId, r.requestId),
      numberKeyOf(r.requestNumber),
      limitKeyOf(r.contractId, anna.customerId),
      idempotencyKeyOf(anna.customerId, r.createKey),
    ];
    before = [];
    for (const key of [...keysOf(withdrawn), ...keysOf(done), withdrawalKeyOf(anna.customerId, withdrawalKey)]) {
      const found = await item(key);
      if (found !== undefined) before.push(found);
    }
    expect(before).toHaveLength(9);

    const report = await run('erase', ['--customer', anna.customerId]);
    erasedAt = String(report['erasedAt']);
    const erased = Array.isArray(report['erased']) ? report['erased'].map(jsonObject) : [];
    expect(
      erased
        .filter((e) => e['requestNumber'] !== undefined)
        .map((e) => e['requestNumber'])
        .sort(),
    ).toEqual([withdrawn.requestNumber, done.requestNumber].sort());
    expect(report['kept']).toEqual([
      {
        contractId: active.contractId,
        requestId: active.requestId,
        requestNumber: active.requestNumber,
        status: 'SUBMITTED',
        why: expect.stringContaining('active'),
      },
    ]);

    for (const r of [withdrawn, done]) {
      expect(await item(requestKeyOf(r.contractId, r.requestId))).toBeUndefined();
      expect(await item(numberKeyOf(r.requestNumber))).toBeUndefined();
      expect(await item(limitKeyOf(r.contractId, anna.customerId))).toBeUndefined();
      // The key record keeps its fingerprint and expiry only: no answer, no request.
      const key = await item(idempotencyKeyOf(anna.customerId, r.createKey));
      expect(key).toMatchObject({ fingerprint: expect.any(String), expiresAt: expect.any(Number), erased: erasedAt });
      expect(key).not.toHaveProperty('responseJson');
      expect(key).not.toHaveProperty('requestId');
    }
    expect(await item(withdrawalKeyOf(anna.customerId, withdrawalKey))).not.toHaveProperty('responseJson');
    // The active request, its slot, number and limit record: untouched.
    expect(await item(requestKeyOf(active.contractId, active.requestId))).toMatchObject({ status: 'SUBMITTED' });
    expect(await item(slotKeyOf(active.contractId))).toMatchObject({ requestId: active.requestId });
    expect(await item(numberKeyOf(active.requestNumber))).toEqual({ ...numberKeyOf(active.requestNumber), kind: 'REQUEST_NUMBER' });
    expect(await item(limitKeyOf(active.contractId, anna.customerId))).toBeDefined();
  });

  it('a create or a withdrawal retried with its key after the erasure finds no request: not the erased body, and nothing new made', async () => {
    const create = await callHandler({
      contractId: withdrawn.contractId,
      body: withdrawn.body,
      headers: { 'Idempotency-Key': withdrawn.createKey },
    });
    expect(create.status).toBe(404);
    expect(create.body).toMatchObject({ errorCode: 'TERMINATION_REQUEST_NOT_FOUND', details: [{ field: 'Idempotency-Key' }] });
    expect(create.raw).not.toContain(withdrawn.requestNumber);
    const withdrawal = await callHandler(withdrawalOf(withdrawn, anna.customerId, withdrawalKey));
    expect(withdrawal.status).toBe(404);
    expect(withdrawal.raw).not.toContain(withdrawn.requestId);
    // Another body with the key is a reused key, as ever.
    const other = await callHandler({
      contractId: withdrawn.contractId,
      body: validBody({ comment: 'Другие слова.' }),
      headers: { 'Idempotency-Key': withdrawn.createKey },
    });
    expect(other.body['errorCode']).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await tables.contractItems(withdrawn.contractId)).toEqual([]);
  });

  it('erase again: harmless, nothing more to erase, the active request still kept', async () => {
    const report = await run('erase', ['--customer', anna.customerId]);
    expect(report['erased']).toEqual([]);
    expect(report['kept']).toEqual([expect.objectContaining({ requestNumber: active.requestNumber })]);
  });

  it('after a point-in-time restore brings the erased items back, --reapply-since erases them again, and never the active request', async () => {
    // The restore: the table as it was before the erasure (the ledger, a table of its own, is not rolled back).
    for (const restored of before) await tables.doc.send(new PutCommand({ TableName: tables.names.requests, Item: restored }));
    expect(await item(requestKeyOf(done.contractId, done.requestId))).toMatchObject({ status: 'COMPLETED' });
    const report = await run('erase', ['--reapply-since', new Date(Date.parse(erasedAt) - 60_000).toISOString()]);
    expect(report['entries']).toBeGreaterThanOrEqual(2);
    expect(report['keptActive']).toEqual([]);
    for (const r of [withdrawn, done]) {
      expect(await item(requestKeyOf(r.contractId, r.requestId))).toBeUndefined();
      expect(await item(numberKeyOf(r.requestNumber))).toBeUndefined();
      expect(await item(limitKeyOf(r.contractId, anna.customerId))).toBeUndefined();
      expect(await item(idempotencyKeyOf(anna.customerId, r.createKey))).not.toHaveProperty('responseJson');
    }
    expect(await item(requestKeyOf(active.contractId, active.requestId))).toMatchObject({ status: 'SUBMITTED' });
  });

  it('--reapply-since never erases a request a restore brought back active: it reports it for the officer', async () => {
    const activeAgain = { ...jsonObject(before.find((i) => i['sk'] === `REQUEST#${done.requestId}`)), status: 'APPROVED' };
    await tables.doc.send(new PutCommand({ TableName: tables.names.requests, Item: activeAgain }));
    const report = await run('erase', ['--reapply-since', new Date(Date.parse(erasedAt) - 60_000).toISOString()]);
    expect(report['keptActive']).toEqual([{ key: requestKeyOf(done.contractId, done.requestId), status: 'APPROVED' }]);
    expect(await item(requestKeyOf(done.contractId, done.requestId))).toMatchObject({ status: 'APPROVED' });
    await tables.doc.send(new DeleteCommand({ TableName: tables.names.requests, Key: requestKeyOf(done.contractId, done.requestId) }));
  });
});

describe('an erasure that a condition refuses', () => {
  it('erases nothing and names the part that refused it: a number item that names another request', async () => {
    const boris = DEMO_CUSTOMERS.boris;
    const contractId = await newContract(tables, { customerId: boris.customerId });
    const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey(), customerId: boris.customerId });
    expect(answer.status).toBe(201);
    const request = { contractId, requestId: String(answer.body['requestId']) };
    const requestNumber = String(answer.body['requestNumber']);
    expect((await callHandler(withdrawalOf(request, boris.customerId, randomUUID()))).status).toBe(200);
    // The number as written before it held the number alone, naming another request.
    await tables.doc.send(
      new PutCommand({
        TableName: tables.names.requests,
        Item: { ...numberKeyOf(requestNumber), kind: 'REQUEST_NUMBER', requestId: randomUUID(), contractId },
      }),
    );
    const data = new CustomerData(tables.doc, { requests: tables.names.requests, ledger }, ERASURE_RULES);
    await expect(data.erase(boris.customerId, { ledgerDays: 90 })).rejects.toThrow(
      `Request ${requestNumber} changed while it was being erased (nothing was; refused by: number): run the command again`,
    );
    expect(await item(requestKeyOf(contractId, request.requestId))).toMatchObject({ status: 'WITHDRAWN' });
    const { Items: entries = [] } = await tables.doc.send(
      new QueryCommand({
        TableName: ledger,
        KeyConditionExpression: 'pk = :day',
        ExpressionAttributeValues: { ':day': ledgerPartition(new Date()) },
        ConsistentRead: true,
      }),
    );
    expect(entries.filter((entry) => entry['requestId'] === request.requestId)).toEqual([]);
  });
});
