import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTerminationClient, type ClientOptions, type TerminationRequestInput } from '../../client';
import { REASON_CODES } from '../../lib/api-model/schemas';
import { freePort } from '../../scripts/local/free-port';
import { signToken } from '../../scripts/local/signing-key';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { newContract } from '../support/contracts';
import type { FaultProxy } from '../support/fault-proxy';
import { startHttpStackWithFaults, type HttpStack } from '../support/http-stack';
import { ofKind, type TestTables } from '../support/local-tables';
import { startLossyProxy, type LossyProxy } from '../support/lossy-proxy';

/*
 * The client's retry rules against the local stack over real HTTP, with real faults: answers
 * lost after the write committed (a proxy that cuts the connection), DynamoDB unreachable
 * behind the service (503 with Retry-After), refusals that must not be retried.
 */

const anna = DEMO_CUSTOMERS.anna;
let stack: HttpStack;
let dynamo: FaultProxy;
let tables: TestTables;
let lossy: LossyProxy;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, proxy: dynamo, tables, stop } = await startHttpStackWithFaults());
  lossy = await startLossyProxy(stack.offline.url);
}, 120_000);

afterAll(async () => {
  await lossy.stop();
  await stop();
});

/** A client through the lossy proxy, whose waits are recorded (and run at once, unless told). */
function client(options: Partial<ClientOptions> = {}) {
  const waits: number[] = [];
  const api = createTerminationClient({
    baseUrl: lossy.url,
    token: () => signToken(stack.key, { customerId: anna.customerId }),
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  return { api, waits };
}

/** A valid create body, as the client's types have it. */
function validBody(overrides: Partial<TerminationRequestInput> = {}): TerminationRequestInput {
  return { reasonCode: 'RELOCATION', desiredTerminationDate: '2045-06-30', bankDetails: { ...DEMO_BANK_DETAILS }, ...overrides };
}

async function requestsOf(contractId: string): Promise<Record<string, unknown>[]> {
  return ofKind(await tables.contractItems(contractId), 'REQUEST');
}

describe('the client over HTTP', () => {
  it('reports one success when the answer of a committed create was lost, and the table holds one request', async () => {
    const contractId = await newContract(tables);
    const before = lossy.forwarded('POST');
    lossy.loseAnswers(1);
    const { api, waits } = client();
    const result = await api.createTerminationRequest(contractId, validBody());
    expect(result).toMatchObject({ ok: true, status: 200, attempts: 2, replayed: true });
    expect(lossy.forwarded('POST') - before).toBe(2);
    expect(waits).toHaveLength(1);
    const requests = await requestsOf(contractId);
    expect(requests).toHaveLength(1);
    expect(result.ok && result.value.requestId).toBe(requests[0]?.['requestId']);
  });

  it('waits out a 503 for at least its Retry-After, then succeeds with the same key', async () => {
    const contractId = await newContract(tables);
    dynamo.setMode('refuse');
    const { api, waits } = client({
      sleep: async (ms) => {
        waits.push(ms);
        dynamo.setMode('pass');
      },
    });
    const result = await api.createTerminationRequest(contractId, validBody());
    expect(result).toMatchObject({ ok: true, status: 201, attempts: 2 });
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(await requestsOf(contractId)).toHaveLength(1);
  });

  it('gives up on 503 at the deadline and reports the refusal, Retry-After and all', async () => {
    const contractId = await newContract(tables);
    dynamo.setMode('refuse');
    const { api } = client({ retry: { attempts: 3 } });
    const result = await api.createTerminationRequest(contractId, validBody()).finally(() => dynamo.setMode('pass'));
    expect(result).toMatchObject({ ok: false, reason: 'refused', status: 503, attempts: 3, error: { errorCode: 'SERVICE_UNAVAILABLE' } });
  });

  it.each([
    ['400 VALIDATION_ERROR', { bankDetails: { bik: '123', accountNumber: '40817810700000000001', recipientName: 'Anna' } }, 400],
    ['422 COMMENT_REQUIRED', { reasonCode: 'OTHER', comment: '' }, 422],
  ] satisfies [string, Partial<TerminationRequestInput>, number][])('never retries %s', async (_name, overrides, status) => {
    const contractId = await newContract(tables);
    const before = lossy.forwarded('POST');
    const { api, waits } = client();
    const result = await api.createTerminationRequest(contractId, validBody(overrides));
    expect(result).toMatchObject({ ok: false, reason: 'refused', status, attempts: 1 });
    expect(lossy.forwarded('POST') - before).toBe(1);
    expect(waits).toEqual([]);
  });

  it('never retries 422 REQUEST_LIMIT_REACHED, and hands the caller the time a new request is possible', async () => {
    const contractId = await newContract(tables);
    const { api, waits } = client();
    for (let i = 0; i < 5; i++) {
      const made = await api.createTerminationRequest(contractId, validBody());
      if (!made.ok) throw new Error(`request ${i + 1} was refused`);
      expect((await api.withdrawTerminationRequest(contractId, made.value.requestId)).ok).toBe(true);
    }
    const before = lossy.forwarded('POST');
    const result = await api.createTerminationRequest(contractId, validBody());
    expect(result).toMatchObject({ ok: false, reason: 'refused', status: 422, attempts: 1, error: { errorCode: 'REQUEST_LIMIT_REACHED' } });
    expect(lossy.forwarded('POST') - before).toBe(1);
    expect(waits).toEqual([]);
    // Typed: the client's CreateError names the field, a time about thirty days ahead.
    const allowedAt = !result.ok && result.reason === 'refused' ? result.error.nextRequestAllowedAt : undefined;
    expect(Date.parse(allowedAt ?? '') - Date.now()).toBeGreaterThan(29 * 86_400_000);
  });

  it('never retries a 409: a second action on the contract is refused once, naming the first request', async () => {
    const contractId = await newContract(tables);
    const { api } = client();
    const first = await api.createTerminationRequest(contractId, validBody());
    const second = await api.createTerminationRequest(contractId, validBody());
    expect(second).toMatchObject({ ok: false, status: 409, attempts: 1, error: { errorCode: 'ACTIVE_REQUEST_ALREADY_EXISTS' } });
    expect(first.ok && !second.ok && second.reason === 'refused' && second.error.message).toContain(
      first.ok ? first.value.requestNumber : '?',
    );
  });

  it('reads back what it created: the request and the list', async () => {
    const contractId = await newContract(tables);
    const { api } = client({ language: 'ru' });
    const created = await api.createTerminationRequest(contractId, validBody());
    if (!created.ok) throw new Error('create failed');
    expect(created.location).toContain(created.value.requestId);
    await expect(api.getTerminationRequest(contractId, created.value.requestId)).resolves.toMatchObject({
      ok: true,
      value: { requestId: created.value.requestId, message: expect.stringMatching(/принята/) },
    });
    await expect(api.listTerminationRequests(contractId)).resolves.toMatchObject({
      ok: true,
      value: { items: [{ requestId: created.value.requestId }] },
    });
  });

  it('withdraws over HTTP through the gateway: one success when the answer was lost, then 409 for another action', async () => {
    const contractId = await newContract(tables);
    const { api } = client();
    const created = await api.createTerminationRequest(contractId, validBody());
    if (!created.ok) throw new Error('create failed');
    lossy.loseAnswers(1);
    const withdrawn = await api.withdrawTerminationRequest(contractId, created.value.requestId);
    expect(withdrawn).toMatchObject({ ok: true, status: 200, attempts: 2, replayed: true, value: { status: 'WITHDRAWN' } });
    const again = await api.withdrawTerminationRequest(contractId, created.value.requestId);
    expect(again).toMatchObject({ ok: false, reason: 'refused', status: 409, error: { errorCode: 'REQUEST_NOT_WITHDRAWABLE' } });
    await expect(api.getTerminationRequest(contractId, created.value.requestId)).resolves.toMatchObject({ value: { status: 'WITHDRAWN' } });
  });

  it('reads the reasons dictionary over HTTP, in the language asked', async () => {
    const { api } = client({ language: 'ru' });
    const reasons = await api.listTerminationReasons();
    expect(reasons).toMatchObject({ ok: true, status: 200 });
    // The very list the create's validator takes, in its order.
    expect(reasons.ok && reasons.value.items.map((r) => r.reasonCode)).toEqual([...REASON_CODES]);
    expect(reasons.ok && reasons.value.items[0]?.label).toBe('Переезд');
  });

  it('reports a service it cannot reach as unreachable after its attempts', async () => {
    const api = createTerminationClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      token: () => 'x',
      sleep: async () => undefined,
      retry: { attempts: 3 },
    });
    await expect(api.listTerminationRequests(anna.contracts.active)).resolves.toMatchObject({
      ok: false,
      reason: 'unreachable',
      attempts: 3,
    });
  });
});
