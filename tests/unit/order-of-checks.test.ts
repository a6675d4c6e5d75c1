import { LOCAL_ACCOUNT_ID } from '../../scripts/local/template-patterns';
import { directContext } from '../support/call-context';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyStatusDecision, type DecisionDeps } from '../../lib/termination/apply-status-decision';
import {
  createTerminationRequest,
  type CreateCall,
  type CreateDeps,
  type CreateOutcome,
} from '../../lib/termination/create-termination-request';
import { getTerminationRequest, listTerminationRequests, type ReadOutcome } from '../../lib/termination/read-termination-requests';
import { withdrawTerminationRequest, type WithdrawCall, type WithdrawOutcome } from '../../lib/termination/withdraw-termination-request';
import { decisionEvent, DECISION_DETAIL_TYPE, LOCAL_DECISION_SOURCE } from '../../scripts/local/decision-event';
import { bankDetails, validBody } from '../support/bodies';
import { signatureCheckWith } from '../support/decision-signatures';
import { InMemoryStore } from '../support/in-memory-store';

/*
 * The order of checks (docs/decisions/0013-order-of-checks.md, 0015-reading-requests.md,
 * 0017-lifecycle.md) of each use case, with the store port kept in memory: when a
 * call breaks several rules, the one the record puts first answers, and the store is asked only
 * what that step needs. No Java, no DynamoDB: part of npm run test:unit.
 */

const ANNA = 'customer-anna';
const BORIS = 'customer-boris';
const NOW = new Date('2026-11-24T09:00:00Z');
const LIMIT = { count: 3, periodDays: 30 };

function storeWith(...contracts: { customerId?: string; status?: string; endDate?: string }[]): { store: InMemoryStore; ids: string[] } {
  const store = new InMemoryStore();
  const ids = contracts.map((fields) => {
    const contractId = randomUUID();
    store.addContract({ contractId, customerId: ANNA, status: 'ACTIVE', ...fields });
    return contractId;
  });
  return { store, ids };
}

const createDeps = (store: InMemoryStore, now = NOW): CreateDeps => ({
  store,
  businessTimeZone: 'Europe/Moscow',
  // Keys live three days here, so that a key can outlive its request's date (IDEMPOTENCY_TTL_HOURS allows up to 30 days).
  idempotencyTtlSeconds: 72 * 3600,
  requestLimit: LIMIT,
  budgetMs: 1000,
  now: () => now,
});

const call = (contractId: string, overrides: Partial<CreateCall> = {}): CreateCall => ({
  customerId: ANNA,
  contractId,
  idempotencyKey: randomUUID(),
  body: validBody(),
  context: directContext(),
  ...overrides,
});

/** The answer's code: the refusal's, else the outcome's kind. */
const codeOf = (outcome: CreateOutcome | ReadOutcome): string => (outcome.kind === 'refused' ? outcome.refusal.code : outcome.kind);

describe('create: the first rule broken answers (0013-order-of-checks.md)', () => {
  it('11. nothing broken: created, in one write', async () => {
    const { store, ids } = storeWith({});
    expect(codeOf(await createTerminationRequest(createDeps(store), call(ids[0] ?? '')))).toBe('created');
    expect(store.calls).toEqual(['create']);
  });

  it('4 before 5: no Idempotency-Key beats a body full of problems, and the store is not asked', async () => {
    const { store, ids } = storeWith({});
    const outcome = await createTerminationRequest(createDeps(store), call(ids[0] ?? '', { idempotencyKey: undefined, body: {} }));
    expect(codeOf(outcome)).toBe('IDEMPOTENCY_KEY_MISSING');
    expect(store.calls).toEqual([]);
  });

  it('5 before 6: a form problem answers 400 even on a key already used', async () => {
    const { store, ids } = storeWith({});
    const key = randomUUID();
    const contractId = ids[0] ?? '';
    await createTerminationRequest(createDeps(store), call(contractId, { idempotencyKey: key }));
    const outcome = await createTerminationRequest(
      createDeps(store),
      call(contractId, { idempotencyKey: key, body: validBody({ reasonCode: 'NOPE' }) }),
    );
    expect(codeOf(outcome)).toBe('VALIDATION_ERROR');
    expect(store.calls).toEqual(['create']);
  });

  it('6 before 7: a key accepted yesterday replays today although its date is now past', async () => {
    const { store, ids } = storeWith({});
    const key = randomUUID();
    const body = validBody({ desiredTerminationDate: '2026-11-25' });
    const contractId = ids[0] ?? '';
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId, { idempotencyKey: key, body })))).toBe('created');
    const dayAfter = new Date('2026-11-26T09:00:00Z');
    expect(codeOf(await createTerminationRequest(createDeps(store, dayAfter), call(contractId, { idempotencyKey: key, body })))).toBe(
      'replayed',
    );
    // Another key with that past date: step 7.
    expect(codeOf(await createTerminationRequest(createDeps(store, dayAfter), call(contractId, { body })))).toBe('VALIDATION_ERROR');
  });

  it('6 before 8 and 9: a key reused with another body answers 422 IDEMPOTENCY_KEY_REUSED, not the rules it breaks', async () => {
    const { store, ids } = storeWith({}, { status: 'CLOSED' });
    const key = randomUUID();
    await createTerminationRequest(createDeps(store), call(ids[0] ?? '', { idempotencyKey: key }));
    const other = call(ids[1] ?? '', {
      idempotencyKey: key,
      body: validBody({ bankDetails: bankDetails({ accountNumber: '40817810700000000002' }) }),
    });
    expect(codeOf(await createTerminationRequest(createDeps(store), other))).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('8 before 9: a bad account key answers before an unknown contract, after one read of the key', async () => {
    const store = new InMemoryStore();
    const body = validBody({ bankDetails: bankDetails({ accountNumber: '40817810700000000002' }) });
    expect(codeOf(await createTerminationRequest(createDeps(store), call(randomUUID(), { body })))).toBe('BANK_ACCOUNT_KEY_MISMATCH');
    expect(store.calls).toEqual(['findIdempotencyRecord']);
  });

  it('8: the account key before the comment', async () => {
    const store = new InMemoryStore();
    const body = validBody({ reasonCode: 'OTHER', comment: '...', bankDetails: bankDetails({ accountNumber: '40817810700000000002' }) });
    expect(codeOf(await createTerminationRequest(createDeps(store), call(randomUUID(), { body })))).toBe('BANK_ACCOUNT_KEY_MISMATCH');
    expect(
      codeOf(
        await createTerminationRequest(createDeps(store), call(randomUUID(), { body: validBody({ reasonCode: 'OTHER', comment: '...' }) })),
      ),
    ).toBe('COMMENT_REQUIRED');
  });

  it.each([
    ['404 before 403', undefined, 'CONTRACT_NOT_FOUND'],
    [
      "403 before the contract's state and end date",
      { customerId: BORIS, status: 'CLOSED', endDate: '2030-01-01' },
      'CONTRACT_ACCESS_DENIED',
    ],
    ['not active before the end date', { status: 'CLOSED', endDate: '2030-01-01' }, 'CONTRACT_NOT_ACTIVE'],
    ['the end date last', { endDate: '2030-01-01' }, 'TERMINATION_DATE_AFTER_CONTRACT_END'],
  ])('9: %s', async (_name, contract, code) => {
    const { store, ids } = contract === undefined ? { store: new InMemoryStore(), ids: [randomUUID()] } : storeWith(contract);
    expect(codeOf(await createTerminationRequest(createDeps(store), call(ids[0] ?? '')))).toBe(code);
  });

  it('9 before 10: a closed contract with an active request answers 422, not 409', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    await createTerminationRequest(createDeps(store), call(contractId));
    store.addContract({ contractId, customerId: ANNA, status: 'CLOSED' });
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId)))).toBe('CONTRACT_NOT_ACTIVE');
  });

  it('10: another key on a contract with an active request: 409 naming it', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const first = await createTerminationRequest(createDeps(store), call(contractId));
    const second = await createTerminationRequest(createDeps(store), call(contractId));
    expect(second).toMatchObject({ kind: 'refused', refusal: { code: 'ACTIVE_REQUEST_ALREADY_EXISTS' } });
    expect(second.kind === 'refused' && first.kind === 'created' ? second.refusal.requestNumber : 'none').toBe(
      first.kind === 'created' ? first.request.requestNumber : 'created',
    );
  });
});

describe('create: the documents and the limit come last (0013-order-of-checks.md, steps 11 and 12)', () => {
  const DOCUMENT = '0b6f1c1e-2f7a-4d35-9a6b-0c1d2e3f4a5b';
  const withDocument = (store: InMemoryStore, fields: { customerId?: string; status?: string } = {}) =>
    store.addDocument({ documentId: DOCUMENT, customerId: ANNA, status: 'UPLOADED', ...fields });
  /** A request made on the contract and ended (its slot freed), as a withdrawal or a rejection leaves it. */
  async function madeAndEnded(store: InMemoryStore, contractId: string, now = NOW): Promise<void> {
    expect(codeOf(await createTerminationRequest(createDeps(store, now), call(contractId)))).toBe('created');
    store.slots.delete(contractId);
  }

  it("10 before 11: an active request answers 409 even when a document named is not the caller's", async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    withDocument(store, { customerId: BORIS });
    await createTerminationRequest(createDeps(store), call(contractId));
    const outcome = await createTerminationRequest(createDeps(store), call(contractId, { body: validBody({ documentIds: [DOCUMENT] }) }));
    expect(codeOf(outcome)).toBe('ACTIVE_REQUEST_ALREADY_EXISTS');
  });

  it.each([
    ['unknown', undefined],
    ["another customer's", { customerId: BORIS }],
    ['not usable', { status: 'SCANNING' }],
  ])('11: a document %s answers 422 DOCUMENT_NOT_AVAILABLE naming it, in the one write', async (_case, fields) => {
    const { store, ids } = storeWith({});
    if (fields !== undefined) withDocument(store, fields);
    const outcome = await createTerminationRequest(createDeps(store), call(ids[0] ?? '', { body: validBody({ documentIds: [DOCUMENT] }) }));
    expect(outcome).toMatchObject({
      kind: 'refused',
      refusal: { code: 'DOCUMENT_NOT_AVAILABLE', problems: [{ field: 'documentIds[0]', code: 'documentNotAvailable' }] },
    });
    expect(store.calls).toEqual(['create']);
  });

  it('11 before 12: the documents answer before the limit', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    for (let i = 0; i < LIMIT.count; i++) await madeAndEnded(store, contractId);
    const outcome = await createTerminationRequest(createDeps(store), call(contractId, { body: validBody({ documentIds: [DOCUMENT] }) }));
    expect(codeOf(outcome)).toBe('DOCUMENT_NOT_AVAILABLE');
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId)))).toBe('REQUEST_LIMIT_REACHED');
  });

  it('12: the limit reached answers 422 with the time a new request is possible; 10 before 12', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const first = new Date(NOW.getTime() - 5 * 86_400_000);
    await madeAndEnded(store, contractId, first);
    for (let i = 1; i < LIMIT.count; i++) await madeAndEnded(store, contractId);
    const outcome = await createTerminationRequest(createDeps(store), call(contractId));
    expect(outcome).toMatchObject({
      kind: 'refused',
      refusal: {
        code: 'REQUEST_LIMIT_REACHED',
        nextRequestAllowedAt: new Date(first.getTime() + LIMIT.periodDays * 86_400_000).toISOString(),
      },
    });
    // An active request of another customer (the contract changed owner) answers 409 first.
    store.slots.set(contractId, { requestId: 'r', requestNumber: 'TR-AAAA-BBBB', customerId: BORIS });
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId)))).toBe('ACTIVE_REQUEST_ALREADY_EXISTS');
  });

  it('6 before 12: a key accepted before the limit was reached still replays', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const key = randomUUID();
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId, { idempotencyKey: key })))).toBe('created');
    store.slots.delete(contractId);
    for (let i = 1; i < LIMIT.count; i++) await madeAndEnded(store, contractId);
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId)))).toBe('REQUEST_LIMIT_REACHED');
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId, { idempotencyKey: key })))).toBe('replayed');
  });
});

describe('get and list: path first, then the data (0015-reading-requests.md)', () => {
  const readCall = (contractId: string | undefined, customerId = ANNA) => ({
    customerId,
    contractId,
    context: directContext(),
  });
  const readDeps = (store: InMemoryStore) => ({ store, budgetMs: 1000, limit: { count: 5, periodDays: 30 }, now: () => NOW });

  async function withRequest(): Promise<{ store: InMemoryStore; contractId: string; requestId: string }> {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const created = await createTerminationRequest(createDeps(store), call(contractId));
    store.calls.length = 0;
    return { store, contractId, requestId: created.kind === 'created' ? created.request.requestId : '' };
  }

  it('answers 400 for ids that are not UUIDs without asking the store', async () => {
    const store = new InMemoryStore();
    expect(codeOf(await getTerminationRequest(readDeps(store), { ...readCall('x'), requestId: 'y' }))).toBe('VALIDATION_ERROR');
    expect(codeOf(await listTerminationRequests(readDeps(store), { ...readCall('x'), limit: '0', cursor: undefined }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(store.calls).toEqual([]);
  });

  it("finds the caller's request in one read, without the contract", async () => {
    const { store, contractId, requestId } = await withRequest();
    expect(codeOf(await getTerminationRequest(readDeps(store), { ...readCall(contractId), requestId }))).toBe('found');
    expect(store.calls).toEqual(['findRequest']);
  });

  it("lets the contract decide when the request is another customer's: 403 for a stranger, 404 for the new owner", async () => {
    const { store, contractId, requestId } = await withRequest();
    expect(codeOf(await getTerminationRequest(readDeps(store), { ...readCall(contractId, BORIS), requestId }))).toBe(
      'CONTRACT_ACCESS_DENIED',
    );
    expect(store.calls).toEqual(['findRequest', 'findContract']);
    store.addContract({ contractId, customerId: BORIS, status: 'ACTIVE' });
    expect(codeOf(await getTerminationRequest(readDeps(store), { ...readCall(contractId, BORIS), requestId }))).toBe(
      'TERMINATION_REQUEST_NOT_FOUND',
    );
  });

  it('lists in one read, the limit record with it; an empty page reads the contract to tell 404, 403 and "none yet" apart', async () => {
    const { store, contractId } = await withRequest();
    const list = (id: string, customerId = ANNA) =>
      listTerminationRequests(readDeps(store), { ...readCall(id, customerId), limit: undefined, cursor: undefined });
    expect(codeOf(await list(contractId))).toBe('listed');
    expect(store.calls).toEqual(['listRequests']);
    expect(codeOf(await list(randomUUID()))).toBe('CONTRACT_NOT_FOUND');
    expect(codeOf(await list(contractId, BORIS))).toBe('CONTRACT_ACCESS_DENIED');
    const { ids } = storeWith({});
    store.addContract({ contractId: ids[0] ?? '', customerId: ANNA, status: 'ACTIVE' });
    expect(await list(ids[0] ?? '')).toEqual({ kind: 'listed', requests: [], nextCursor: undefined, nextRequestAllowedAt: undefined });
  });

  it('says on the first page when the next request is possible while the limit holds, and nothing once it is possible', async () => {
    const { store, contractId } = await withRequest();
    const now = NOW.getTime() / 1000;
    const day = 86_400;
    // Five requests, the oldest 29 days ago: the sixth is possible a day from now.
    store.limits.set(`${contractId}#${ANNA}`, [now - 10, now - day, now - 2 * day, now - 3 * day, now - 29 * day]);
    const list = (cursor?: string) => listTerminationRequests(readDeps(store), { ...readCall(contractId), limit: '1', cursor });
    const first = await list();
    expect(first.kind === 'listed' && first.nextRequestAllowedAt).toBe(new Date((now + day) * 1000).toISOString());
    store.limits.set(`${contractId}#${ANNA}`, [now - 10, now - day, now - 2 * day, now - 3 * day, now - 31 * day]);
    const later = await list();
    expect(later.kind === 'listed' && later.nextRequestAllowedAt).toBeUndefined();
  });
});

describe('a decision: source, then signature, then detail, then the lifecycle (0017-lifecycle.md)', () => {
  const checkSignature = signatureCheckWith();
  const decisionDeps = (store: InMemoryStore): DecisionDeps => ({
    store,
    expected: { source: LOCAL_DECISION_SOURCE, detailType: DECISION_DETAIL_TYPE, account: LOCAL_ACCOUNT_ID },
    checkSignature,
    now: () => NOW,
    retention: { kind: 'calendar-years', years: 5, timeZone: 'Europe/Moscow' },
  });
  const eventOf = (event: ReturnType<typeof decisionEvent>) => ({
    source: event.source,
    detailType: event['detail-type'],
    account: event.account,
    detail: event.detail,
  });

  it('refuses another source before reading a malformed detail, and neither reaches the store', async () => {
    const store = new InMemoryStore();
    const bad = { ...eventOf(decisionEvent({ requestId: 'x', contractId: 'y', status: 'REJECTED' })) };
    expect(await applyStatusDecision(decisionDeps(store), { ...bad, source: 'someone.else' })).toMatchObject({
      refusal: 'unexpected-event',
    });
    expect(await applyStatusDecision(decisionDeps(store), bad)).toMatchObject({ refusal: 'malformed-detail' });
    expect(store.calls).toEqual([]);
  });

  it('refuses an unsigned decision before reading its detail: who decided comes before what it says', async () => {
    const store = new InMemoryStore();
    const bad = eventOf(decisionEvent({ requestId: 'x', contractId: 'y', status: 'REJECTED' }));
    expect(await applyStatusDecision(decisionDeps(store), { ...bad, detail: { ...bad.detail, signature: undefined } })).toMatchObject({
      refusal: 'unauthenticated',
    });
    expect(store.calls).toEqual([]);
  });

  it('applies an allowed move once; the same decision again is a duplicate; a move back is forbidden', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const created = await createTerminationRequest(createDeps(store), call(contractId));
    const requestId = created.kind === 'created' ? created.request.requestId : '';
    const approve = decisionEvent({ requestId, contractId, status: 'APPROVED' });
    expect((await applyStatusDecision(decisionDeps(store), eventOf(approve))).kind).toBe('applied');
    expect((await applyStatusDecision(decisionDeps(store), eventOf(approve))).kind).toBe('duplicate');
    const back = decisionEvent({ requestId, contractId, status: 'IN_REVIEW' });
    expect(await applyStatusDecision(decisionDeps(store), eventOf(back))).toMatchObject({
      kind: 'refused',
      refusal: 'forbidden-transition',
    });
    const unknown = decisionEvent({ requestId: randomUUID(), contractId, status: 'REJECTED' });
    expect(await applyStatusDecision(decisionDeps(store), eventOf(unknown))).toMatchObject({ refusal: 'unknown-request' });
  });

  it('a final decision frees the contract for a new request', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const created = await createTerminationRequest(createDeps(store), call(contractId));
    const requestId = created.kind === 'created' ? created.request.requestId : '';
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId)))).toBe('ACTIVE_REQUEST_ALREADY_EXISTS');
    await applyStatusDecision(decisionDeps(store), eventOf(decisionEvent({ requestId, contractId, status: 'REJECTED', reason: 'No' })));
    expect(codeOf(await createTerminationRequest(createDeps(store), call(contractId)))).toBe('created');
  });
});

describe('a withdrawal: key, form, the key again, the request, its status (0018-withdrawal.md)', () => {
  const withdrawDeps = (store: InMemoryStore) => ({
    store,
    idempotencyTtlSeconds: 3600,
    retention: { kind: 'calendar-years', years: 5, timeZone: 'Europe/Moscow' } as const,
    budgetMs: 1000,
    now: () => NOW,
  });
  const withdrawCall = (contractId: string, requestId: string, overrides: Partial<WithdrawCall> = {}): WithdrawCall => ({
    customerId: ANNA,
    contractId,
    requestId,
    idempotencyKey: randomUUID(),
    context: directContext(),
    ...overrides,
  });
  const codeOfWithdrawal = (outcome: WithdrawOutcome) => (outcome.kind === 'refused' ? outcome.refusal.code : outcome.kind);

  async function submittedIn(store: InMemoryStore, contractId: string): Promise<string> {
    const created = await createTerminationRequest(createDeps(store), call(contractId));
    return created.kind === 'created' ? created.request.requestId : '';
  }

  it('no key before bad ids, bad ids before anything stored; neither asks the store', async () => {
    const store = new InMemoryStore();
    expect(
      codeOfWithdrawal(await withdrawTerminationRequest(withdrawDeps(store), withdrawCall('x', 'y', { idempotencyKey: undefined }))),
    ).toBe('IDEMPOTENCY_KEY_MISSING');
    expect(codeOfWithdrawal(await withdrawTerminationRequest(withdrawDeps(store), withdrawCall('x', 'y')))).toBe('VALIDATION_ERROR');
    expect(store.calls).toEqual([]);
  });

  it('withdraws in one write, then replays the key over any later state; another key gets 409', async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const requestId = await submittedIn(store, contractId);
    store.calls.length = 0;
    const key = randomUUID();
    const first = await withdrawTerminationRequest(withdrawDeps(store), withdrawCall(contractId, requestId, { idempotencyKey: key }));
    expect(first).toMatchObject({ kind: 'withdrawn', withdrawal: { requestId, status: 'WITHDRAWN' } });
    expect(store.calls).toEqual(['withdraw']);
    const again = await withdrawTerminationRequest(withdrawDeps(store), withdrawCall(contractId, requestId, { idempotencyKey: key }));
    expect(again).toEqual({ kind: 'withdrawal-replayed', withdrawal: first.kind === 'withdrawn' ? first.withdrawal : undefined });
    const other = await withdrawTerminationRequest(withdrawDeps(store), withdrawCall(contractId, requestId));
    expect(other).toMatchObject({ kind: 'refused', refusal: { code: 'REQUEST_NOT_WITHDRAWABLE', problems: [{ status: 'WITHDRAWN' }] } });
  });

  it("the key before the request: a key reused for another request is 422, even on another customer's contract", async () => {
    const { store, ids } = storeWith({}, { customerId: BORIS });
    const requestId = await submittedIn(store, ids[0] ?? '');
    const key = randomUUID();
    await withdrawTerminationRequest(withdrawDeps(store), withdrawCall(ids[0] ?? '', requestId, { idempotencyKey: key }));
    const reused = await withdrawTerminationRequest(withdrawDeps(store), withdrawCall(ids[1] ?? '', randomUUID(), { idempotencyKey: key }));
    expect(codeOfWithdrawal(reused)).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it("the request before its status: another customer's request is decided by the contract, and the store reads it once", async () => {
    const { store, ids } = storeWith({});
    const contractId = ids[0] ?? '';
    const requestId = await submittedIn(store, contractId);
    store.calls.length = 0;
    const stranger = await withdrawTerminationRequest(withdrawDeps(store), withdrawCall(contractId, requestId, { customerId: BORIS }));
    expect(codeOfWithdrawal(stranger)).toBe('CONTRACT_ACCESS_DENIED');
    expect(store.calls).toEqual(['withdraw', 'findContract']);
    expect(codeOfWithdrawal(await withdrawTerminationRequest(withdrawDeps(store), withdrawCall(contractId, randomUUID())))).toBe(
      'TERMINATION_REQUEST_NOT_FOUND',
    );
  });
});
