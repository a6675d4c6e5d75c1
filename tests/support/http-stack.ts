import { randomUUID } from 'node:crypto';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { startOffline, type RunningOffline } from '../../scripts/local/offline';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, type SigningKey } from '../../scripts/local/signing-key';
import type { TableNames } from '../../scripts/local/tables';
import { parsedObject } from './json';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { useFreshTables, type TestTables } from './local-tables';
import { freePort } from '../../scripts/local/free-port';

export interface HttpStack {
  offline: RunningOffline;
  /** serverless offline's Lambda API (Invoke), as the operator tools call it. */
  lambdaPort: number;
  key: SigningKey;
  post: (contractId: string, options: PostOptions) => Promise<HttpAnswer>;
  stop: () => Promise<void>;
}

export interface PostOptions {
  authorization?: string;
  idempotencyKey?: string;
  body?: unknown;
  rawBody?: string;
  rawBytes?: Uint8Array;
  headers?: Record<string, string>;
  query?: string;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  raw: string;
  body: Record<string, unknown>;
}

/**
 * The service as clients meet it: fresh bundles, a signing key and its JWKS, and serverless
 * offline in front of the given DynamoDB endpoint and tables.
 */
export async function startHttpStack(options: {
  dynamoDbEndpoint: string;
  tables: TableNames;
  env?: Record<string, string>;
}): Promise<HttpStack> {
  const key = makeSigningKey();
  const jwks = await startJwksServer(key.jwks, 0);
  const lambdaPort = await freePort();
  const offline = await startOffline({
    apiPort: await freePort(),
    lambdaPort,
    env: {
      DYNAMODB_ENDPOINT: options.dynamoDbEndpoint,
      JWKS_URI: jwks.uri,
      DECISION_JWKS_URI: jwks.backOfficeUri,
      JWT_ISSUER: LOCAL_ISSUER,
      JWT_AUDIENCE: LOCAL_AUDIENCE,
      REQUESTS_TABLE_NAME: options.tables.requests,
      CONTRACTS_TABLE_NAME: options.tables.contracts,
      DOCUMENTS_TABLE_NAME: options.tables.documents,
      LOG_LEVEL: 'SILENT',
      ...options.env,
    },
  }).catch(async (error: unknown) => {
    await jwks.stop();
    throw error;
  });
  const post = async (contractId: string, request: PostOptions): Promise<HttpAnswer> => {
    const response = await fetch(
      `${offline.url}/api/v1/contracts/${encodeURIComponent(contractId)}/termination-requests${request.query ?? ''}`,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Idempotency-Key': request.idempotencyKey ?? randomUUID(),
          ...(request.authorization === undefined ? {} : { Authorization: request.authorization }),
          ...request.headers,
        },
        body: request.rawBytes ?? request.rawBody ?? JSON.stringify(request.body ?? {}),
      },
    );
    const raw = await response.text();
    return { status: response.status, headers: response.headers, raw, body: parsedObject(raw) };
  };
  return {
    offline,
    lambdaPort,
    key,
    post,
    stop: async () => {
      await offline.stop();
      await jwks.stop();
    },
  };
}

/**
 * The HTTP stack on this test file's own tables, with DynamoDB behind a fault proxy and short
 * budgets, so that 503 and 500 can be shown over HTTP in seconds. `env` adds to (or overrides)
 * the functions' settings, e.g. ALLOWED_ORIGINS for a page on a port of the test's own.
 */
export async function startHttpStackWithFaults(options: { env?: Record<string, string> } = {}): Promise<{
  stack: HttpStack;
  proxy: FaultProxy;
  tables: TestTables;
  stop: () => Promise<void>;
}> {
  const tables = await useFreshTables();
  const proxy = await startFaultProxy(Number(new URL(tables.endpoint).port));
  const stack = await startHttpStack({
    dynamoDbEndpoint: proxy.endpoint,
    tables: tables.names,
    env: { DYNAMODB_BUDGET_MS: '1500', DYNAMODB_REQUEST_TIMEOUT_MS: '700', ...options.env },
  });
  return {
    stack,
    proxy,
    tables,
    stop: async () => {
      await stack.stop();
      await proxy.stop();
    },
  };
}
