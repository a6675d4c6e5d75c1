import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { signToken } from '../../scripts/local/signing-key';
import { validBody } from '../support/bodies';
import type { FaultProxy } from '../support/fault-proxy';
import { startHttpStackWithFaults, type HttpAnswer, type HttpStack, type PostOptions } from '../support/http-stack';
import { documentedResponse, loadDocument } from '../support/openapi-document';

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

beforeAll(async () => {
  ({ stack, proxy, stop } = await startHttpStackWithFaults());
  token = `Bearer ${signToken(stack.key, { customerId: anna.customerId })}`;
}, 120_000);

afterAll(() => stop());

function breaches(answer: HttpAnswer): string[] {
  const documented = documentedResponse(document, answer.status);
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
