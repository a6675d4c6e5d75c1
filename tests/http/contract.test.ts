import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { localClient } from '../../scripts/local/dynamodb-local';
import { createLedgerTable } from '../../scripts/local/tables';
import { CustomerData } from '../../lib/dynamodb/customer-data';
import { ERASURE_RULES } from '../../lib/termination/erasure';
import { newContract } from '../support/contracts';
import type { TestTables } from '../support/local-tables';
import { localDocumentClient } from '../support/use-case';
import { encodeCursor } from '../../lib/termination/read-termination-requests';
import { signToken } from '../../scripts/local/signing-key';
import { validBody } from '../support/bodies';
import type { FaultProxy } from '../support/fault-proxy';
import { startHttpStackWithFaults, type HttpAnswer, type HttpStack, type PostOptions } from '../support/http-stack';
import { at, parsedObject } from '../support/json';
import { documentedResponse, loadDocument, resolved } from '../support/openapi-document';

/*
 * The contract test: real calls to the local stack, every answer checked against
 * docs/openapi.yaml (status documented, body valid against its schema, required headers
 * present, errorCode one of those the document lists for that status).
 */

const anna = DEMO_CUSTOMERS.anna;
const document = loadDocument();
let stack: HttpStack;
let proxy: FaultProxy;
let token: string;
let stop: () => Promise<void>;
let tables: TestTables;

beforeAll(async () => {
  ({ stack, proxy, tables, stop } = await startHttpStackWithFaults());
  token = `Bearer ${signToken(stack.key, { customerId: anna.customerId })}`;
}, 120_000);

afterAll(() => stop());

type Operation = { path: string; method: string };

function breaches(answer: HttpAnswer, operation?: Operation): string[] {
  const documented = documentedResponse(document, answer.status, operation);
  if (!documented) return [`status ${answer.status} is not documented`];
  const problems = documented.validate(JSON.parse(answer.raw)).map((p) => `body: ${p}`);
  for (const [name, { required, validate }] of Object.entries(documented.headers)) {
    const value = answer.headers.get(name);
    if (value === null) {
      if (required) problems.push(`header ${name} missing`);
    } else if (!validate(value)) {
      problems.push(`header ${name}: ${value} does not match its schema`);
    }
  }
  const errorCode = answer.body['errorCode'];
  if (typeof errorCode === 'string' && !documented.exampleCodes.includes(errorCode))
    problems.push(`errorCode ${errorCode} not listed for ${answer.status}`);
  return problems;
}

const key = randomUUID();
const body = validBody();
const calls: [string, number, () => Promise<HttpAnswer>][] = [
  ['created', 201, () => stack.post(anna.contracts.active, { authorization: token, idempotencyKey: key, body })],
  ['replayed', 200, () => stack.post(anna.contracts.active, { authorization: token, idempotencyKey: key, body })],
  ['conflict', 409, () => stack.post(anna.contracts.active, { authorization: token, body })],
  [
    'key reused',
    422,
    () => stack.post(anna.contracts.active, { authorization: token, idempotencyKey: key, body: validBody({ comment: 'other' }) }),
  ],
  ['validation', 400, () => stack.post(anna.contracts.withEndDate, { authorization: token, body: { reasonCode: 'X' } })],
  ['key missing', 400, () => stack.post(anna.contracts.withEndDate, { authorization: token, body, headers: { 'Idempotency-Key': '' } })],
  ['malformed', 400, () => stack.post(anna.contracts.withEndDate, { authorization: token, rawBody: '{"a":' })],
  ['closed contract', 422, () => stack.post(anna.contracts.closed, { authorization: token, body })],
  [
    'after the end date',
    422,
    () => stack.post(anna.contracts.withEndDate, { authorization: token, body: validBody({ desiredTerminationDate: '2046-01-31' }) }),
  ],
  [
    'account key',
    422,
    () =>
      stack.post(anna.contracts.withEndDate, {
        authorization: token,
        body: validBody({ bankDetails: { ...DEMO_BANK_DETAILS, accountNumber: '40817810700000000002' } }),
      }),
  ],
  [
    'comment required',
    422,
    () => stack.post(anna.contracts.withEndDate, { authorization: token, body: validBody({ reasonCode: 'OTHER', comment: ' ' }) }),
  ],
  ["another customer's contract", 403, () => stack.post(DEMO_CUSTOMERS.boris.contracts.active, { authorization: token, body })],
  ['unknown contract', 404, () => stack.post(randomUUID(), { authorization: token, body })],
  ['DynamoDB unreachable', 503, () => failing('refuse', { authorization: token, body })],
  ['DynamoDB answering nonsense', 500, () => failing('garbage', { authorization: token, body })],
];

async function failing(mode: 'refuse' | 'garbage', options: PostOptions): Promise<HttpAnswer> {
  proxy.setMode(mode);
  try {
    return await stack.post(DEMO_CUSTOMERS.anna.contracts.withEndDate, options);
  } finally {
    proxy.setMode('pass');
  }
}

describe('every answer matches docs/openapi.yaml', () => {
  it.each(calls)('%s: %i', async (_name, status, send) => {
    const answer = await send();
    expect(answer.status).toBe(status);
    expect(breaches(answer)).toEqual([]);
  });

  it('documents 401 too (locally serverless offline answers it in its own shape: see docs/local-development.md)', async () => {
    const answer = await stack.post(anna.contracts.active, { body });
    expect(answer.status).toBe(401);
    expect(documentedResponse(document, 401)?.exampleCodes).toEqual(['UNAUTHORIZED']);
  });
});

const COLLECTION = '/api/v1/contracts/{contractId}/termination-requests';
const LIST: Operation = { path: COLLECTION, method: 'get' };
const WITHDRAWAL: Operation = { path: `${COLLECTION}/{requestId}/withdrawal`, method: 'post' };
const REASONS: Operation = { path: '/api/v1/termination-reasons', method: 'get' };
const DETAILS: Operation = { path: `${COLLECTION}/{requestId}/details`, method: 'get' };
const MINE: Operation = { path: '/api/v1/termination-requests', method: 'get' };

/** One call to the stack, any route. */
async function call(method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
  const response = await fetch(`${stack.offline.url}${path}`, {
    method,
    headers: { Authorization: token, ...options.headers },
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const raw = await response.text();
  return { status: response.status, headers: response.headers, raw, body: parsedObject(raw) };
}

/** A parameter's maxLength as the description states it. */
function maxLengthOf(operation: Operation, name: string): number {
  const parameters = [at(document, 'paths', operation.path, operation.method, 'parameters')].flat(2).map((p) => resolved(document, p));
  return Number(
    at(
      parameters.find((p) => at(p, 'name') === name),
      'schema',
      'maxLength',
    ),
  );
}

describe('the bounds and the body rule the description states, as the service holds them', () => {
  it('takes a cursor of maxLength characters and refuses a longer one with 400 VALIDATION_ERROR', async () => {
    const limit = maxLengthOf(LIST, 'cursor');
    const path = `/api/v1/contracts/${anna.contracts.active}/termination-requests`;
    const cursor = encodeCursor(anna.contracts.active, randomUUID());
    expect(cursor).toHaveLength(limit);
    const atLimit = await call('GET', `${path}?cursor=${cursor}`);
    expect(atLimit.status).toBe(200);
    expect(breaches(atLimit, LIST)).toEqual([]);
    const over = await call('GET', `${path}?cursor=${'A'.repeat(limit + 1)}`);
    expect(over.status).toBe(400);
    expect(over.body['details']).toEqual([{ field: 'cursor', reason: `must be at most ${limit} characters` }]);
    expect(breaches(over, LIST)).toEqual([]);
  });

  it.each([
    ['the reasons', REASONS, '/api/v1/termination-reasons'],
    ['a list', LIST, `/api/v1/contracts/${anna.contracts.active}/termination-requests`],
  ])('takes an Accept-Language of maxLength characters on %s and refuses a longer one', async (_name, operation, path) => {
    const limit = maxLengthOf(operation, 'Accept-Language');
    const header = `ru,${'en;q=0.5,'.repeat(limit)}`.slice(0, limit);
    const atLimit = await call('GET', path, { headers: { 'Accept-Language': header } });
    expect(atLimit.status).toBe(200);
    expect(breaches(atLimit, operation)).toEqual([]);
    const over = await call('GET', path, { headers: { 'Accept-Language': `${header}x` } });
    expect(over.status).toBe(400);
    expect(over.body['details']).toEqual([{ field: 'Accept-Language', reason: `не более ${limit} символов` }]);
    expect(breaches(over, operation)).toEqual([]);
  });

  it('refuses a withdrawal with a body, even {}, with 400 MALFORMED_REQUEST, and withdraws without one', async () => {
    const created = await stack.post(anna.contracts.withEndDate, { authorization: token, body });
    expect(created.status).toBe(201);
    const path = `/api/v1/contracts/${anna.contracts.withEndDate}/termination-requests/${String(created.body['requestId'])}/withdrawal`;
    const key = { 'Idempotency-Key': randomUUID() };
    for (const sent of ['{"reason":"x"}', '{}']) {
      const refused = await call('POST', path, { headers: { ...key, 'Content-Type': 'application/json' }, body: sent });
      expect(refused.status, sent).toBe(400);
      expect(refused.body).toMatchObject({
        errorCode: 'MALFORMED_REQUEST',
        details: [{ field: 'body', reason: 'must be empty: this call takes no body' }],
      });
      expect(breaches(refused, WITHDRAWAL)).toEqual([]);
    }
    // The refusals bound nothing: the same key then withdraws.
    const withdrawn = await call('POST', path, { headers: key });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body['status']).toBe('WITHDRAWN');
    expect(breaches(withdrawn, WITHDRAWAL)).toEqual([]);
  });
});

describe("a request's details and the customer's own list, as the description states them", () => {
  it('answer 200 in their documented shape, and each refusal as documented', async () => {
    const made = await stack.post(anna.contracts.withEndDate, { authorization: token, body });
    expect([201, 409]).toContain(made.status);
    const mine = await call('GET', '/api/v1/termination-requests?limit=5');
    expect(mine.status).toBe(200);
    expect(breaches(mine, MINE)).toEqual([]);
    const [first] = [at(mine.body, 'items', 0)];
    const contractId = String(at(first, 'contractId'));
    const requestId = String(at(first, 'request', 'requestId'));
    const details = await call('GET', `/api/v1/contracts/${contractId}/termination-requests/${requestId}/details`);
    expect(details.status).toBe(200);
    expect(breaches(details, DETAILS)).toEqual([]);
    const unknown = await call('GET', `/api/v1/contracts/${contractId}/termination-requests/${randomUUID()}/details`);
    expect(unknown.status).toBe(404);
    expect(breaches(unknown, DETAILS)).toEqual([]);
    const invalid = await call('GET', '/api/v1/termination-requests?limit=0');
    expect(invalid.status).toBe(400);
    expect(breaches(invalid, MINE)).toEqual([]);
  });
});

describe('a create or a withdrawal retried after its request was erased, as the description states it', () => {
  it('answers the 404 the description lists for each, naming the Idempotency-Key', async () => {
    const contractId = await newContract(tables);
    const createKey = randomUUID();
    const made = await stack.post(contractId, { authorization: token, idempotencyKey: createKey, body });
    expect(made.status).toBe(201);
    const withdrawal = `/api/v1/contracts/${contractId}/termination-requests/${String(made.body['requestId'])}/withdrawal`;
    const withdrawalKey = { 'Idempotency-Key': randomUUID() };
    expect((await call('POST', withdrawal, { headers: withdrawalKey })).status).toBe(200);
    // npm run erase -- --customer, as the data-protection officer's operator runs it (tests/integration/erasure.test.ts runs the command itself).
    const ledger = `erasures-${randomUUID().slice(0, 8)}`;
    await createLedgerTable(localClient(tables.endpoint), ledger);
    const data = new CustomerData(localDocumentClient(tables.endpoint), { requests: tables.names.requests, ledger }, ERASURE_RULES);
    const report = await data.erase(anna.customerId, { ledgerDays: 90 });
    expect(report.erased.map((e) => e.requestId)).toContain(made.body['requestId']);

    const create = await stack.post(contractId, { authorization: token, idempotencyKey: createKey, body });
    expect(create.status).toBe(404);
    expect(create.body).toMatchObject({ errorCode: 'TERMINATION_REQUEST_NOT_FOUND', details: [{ field: 'Idempotency-Key' }] });
    expect(breaches(create)).toEqual([]);
    const withdrawn = await call('POST', withdrawal, { headers: withdrawalKey });
    expect(withdrawn.status).toBe(404);
    expect(withdrawn.body['errorCode']).toBe('TERMINATION_REQUEST_NOT_FOUND');
    expect(breaches(withdrawn, WITHDRAWAL)).toEqual([]);
  });
});
