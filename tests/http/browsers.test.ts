import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { LOCAL_ALLOWED_ORIGINS } from '../../scripts/local/service-env';
import { signToken } from '../../scripts/local/signing-key';
import { validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { startHttpStackWithFaults, type HttpStack } from '../support/http-stack';
import { parsedObject } from '../support/json';
import type { TestTables } from '../support/local-tables';

/*
 * What a browser on another origin meets, over HTTP through the local gateway in front of
 * serverless offline: preflights and CORS headers for the allowed origins only, and the
 * gateway's own answers in the error body's shape.
 */

const allowed = LOCAL_ALLOWED_ORIGINS[0] ?? '';
const stranger = 'https://evil.example';
let stack: HttpStack;
let tables: TestTables;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tables, stop } = await startHttpStackWithFaults());
}, 120_000);

afterAll(() => stop());

const route = (contractId: string) => `${stack.offline.url}/api/v1/contracts/${contractId}/termination-requests`;
const bearer = () => `Bearer ${signToken(stack.key, { customerId: DEMO_CUSTOMERS.anna.customerId })}`;

function preflight(url: string, origin: string, method = 'POST'): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key',
    },
  });
}

describe('preflight', () => {
  it('grants an allowed origin the methods of the route and the headers the API reads', async () => {
    const answer = await preflight(route(randomUUID()), allowed);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(answer.headers.get('access-control-allow-methods')).toBe('OPTIONS,GET,POST');
    expect(answer.headers.get('access-control-allow-headers')).toBe(
      'Authorization,Content-Type,Idempotency-Key,X-Correlation-Id,Accept-Language',
    );
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    const one = await preflight(`${route(randomUUID())}/${randomUUID()}`, allowed, 'GET');
    expect(one.headers.get('access-control-allow-methods')).toBe('OPTIONS,GET');
  });

  it('grants nothing to an origin not on the list', async () => {
    const answer = await preflight(route(randomUUID()), stranger);
    expect(answer.headers.get('access-control-allow-origin')).not.toBe(stranger);
  });
});

describe('answers', () => {
  it("lets an allowed origin read a 201 and the headers a client needs; a stranger's browser gets no grant", async () => {
    const contractId = await newContract(tables);
    const headers = { Authorization: bearer(), 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() };
    const created = await fetch(route(contractId), {
      method: 'POST',
      headers: { ...headers, Origin: allowed },
      body: JSON.stringify(validBody()),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(created.headers.get('access-control-expose-headers')).toBe('Location, X-Correlation-Id, Idempotent-Replayed, Retry-After');
    expect(created.headers.get('vary')).toContain('Origin');
    const fromStranger = await fetch(route(contractId), { headers: { Authorization: bearer(), Origin: stranger } });
    expect(fromStranger.status).toBe(200);
    expect(fromStranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("answers a missing token as deployed: 401 in the error body's shape, Bearer asked, the gateway's one correlation id, readable by the page", async () => {
    const answer = await fetch(route(randomUUID()), { headers: { Origin: allowed, 'X-Correlation-Id': randomUUID() } });
    expect(answer.status).toBe(401);
    const body = parsedObject(await answer.text());
    expect(body).toMatchObject({
      errorCode: 'UNAUTHORIZED',
      message: 'Authorization is required.',
      details: [{ field: 'Authorization', reason: 'a valid bearer token is required' }],
    });
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    // API Gateway's request id in both: a gateway response cannot take the client's (0011-error-body.md).
    expect(answer.headers.get('x-correlation-id')).toBe(body['correlationId']);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers an unknown route with 404 ROUTE_NOT_FOUND, not 403', async () => {
    const answer = await fetch(`${stack.offline.url}/api/v1/contracts`, { headers: { Authorization: bearer() } });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ errorCode: 'ROUTE_NOT_FOUND' });
    const wrongMethod = await fetch(`${route(randomUUID())}/${randomUUID()}`, { method: 'DELETE', headers: { Authorization: bearer() } });
    expect(wrongMethod.status).toBe(404);
  });
});
