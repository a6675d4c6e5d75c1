import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import cors from '../../resources/cors.json' with { type: 'json' };
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { gatewayAnswer, renderParameter, renderTemplate, startLocalGateway, type LocalGateway } from '../../scripts/local/gateway';
import { LOCAL_ALLOWED_ORIGINS } from '../../scripts/local/service-env';
import { signToken } from '../../scripts/local/signing-key';
import { SECURITY_HEADERS } from '../../lib/http/answers';
import { MAX_BODY_BYTES } from '../../lib/http/request';
import { textsFor } from '../../lib/http/texts';
import { validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { startHttpStackWithFaults, type HttpStack } from '../support/http-stack';
import { parsedObject } from '../support/json';
import { documentsOf, largestValidBody } from '../support/largest-body';
import type { TestTables } from '../support/local-tables';

/*
 * The gateway's own answers over HTTP, through the local gateway in front of serverless offline,
 * rendered from resources/api.yml as API Gateway renders them, and
 * the largest valid body through the whole stack.
 */

const en = textsFor('en');
let stack: HttpStack;
let tables: TestTables;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tables, stop } = await startHttpStackWithFaults());
}, 120_000);

afterAll(() => stop());

const route = (contractId: string) => `${stack.offline.url}/api/v1/contracts/${contractId}/termination-requests`;
const bearer = () => `Bearer ${signToken(stack.key, { customerId: DEMO_CUSTOMERS.anna.customerId })}`;

/** What every answer the gateway makes itself carries. */
function expectGatewayAnswer(answer: Response, body: Record<string, unknown>): void {
  expect(Object.keys(body)).toEqual(['errorCode', 'message', 'correlationId', 'details']);
  // One id: the header is always there and says what the body says.
  expect(body['correlationId']).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
  expect(answer.headers.get('x-correlation-id')).toBe(body['correlationId']);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(answer.headers.get(name)).toBe(value);
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  expect(answer.headers.get('access-control-expose-headers')).toBe(cors.exposeHeaders.join(', '));
  expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
}

describe("the gateway's own answers", () => {
  it('answers a refused token with one correlation id in header and body, readable from every allowed origin', async () => {
    for (const origin of LOCAL_ALLOWED_ORIGINS) {
      const sent = randomUUID();
      const answer = await fetch(route(randomUUID()), { headers: { Origin: origin, 'X-Correlation-Id': sent, 'Accept-Language': 'ru' } });
      expect(answer.status).toBe(401);
      const body = parsedObject(await answer.text());
      expectGatewayAnswer(answer, body);
      // The gateway cannot take the client's id (nor its language): its own request id, in English.
      expect(body['correlationId']).not.toBe(sent);
      expect(body).toMatchObject({ errorCode: 'UNAUTHORIZED', message: 'Authorization is required.' });
    }
  });

  it('has a correlation id even when the client sent none, on an unknown route too', async () => {
    const answer = await fetch(`${stack.offline.url}/api/v1/contracts`, { headers: { Authorization: bearer() } });
    expect(answer.status).toBe(404);
    const body = parsedObject(await answer.text());
    expectGatewayAnswer(answer, body);
    expect(body['errorCode']).toBe('ROUTE_NOT_FOUND');
  });

  it('answers a body too large for the gateway with 413 REQUEST_TOO_LARGE in the error shape, not DEFAULT_4XX', async () => {
    const contractId = await newContract(tables);
    const answer = await fetch(route(contractId), {
      method: 'POST',
      headers: { Authorization: bearer(), 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      // Over API Gateway's 10 MB, which serverless offline keeps too.
      body: JSON.stringify({ comment: 'x'.repeat(10 * 1024 * 1024) }),
    });
    expect(answer.status).toBe(413);
    const body = parsedObject(await answer.text());
    expectGatewayAnswer(answer, body);
    expect(body).toMatchObject({
      errorCode: 'REQUEST_TOO_LARGE',
      details: [{ field: 'body', reason: en.problem({ field: 'body', code: 'tooLarge', limit: MAX_BODY_BYTES }) }],
    });
  });

  it('hands a body sent without Content-Type to the function as API Gateway does: 400 MALFORMED_REQUEST, nothing created', async () => {
    const contractId = await newContract(tables);
    // A byte body: fetch names no Content-Type for it.
    const answer = await fetch(route(contractId), {
      method: 'POST',
      headers: { Authorization: bearer(), 'Idempotency-Key': randomUUID() },
      body: new TextEncoder().encode(JSON.stringify(validBody())),
    });
    expect(answer.status).toBe(400);
    expect(parsedObject(await answer.text())).toMatchObject({ errorCode: 'MALFORMED_REQUEST', details: [{ field: 'Content-Type' }] });
    expect(await tables.contractItems(contractId)).toHaveLength(0);
  });

  it('leaves a body over 16 KiB to the function: 400 MALFORMED_REQUEST with its correlation id in header and body', async () => {
    const contractId = await newContract(tables);
    const answer = await fetch(route(contractId), {
      method: 'POST',
      headers: { Authorization: bearer(), 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ comment: 'x'.repeat(MAX_BODY_BYTES) }),
    });
    expect(answer.status).toBe(400);
    const body = parsedObject(await answer.text());
    expect(body).toMatchObject({ errorCode: 'MALFORMED_REQUEST', details: [{ field: 'body' }] });
    expect(answer.headers.get('x-correlation-id')).toBe(body['correlationId']);
  });
});

describe('the largest valid body', () => {
  it('is created: about 15.6 KB of escaped text passes every limit in front of the function and the function', async () => {
    const contractId = await newContract(tables);
    const documents = documentsOf(DEMO_CUSTOMERS.anna.customerId);
    await tables.addDocuments(documents);
    const body = largestValidBody(documents.map((document) => document.documentId));
    expect(Buffer.byteLength(body)).toBeGreaterThan(15_000);
    const answer = await fetch(route(contractId), {
      method: 'POST',
      headers: { Authorization: bearer(), 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body,
    });
    expect(answer.status).toBe(201);
  });
});

describe('the local gateway renders what API Gateway renders, and nothing more', () => {
  let upstream: Server;
  let gateway: LocalGateway;
  let status = 429;

  beforeAll(async () => {
    // A stand-in for serverless offline answering with a status of its own, as offline does (no correlation id).
    upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(status, { 'Content-Type': 'application/json' }).end('{"message":"offline\'s own"}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    const port = address !== null && typeof address === 'object' ? address.port : 0;
    gateway = await startLocalGateway({ port: 0, host: '127.0.0.1', upstream: `http://127.0.0.1:${port}`, allowedOrigins: [] });
  });

  afterAll(async () => {
    await gateway.stop();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const call = () => fetch(`${gateway.url}/api/v1/termination-reasons`, { headers: { Authorization: 'Bearer x' } });

  it('answers throttling with 429 THROTTLED and Retry-After', async () => {
    status = 429;
    const answer = await call();
    expect(answer.status).toBe(429);
    const body = parsedObject(await answer.text());
    expectGatewayAnswer(answer, body);
    expect(body['errorCode']).toBe('THROTTLED');
    expect(answer.headers.get('retry-after')).toBe('1');
  });

  it('answers a 4xx without a template of its own through DEFAULT_4XX, naming its type', async () => {
    status = 415;
    const answer = await call();
    expect(answer.status).toBe(415);
    const body = parsedObject(await answer.text());
    expectGatewayAnswer(answer, body);
    expect(body).toMatchObject({ errorCode: 'DEFAULT_4XX', message: 'Unsupported Media Type' });
  });

  it('answers an integration it cannot reach with 503 SERVICE_UNAVAILABLE and Retry-After', async () => {
    const unreachable = await startLocalGateway({ port: 0, host: '127.0.0.1', upstream: 'http://127.0.0.1:9', allowedOrigins: [] });
    try {
      const answer = await fetch(`${unreachable.url}/api/v1/termination-reasons`);
      expect(answer.status).toBe(503);
      const body = parsedObject(await answer.text());
      expectGatewayAnswer(answer, body);
      expect(body).toMatchObject({ errorCode: 'SERVICE_UNAVAILABLE', message: en.error('SERVICE_UNAVAILABLE', {}) });
      expect(answer.headers.get('retry-after')).toBe('1');
    } finally {
      await unreachable.stop();
    }
  });

  it('fails loudly on what a gateway response cannot do: VTL, the request, unknown variables', () => {
    const context = { requestId: 'req-1', responseType: 'UNAUTHORIZED', messageString: '"m"' };
    expect(renderTemplate('T', '{"id":"$context.requestId","m":$context.error.messageString}', context)).toBe('{"id":"req-1","m":"m"}');
    expect(() => renderTemplate('T', '#if($x)a#end', context)).toThrow(/VTL directive #if/);
    expect(() => renderTemplate('T', '"$input.params(\'X-Correlation-Id\')"', context)).toThrow(/\$input\.params\(/);
    expect(() => renderTemplate('T', '"$context.identity.sourceIp"', context)).toThrow(/\$context\.identity\.sourceIp/);
    expect(() => renderTemplate('T', '"${context.requestId}"', context)).toThrow(/reference \$\{context/);
    expect(() => renderTemplate('T', '"$!context.requestId"', context)).toThrow(/reference \$!context/);
    expect(renderParameter('T', "'nosniff'", context)).toBe('nosniff');
    expect(renderParameter('T', 'context.requestId', context)).toBe('req-1');
    expect(() => renderParameter('T', 'method.request.header.X-Correlation-Id', context)).toThrow(/header mapping/);
    // Every deployed template renders.
    for (const type of ['UNAUTHORIZED', 'REQUEST_TOO_LARGE', 'INTEGRATION_TIMEOUT', 'WAF_FILTERED', 'DEFAULT_4XX', 'DEFAULT_5XX'])
      expect(() => gatewayAnswer(type, type === 'DEFAULT_5XX' ? 502 : 400)).not.toThrow();
  });
});

describe('a valid token is never answered 401 when the local authorizer fails or times out', () => {
  let hanging: Server;
  let refusedStack: { stack: HttpStack; stop: () => Promise<void> };
  let hangingStack: { stack: HttpStack; stop: () => Promise<void> };

  beforeAll(async () => {
    // Two stacks whose authorizer cannot check a token: its JWKS refuses connections (the authorizer
    // fails at once), or accepts them and never answers (the key fetch times out inside the authorizer).
    hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const address = hanging.address();
    const port = address !== null && typeof address === 'object' ? address.port : 0;
    refusedStack = await startHttpStackWithFaults({ env: { JWKS_URI: 'http://127.0.0.1:9/.well-known/jwks.json' } });
    hangingStack = await startHttpStackWithFaults({ env: { JWKS_URI: `http://127.0.0.1:${port}/.well-known/jwks.json` } });
  }, 180_000);

  afterAll(async () => {
    await refusedStack.stop();
    await hangingStack.stop();
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it.each([
    ['fails', () => refusedStack.stack],
    ['times out', () => hangingStack.stack],
  ])(
    'answers as API Gateway answers AUTHORIZER_FAILURE when the authorizer %s: 503 SERVICE_UNAVAILABLE, Retry-After, retried by clients',
    async (_, stackOf) => {
      const stack = stackOf();
      const token = signToken(stack.key, { customerId: DEMO_CUSTOMERS.anna.customerId });
      const answer = await fetch(`${stack.offline.url}/api/v1/termination-reasons`, { headers: { Authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(503);
      const body = parsedObject(await answer.text());
      expectGatewayAnswer(answer, body);
      expect(body).toMatchObject({ errorCode: 'SERVICE_UNAVAILABLE', message: en.error('SERVICE_UNAVAILABLE', {}) });
      expect(answer.headers.get('retry-after')).toBe('1');
    },
    60_000,
  );

  it('still answers 401 to a token the authorizer refuses, with the same authorizer', async () => {
    const answer = await fetch(`${refusedStack.stack.offline.url}/api/v1/termination-reasons`, {
      headers: { Authorization: 'Bearer not-a-jwt' },
    });
    expect(answer.status).toBe(401);
    expect(parsedObject(await answer.text())).toMatchObject({ errorCode: 'UNAUTHORIZED' });
  }, 60_000);
});
