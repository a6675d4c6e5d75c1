import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFunctions } from '../../scripts/build';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { startOffline, type RunningOffline } from '../../scripts/local/offline';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, signToken } from '../../scripts/local/signing-key';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { freePort } from '../support/free-port';
import { useFreshTables } from '../support/local-tables';
import { validBody } from '../support/bodies';
import { jsonObject } from '../support/error-body';

/*
 * The service as clients meet it: serverless offline, the Lambda authorizer verifying real
 * RS256 tokens against a JWKS over HTTP, the handler bundle, DynamoDB Local behind a proxy
 * that can fail on demand.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;
const key = makeSigningKey();
let offline: RunningOffline;
let proxy: FaultProxy;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const tables = await useFreshTables();
  await buildFunctions();
  const jwks = await startJwksServer(key.jwks, 0);
  stops.push(jwks.stop);
  proxy = await startFaultProxy(Number(new URL(tables.endpoint).port));
  stops.push(proxy.stop);
  offline = await startOffline({
    apiPort: await freePort(),
    lambdaPort: await freePort(),
    env: {
      DYNAMODB_ENDPOINT: proxy.endpoint,
      JWKS_URI: jwks.uri,
      JWT_ISSUER: LOCAL_ISSUER,
      JWT_AUDIENCE: LOCAL_AUDIENCE,
      REQUESTS_TABLE_NAME: tables.names.requests,
      CONTRACTS_TABLE_NAME: tables.names.contracts,
      LOG_LEVEL: 'SILENT',
      DYNAMODB_BUDGET_MS: '1500',
      DYNAMODB_REQUEST_TIMEOUT_MS: '700',
    },
  });
  stops.push(offline.stop);
}, 120_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function post(contractId: string, options: { token?: string | null; key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const token = options.token === undefined ? signToken(key, { customerId: anna.customerId }) : options.token;
  const response = await fetch(`${offline.url}/api/v1/contracts/${contractId}/termination-requests`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Idempotency-Key': options.key ?? randomUUID(),
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      ...options.headers,
    },
    body: JSON.stringify(options.body ?? validBody()),
  });
  return { status: response.status, headers: response.headers, body: jsonObject(await response.json()) };
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

  it('403 for another customer\'s contract, 404 for an unknown one, 422 for a closed one', async () => {
    expect((await post(boris.contracts.active)).status).toBe(403);
    expect((await post(randomUUID())).status).toBe(404);
    const closed = await post(anna.contracts.closed);
    expect(closed.status).toBe(422);
    expect(closed.body['errorCode']).toBe('CONTRACT_NOT_ACTIVE');
  });

  it('the customer comes from the token: Boris\'s token creates on Boris\'s contract', async () => {
    const answer = await post(boris.contracts.active, { token: signToken(key, { customerId: boris.customerId }), headers: { 'X-Customer-Id': anna.customerId } });
    expect(answer.status).toBe(201);
  });

  it.each([
    ['no token', null],
    ['a token signed by another key', signToken(makeSigningKey(key.kid), { customerId: anna.customerId })],
    ['an expired token', signToken(key, { customerId: anna.customerId, expiresIn: -60 })],
    ['a token for another audience', signToken(key, { customerId: anna.customerId, audience: 'someone-else' })],
    ['a token from another issuer', signToken(key, { customerId: anna.customerId, issuer: 'https://evil.test' })],
  ])('401 for %s, and nothing is created', async (_name, token) => {
    const contractId = anna.contracts.withEndDate;
    const answer = await post(contractId, { token });
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

  it('500 with a generic body when DynamoDB answers nonsense', async () => {
    proxy.setMode('garbage');
    const answer = await post(boris.contracts.withEndDate, { token: signToken(key, { customerId: boris.customerId }) });
    proxy.setMode('pass');
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ errorCode: 'INTERNAL_ERROR', message: expect.any(String), correlationId: expect.any(String), details: [] });
    expect(JSON.stringify(answer.body)).not.toMatch(/stack|Error:|at /);
  });
});
