import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { makeSigningKey, signToken, type SigningKey } from '../../scripts/local/signing-key';
import { bodyWithBytesInName, validBody } from '../support/bodies';
import type { FaultProxy } from '../support/fault-proxy';
import { newContract } from '../support/contracts';
import { startHttpStackWithFaults, type HttpAnswer, type HttpStack } from '../support/http-stack';
import type { TestTables } from '../support/local-tables';

/*
 * The service as clients meet it: serverless offline, the Lambda authorizer verifying real
 * RS256 tokens against a JWKS over HTTP, the handler bundle, DynamoDB Local behind a proxy
 * that can fail on demand.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;
let stack: HttpStack;
let key: SigningKey;
let proxy: FaultProxy;
let tables: TestTables;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, proxy, tables, stop } = await startHttpStackWithFaults());
  key = stack.key;
}, 120_000);

afterAll(() => stop());

async function post(
  contractId: string,
  options: { token?: string | null; key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const token = options.token === undefined ? signToken(key, { customerId: anna.customerId }) : options.token;
  return stack.post(contractId, {
    authorization: token === null ? undefined : `Bearer ${token}`,
    idempotencyKey: options.key,
    body: options.body ?? validBody(),
    headers: options.headers,
  });
}

describe('over HTTP with real tokens', () => {
  it('201 then 200 with the same requestId for the same key', async () => {
    const idempotencyKey = randomUUID();
    const body = validBody();
    const first = await post(anna.contracts.active, { key: idempotencyKey, body });
    const again = await post(anna.contracts.active, { key: idempotencyKey, body });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toContain(String(first.body['requestId']));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it("the 201's Location answers GET with the request, and the contract's list names it", async () => {
    const contractId = await newContract(tables, { customerId: boris.customerId });
    const asBoris = `Bearer ${signToken(key, { customerId: boris.customerId })}`;
    const created = await post(contractId, { token: signToken(key, { customerId: boris.customerId }) });
    expect(created.status).toBe(201);
    const location = String(created.headers.get('location'));
    expect(location).toBe(`/api/v1/contracts/${contractId}/termination-requests/${String(created.body['requestId'])}`);
    const read = await fetch(`${stack.offline.url}${location}`, { headers: { Authorization: asBoris } });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(created.body);
    const listed = await fetch(`${stack.offline.url}/api/v1/contracts/${contractId}/termination-requests`, {
      headers: { Authorization: asBoris },
    });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ items: [created.body] });
    const asAnna = await fetch(`${stack.offline.url}${location}`, {
      headers: { Authorization: `Bearer ${signToken(key, { customerId: anna.customerId })}` },
    });
    expect(asAnna.status).toBe(403);
  });

  it('409 for a second request on the same contract', async () => {
    const answer = await post(anna.contracts.active);
    expect(answer.status).toBe(409);
    expect(answer.body['errorCode']).toBe('ACTIVE_REQUEST_ALREADY_EXISTS');
  });

  it('400 with the client correlation id echoed', async () => {
    const correlationId = randomUUID();
    const answer = await post(anna.contracts.withEndDate, { body: { reasonCode: 'NOPE' }, headers: { 'X-Correlation-Id': correlationId } });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errorCode: 'VALIDATION_ERROR', correlationId });
    expect(answer.headers.get('x-correlation-id')).toBe(correlationId);
  });

  it('400 MALFORMED_REQUEST for a name sent with the bytes FF FE, which are no UTF-8', async () => {
    const answer = await stack.post(anna.contracts.withEndDate, {
      authorization: `Bearer ${signToken(key, { customerId: anna.customerId })}`,
      rawBytes: bodyWithBytesInName([0xff, 0xfe]),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errorCode: 'MALFORMED_REQUEST', details: [{ field: 'body' }] });
  });

  it("403 for another customer's contract, 404 for an unknown one, 422 for a closed one", async () => {
    expect((await post(boris.contracts.active)).status).toBe(403);
    expect((await post(randomUUID())).status).toBe(404);
    const closed = await post(anna.contracts.closed);
    expect(closed.status).toBe(422);
    expect(closed.body['errorCode']).toBe('CONTRACT_NOT_ACTIVE');
  });

  it("the customer comes from the token: Boris's token creates on Boris's contract", async () => {
    const answer = await post(boris.contracts.active, {
      token: signToken(key, { customerId: boris.customerId }),
      headers: { 'X-Customer-Id': anna.customerId },
    });
    expect(answer.status).toBe(201);
  });

  it.each([
    ['no token', null],
    ['a token signed by another key', () => signToken(makeSigningKey(key.kid), { customerId: anna.customerId })],
    ['an expired token', () => signToken(key, { customerId: anna.customerId, expiresIn: -60 })],
    ['a token for another audience', () => signToken(key, { customerId: anna.customerId, audience: 'someone-else' })],
    ['a token from another issuer', () => signToken(key, { customerId: anna.customerId, issuer: 'https://evil.test' })],
  ])('401 for %s, and nothing is created', async (_name, token) => {
    const contractId = anna.contracts.withEndDate;
    const answer = await post(contractId, { token: typeof token === 'function' ? token() : token });
    expect(answer.status).toBe(401);
    expect(JSON.stringify(answer.body)).not.toContain('requestId');
  });

  it('503 with Retry-After while DynamoDB is unreachable, then 201 on retry with the same key', async () => {
    const idempotencyKey = randomUUID();
    const body = validBody({ desiredTerminationDate: '2045-01-31' });
    proxy.setMode('refuse');
    const down = await post(anna.contracts.withEndDate, { key: idempotencyKey, body });
    proxy.setMode('pass');
    expect(down.status).toBe(503);
    expect(down.body['errorCode']).toBe('SERVICE_UNAVAILABLE');
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    const back = await post(anna.contracts.withEndDate, { key: idempotencyKey, body });
    expect(back.status).toBe(201);
  });

  it('503 within the time budget when DynamoDB accepts connections and never answers', async () => {
    proxy.setMode('hang');
    const started = Date.now();
    const answer = await post(boris.contracts.withEndDate, { token: signToken(key, { customerId: boris.customerId }) });
    proxy.setMode('pass');
    expect(answer.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reads, too, answer 503 with Retry-After within the time budget when DynamoDB never answers', async () => {
    const authorization = `Bearer ${signToken(key, { customerId: anna.customerId })}`;
    const url = `${stack.offline.url}/api/v1/contracts/${anna.contracts.closed}/termination-requests`;
    proxy.setMode('hang');
    const started = Date.now();
    const answers = await Promise.all([
      fetch(url, { headers: { Authorization: authorization } }),
      fetch(`${url}/${randomUUID()}`, { headers: { Authorization: authorization } }),
    ]).finally(() => proxy.setMode('pass'));
    expect(answers.map((a) => a.status)).toEqual([503, 503]);
    expect(answers.map((a) => a.headers.get('retry-after'))).toEqual(['1', '1']);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('500 with a generic body when DynamoDB answers nonsense', async () => {
    proxy.setMode('garbage');
    const answer = await post(boris.contracts.withEndDate, { token: signToken(key, { customerId: boris.customerId }) });
    proxy.setMode('pass');
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({
      errorCode: 'INTERNAL_ERROR',
      message: expect.any(String),
      correlationId: expect.any(String),
      details: [],
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/stack|Error:|at /);
  });
});
