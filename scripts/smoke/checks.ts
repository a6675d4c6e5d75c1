import { randomUUID } from 'node:crypto';
import { DEMO_BANK_DETAILS } from '../local/demo-data';

/*
 * The post-deploy smoke check (npm run smoke): what a client does first, against a deployed
 * stage, and what every answer must look like. It creates one real request on the contract it
 * is given, so that contract must be a test contract of the token's customer with no active
 * request (docs/operations.md says how to keep one).
 */

export interface SmokeOptions {
  /** The stage's base URL, e.g. https://abc.execute-api.eu-central-1.amazonaws.com/prod */
  base: string;
  token: string;
  contractId: string;
  /** A date the contract accepts; 30 days ahead unless given. */
  desiredTerminationDate?: string;
  fetch?: typeof fetch;
}

export interface SmokeCheck {
  name: string;
  ok: boolean;
  detail: string;
}

interface Answer {
  status: number;
  headers: Headers;
  raw: string;
  body: Record<string, unknown>;
}

const ERROR_FIELDS = ['errorCode', 'message', 'correlationId', 'details'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parsed(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** A bank account that passes the control-key check with its BIK (the demo data's). */
const SMOKE_BANK_DETAILS = { ...DEMO_BANK_DETAILS, recipientName: 'Smoke Test' };

export async function runSmoke(options: SmokeOptions): Promise<SmokeCheck[]> {
  const send = options.fetch ?? fetch;
  const base = options.base.replace(/\/+$/, '');
  const collection = `${base}/api/v1/contracts/${encodeURIComponent(options.contractId)}/termination-requests`;
  const correlationId = randomUUID();
  const call = async (url: string, init: RequestInit = {}, auth = true): Promise<Answer> => {
    const response = await send(url, {
      ...init,
      headers: {
        'X-Correlation-Id': correlationId,
        ...(auth ? { Authorization: `Bearer ${options.token}` } : {}),
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...Object.fromEntries(new Headers(init.headers)),
      },
      signal: AbortSignal.timeout(15_000),
    });
    const raw = await response.text();
    return { status: response.status, headers: response.headers, raw, body: parsed(raw) };
  };
  const checks: SmokeCheck[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const errorShaped = (answer: Answer) => ERROR_FIELDS.every((field) => field in answer.body);

  const key = randomUUID();
  const body = JSON.stringify({
    reasonCode: 'OTHER',
    comment: 'Post-deploy smoke check: please reject',
    desiredTerminationDate: options.desiredTerminationDate ?? new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
    bankDetails: SMOKE_BANK_DETAILS,
  });
  const post = () => call(collection, { method: 'POST', body, headers: { 'Idempotency-Key': key } });

  const created = await post();
  const requestId = typeof created.body['requestId'] === 'string' ? created.body['requestId'] : undefined;
  const location = created.headers.get('Location');
  check(
    'create: 201 with the request, its Location and our correlation id',
    created.status === 201 && requestId !== undefined && location !== null && created.headers.get('X-Correlation-Id') === correlationId,
    created.status === 409
      ? `409: the contract has an active request (${String(created.body['message'])}); have it closed or use another test contract`
      : `${created.status} ${created.raw.slice(0, 200)}`,
  );
  if (requestId === undefined || location === null) return checks;

  const replay = await post();
  check(
    'replay: the same key answers 200 with the same body',
    replay.status === 200 && replay.raw === created.raw && replay.headers.get('Idempotent-Replayed') === 'true',
    `${replay.status}, body ${replay.raw === created.raw ? 'identical' : 'different'}`,
  );

  const one = await call(new URL(location, `${base}/`).href);
  check('GET the Location: 200 with the request', one.status === 200 && one.body['requestId'] === requestId, `${one.status} ${location}`);

  const list = await call(collection);
  const items = list.body['items'];
  check(
    'list: 200 holding the request',
    list.status === 200 && Array.isArray(items) && items.some((item) => isObject(item) && item['requestId'] === requestId),
    `${list.status}, ${Array.isArray(items) ? items.length : 0} items`,
  );

  const anonymous = await call(collection, {}, false);
  check(
    'no token: 401 in the error shape',
    anonymous.status === 401 && anonymous.body['errorCode'] === 'UNAUTHORIZED' && errorShaped(anonymous),
    `${anonymous.status} ${anonymous.raw.slice(0, 120)}`,
  );

  const nowhere = await call(`${base}/api/v1/no-such-route`);
  check(
    'unknown route: 404 in the error shape',
    nowhere.status === 404 && errorShaped(nowhere),
    `${nowhere.status} ${nowhere.raw.slice(0, 120)}`,
  );
  return checks;
}
