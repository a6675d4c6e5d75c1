import { randomUUID } from 'node:crypto';
import { v7 as timeOrderedUuid } from 'uuid';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATUS_SUBMITTED, STATUSES, type Status } from '../../lib/api-model/schemas';
import { DECISION_STATUSES } from '../../lib/api-model/event-schemas';
import { documentConditionFor, USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';
import { contractConditionFor } from '../../lib/termination/contract-rules';
import { FINAL_STATUSES, moveTo, WITHDRAWABLE_STATUSES } from '../../lib/termination/lifecycle';
import type { NewRequest, PageQuery, RequestLimit, TerminationStore, WithdrawalIntent } from '../../lib/termination/ports/store';
import type { Decision } from '../../lib/termination/ports/decision';
import { newRequestNumber } from '../../lib/termination/request-number';
import { limitConditionFor } from '../../lib/termination/request-limit';
import { SECONDS_PER_DAY } from '../../lib/time';

/*
 * The contract of the store port (lib/termination/ports/store.ts): the same cases, with the same
 * expected outcomes, for every store. tests/unit/in-memory-store.test.ts runs them on the store
 * the unit tests use (tests/support/in-memory-store.ts), tests/integration/dynamodb-store.test.ts
 * on DynamoDbTerminationStore over DynamoDB Local, so the use cases' unit tests can trust the
 * in-memory store to answer as the real one does. Each case works on contracts of its own.
 */

/** A store under test, with what a case needs besides the port. */
export interface StoreUnderTest {
  store: TerminationStore;
  /** Puts a row in the contracts table as its owner would, any fields, well formed or not. */
  addContract: (contract: Record<string, unknown> & { contractId: string }) => Promise<void>;
  /** Makes the contract's active slot name `requestId`, or removes it: broken data, which no write of the port makes. */
  setSlot: (contractId: string, slot: { requestId: string; requestNumber: string; customerId: string } | undefined) => Promise<void>;
  /** Puts a row in the documents service's table as that service would, any fields. */
  addDocument: (document: Record<string, unknown> & { documentId: string }) => Promise<void>;
}

const ANNA = 'customer-anna';
const BORIS = 'customer-boris';
const DESIRED = '2030-06-30';
const HOUR = 3600;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A create of Anna's (unless told) on the contract, as the create use case hands it over, naming the documents given. */
export function newRequest(
  contractId: string,
  fields: Partial<Omit<NewRequest, 'limit'>> & { desired?: string; documentIds?: string[]; limit?: RequestLimit } = {},
): NewRequest {
  // Far more than a suite's requests on one contract, unless told: the limit is not what most cases are about.
  const { desired = DESIRED, documentIds, limit = { count: 50, periodDays: 30 }, ...overrides } = fields;
  const requestId = overrides.requestId ?? timeOrderedUuid();
  const requestNumber = overrides.requestNumber ?? newRequestNumber();
  const customerId = overrides.customerId ?? ANNA;
  return {
    requestId,
    requestNumber,
    customerId,
    contractId,
    idempotencyKey: randomUUID(),
    fingerprint: `fingerprint-${requestId}`,
    input: {
      reasonCode: 'RELOCATION',
      desiredTerminationDate: desired,
      bankDetails: { bik: '044525225', accountNumber: '40817810099910004312', recipientName: 'Anna Ivanova' },
      ...(documentIds === undefined ? {} : { documentIds }),
    },
    response: { requestId, requestNumber, status: STATUS_SUBMITTED, createdAt: new Date().toISOString(), message: 'Submitted.' },
    expiresAt: nowSeconds() + HOUR,
    contract: contractConditionFor(customerId, desired),
    documents: documentConditionFor(customerId),
    limit: limitConditionFor(limit, nowSeconds(), nowSeconds()),
    ...overrides,
  };
}

/** The page a list asks for; its limit, the one newRequest's requests are made under unless a case says. */
const pageOf = (limit: number, after?: string, requestLimit: RequestLimit = { count: 50, periodDays: 30 }): PageQuery => ({
  limit,
  after,
  requestLimit,
});

/** A decision of the back office on the request. */
export function decisionOn(request: NewRequest, status: Decision['status'], reason?: string): Decision {
  return {
    eventId: `bo-${randomUUID()}`,
    requestId: request.requestId,
    contractId: request.contractId,
    status,
    reason,
    occurredAt: new Date().toISOString(),
  };
}

/** A withdrawal by the request's own customer unless told otherwise. */
export function withdrawalOf(request: NewRequest, fields: Partial<WithdrawalIntent> = {}): WithdrawalIntent {
  return {
    requestId: request.requestId,
    contractId: request.contractId,
    customerId: request.customerId,
    idempotencyKey: randomUUID(),
    fingerprint: `withdraw-${request.requestId}`,
    response: { requestId: request.requestId, status: 'WITHDRAWN', withdrawnAt: new Date().toISOString(), message: 'Withdrawn.' },
    expiresAt: nowSeconds() + HOUR,
    from: moveTo('WITHDRAWN').from,
    retainUntil: nowSeconds() + 1827 * 86_400,
    ...fields,
  };
}

/**
 * Another call with the intent's key, a moment later (a new answer time, so a new transaction
 * token: the same token with other values is refused as a mismatch, which the store reports as a
 * conflict).
 */
function later(intent: WithdrawalIntent, fields: Partial<WithdrawalIntent>): WithdrawalIntent {
  const withdrawnAt = new Date(Date.parse(intent.response.withdrawnAt) + 1).toISOString();
  return { ...intent, response: { ...intent.response, withdrawnAt }, ...fields };
}

export function describeStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
  let subject: StoreUnderTest;
  let store: TerminationStore;

  beforeAll(async () => {
    subject = await open();
    store = subject.store;
  });

  /** A contract of its own: Anna's and ACTIVE unless told otherwise. */
  async function contract(fields: Record<string, unknown> = {}): Promise<string> {
    const contractId = randomUUID();
    await subject.addContract({ contractId, customerId: ANNA, status: 'ACTIVE', ...fields });
    return contractId;
  }

  /** A request created on a contract of its own (or the one given), checked to have gone through. */
  async function created(fields: Partial<NewRequest> = {}, contractId?: string): Promise<NewRequest> {
    const request = newRequest(contractId ?? (await contract({ customerId: fields.customerId ?? ANNA })), fields);
    expect(await store.create(request, nowSeconds())).toEqual({ kind: 'created' });
    return request;
  }

  /** A request moved to `status` by the write that makes it so (a decision, or the customer's withdrawal). */
  async function requestIn(status: Status): Promise<NewRequest> {
    const request = await created();
    if (status === 'WITHDRAWN') expect(await store.withdraw(withdrawalOf(request), nowSeconds())).toEqual({ kind: 'withdrawn' });
    else if (status !== 'SUBMITTED') {
      expect(await store.applyDecision(decisionOn(request, status), moveTo(status), new Date().toISOString())).toEqual({
        kind: 'applied',
      });
    }
    return request;
  }

  /** Whether the contract's slot is free: a create by the contract's customer goes through. */
  async function slotIsFree(contractId: string): Promise<boolean> {
    return (await store.create(newRequest(contractId), nowSeconds())).kind === 'created';
  }

  describe(`${name}: create`, () => {
    it('writes the request, its key and its number at once, SUBMITTED, read back as stored', async () => {
      const request = await created();
      expect(await store.findRequest(request.contractId, request.requestId)).toEqual({
        requestId: request.requestId,
        requestNumber: request.requestNumber,
        customerId: ANNA,
        status: 'SUBMITTED',
        createdAt: request.response.createdAt,
      });
      expect(await store.findIdempotencyRecord(ANNA, request.idempotencyKey, nowSeconds())).toEqual({
        fingerprint: request.fingerprint,
        requestId: request.requestId,
        response: request.response,
        expiresAt: request.expiresAt,
      });
    });

    it("a key in use answers with its record, whatever else the write would break (the key's condition comes first)", async () => {
      const first = await created();
      const again = newRequest(randomUUID(), { idempotencyKey: first.idempotencyKey, requestNumber: first.requestNumber });
      expect(await store.create(again, nowSeconds())).toEqual({
        kind: 'key-taken',
        record: { fingerprint: first.fingerprint, requestId: first.requestId, response: first.response, expiresAt: first.expiresAt },
      });
    });

    it('a key is bound per customer: the same key of another customer is free', async () => {
      const first = await created();
      const boris = await contract({ customerId: BORIS });
      expect(await store.create(newRequest(boris, { customerId: BORIS, idempotencyKey: first.idempotencyKey }), nowSeconds())).toEqual({
        kind: 'created',
      });
    });

    it('a key past its expiresAt counts as absent: it is not found, and may be taken again', async () => {
      const first = await created({ expiresAt: nowSeconds() + 10 });
      const later = first.expiresAt;
      expect(await store.findIdempotencyRecord(ANNA, first.idempotencyKey, later - 1)).toBeDefined();
      expect(await store.findIdempotencyRecord(ANNA, first.idempotencyKey, later)).toBeUndefined();
      const retaken = newRequest(await contract(), { idempotencyKey: first.idempotencyKey });
      expect(await store.create(retaken, later - 1)).toMatchObject({ kind: 'key-taken' });
      expect(await store.create(retaken, later)).toEqual({ kind: 'created' });
    });

    it('a missing contract fails its condition: none, as read after the failure', async () => {
      expect(await store.create(newRequest(randomUUID()), nowSeconds())).toEqual({
        kind: 'contract-condition-failed',
        contract: undefined,
        readAfter: true,
      });
    });

    it.each<[string, Record<string, unknown>, string[]?]>([
      ["another customer's", { customerId: BORIS }],
      ['not ACTIVE', { status: 'CLOSED' }],
      ['ending before the desired date', { endDate: '2030-06-29' }],
      ['ending after the latest date judged', { endDate: '3000-01-01' }],
      ['with a numeric end date', { endDate: 20300630 }],
      ['with an end date not written YYYY-MM-DD', { endDate: '31.12.2045' }],
      ['with a NULL end date', { endDate: null }],
      ['with a numeric status', { status: 1 }],
      ['without a customer', {}, ['customerId']],
    ])('a contract %s fails its condition, and comes back as it is stored', async (_what, fields, without = []) => {
      const contractId = randomUUID();
      const stored = Object.fromEntries(
        Object.entries({ contractId, customerId: ANNA, status: 'ACTIVE', ...fields }).filter(([name]) => !without.includes(name)),
      );
      await subject.addContract({ contractId, ...stored });
      expect(await store.create(newRequest(contractId), nowSeconds())).toEqual({
        kind: 'contract-condition-failed',
        contract: stored,
        readAfter: false,
      });
    });

    it.each([
      ['no end date', undefined],
      ['an end date on the desired date', DESIRED],
      ['the latest end date judged', '2999-12-31'],
    ])('a contract with %s passes', async (_what, endDate) => {
      const contractId = await contract(endDate === undefined ? {} : { endDate });
      expect(await store.create(newRequest(contractId), nowSeconds())).toEqual({ kind: 'created' });
    });

    it('the contract comes before the slot: a contract that changed owner refuses the old owner, whose request holds the slot', async () => {
      const request = await created();
      await subject.addContract({ contractId: request.contractId, customerId: BORIS, status: 'ACTIVE' });
      expect(await store.create(newRequest(request.contractId), nowSeconds())).toMatchObject({
        kind: 'contract-condition-failed',
        contract: { customerId: BORIS },
      });
    });

    it('a held slot names its request and customer: the new owner finds the old owner named', async () => {
      const request = await created();
      expect(await store.create(newRequest(request.contractId), nowSeconds())).toEqual({
        kind: 'slot-taken',
        holder: { requestNumber: request.requestNumber, customerId: ANNA },
      });
      await subject.addContract({ contractId: request.contractId, customerId: BORIS, status: 'ACTIVE' });
      expect(await store.create(newRequest(request.contractId, { customerId: BORIS }), nowSeconds())).toEqual({
        kind: 'slot-taken',
        holder: { requestNumber: request.requestNumber, customerId: ANNA },
      });
    });

    it('a held slot comes before a taken number', async () => {
      const request = await created();
      expect(await store.create(newRequest(request.contractId, { requestNumber: request.requestNumber }), nowSeconds())).toMatchObject({
        kind: 'slot-taken',
      });
    });

    it('a number in use on any contract is taken', async () => {
      const request = await created();
      expect(await store.create(newRequest(await contract(), { requestNumber: request.requestNumber }), nowSeconds())).toEqual({
        kind: 'number-taken',
      });
    });

    it('a request id that exists already is a conflict, and writes nothing', async () => {
      const request = await requestIn('WITHDRAWN');
      const clash = newRequest(request.contractId, { requestId: request.requestId });
      expect(await store.create(clash, nowSeconds())).toEqual({ kind: 'conflict' });
      expect(await store.findIdempotencyRecord(ANNA, clash.idempotencyKey, nowSeconds())).toBeUndefined();
      expect(await store.findRequest(request.contractId, request.requestId)).toMatchObject({ status: 'WITHDRAWN' });
      expect(await slotIsFree(request.contractId)).toBe(true);
    });
  });

  describe(`${name}: the documents a create names`, () => {
    /** A row of the documents service's table: Anna's and usable unless told otherwise. */
    async function document(fields: Record<string, unknown> = {}): Promise<string> {
      const documentId = randomUUID();
      await subject.addDocument({
        documentId,
        customerId: ANNA,
        status: USABLE_DOCUMENT_STATUS,
        fileName: 'scan.pdf',
        uploadedAt: new Date().toISOString(),
        ...fields,
      });
      return documentId;
    }

    it("the caller's usable documents pass: the request is written", async () => {
      const request = newRequest(await contract(), { documentIds: [await document(), await document(), await document()] });
      expect(await store.create(request, nowSeconds())).toEqual({ kind: 'created' });
      expect(await store.findRequest(request.contractId, request.requestId)).toMatchObject({ status: 'SUBMITTED' });
    });

    it.each<[string, Record<string, unknown> | undefined]>([
      ['an unknown document', undefined],
      ["another customer's usable document", { customerId: BORIS }],
      ["one of the caller's still PENDING", { status: 'PENDING' }],
      ["one of the caller's QUARANTINED", { status: 'QUARANTINED' }],
      ["one of the caller's DELETED", { status: 'DELETED' }],
      ["one of the caller's whose status is the usable one in other letters", { status: USABLE_DOCUMENT_STATUS.toLowerCase() }],
      ['one naming no customer', { customerId: null }],
    ])('%s is refused by its place among usable ones', async (_what, fields) => {
      const refused = fields === undefined ? randomUUID() : await document(fields);
      const request = newRequest(await contract(), { documentIds: [await document(), refused, await document()] });
      expect(await store.create(request, nowSeconds())).toEqual({ kind: 'documents-refused', positions: [1] });
    });

    it("names every refused document by its place (3 of 5: unknown, another customer's, not usable), and writes nothing", async () => {
      const contractId = await contract();
      const usable = [await document(), await document()];
      const documentIds = [
        usable[0] ?? '',
        randomUUID(),
        await document({ customerId: BORIS }),
        usable[1] ?? '',
        await document({ status: 'PENDING' }),
      ];
      // One request allowed: a refused create that counted would leave no room for the retry below.
      const limit = { count: 1, periodDays: 30 };
      const refused = newRequest(contractId, { documentIds, limit });
      expect(await store.create(refused, nowSeconds())).toEqual({ kind: 'documents-refused', positions: [1, 2, 4] });
      expect(await store.findRequest(contractId, refused.requestId)).toBeUndefined();
      expect(await store.findIdempotencyRecord(ANNA, refused.idempotencyKey, nowSeconds())).toBeUndefined();
      // The same key, number and limit with the usable documents only: key, slot, number and limit record were all left as they were.
      const retry = newRequest(contractId, {
        idempotencyKey: refused.idempotencyKey,
        requestNumber: refused.requestNumber,
        documentIds: usable,
        limit,
      });
      expect(await store.create(retry, nowSeconds())).toEqual({ kind: 'created' });
    });

    it('a held slot comes before the documents: the request that holds it is named', async () => {
      const holder = await created();
      const request = newRequest(holder.contractId, { documentIds: [randomUUID(), await document({ customerId: BORIS })] });
      expect(await store.create(request, nowSeconds())).toEqual({
        kind: 'slot-taken',
        holder: { requestNumber: holder.requestNumber, customerId: ANNA },
      });
    });

    it('the key, the contract, the number and a request id that exists come before the documents too', async () => {
      const first = await created();
      const unknown = { documentIds: [randomUUID()] };
      expect(
        await store.create(newRequest(await contract(), { ...unknown, idempotencyKey: first.idempotencyKey }), nowSeconds()),
      ).toMatchObject({
        kind: 'key-taken',
        record: { requestId: first.requestId },
      });
      expect(await store.create(newRequest(await contract({ customerId: BORIS }), unknown), nowSeconds())).toMatchObject({
        kind: 'contract-condition-failed',
        contract: { customerId: BORIS },
      });
      expect(await store.create(newRequest(await contract(), { ...unknown, requestNumber: first.requestNumber }), nowSeconds())).toEqual({
        kind: 'number-taken',
      });
      expect(await store.create(newRequest(await contract(), { ...unknown, requestId: first.requestId }), nowSeconds())).toEqual({
        kind: 'conflict',
      });
    });
  });

  describe(`${name}: the limit of requests per contract`, () => {
    const TWO_IN_30_DAYS: RequestLimit = { count: 2, periodDays: 30 };
    const PERIOD = 30 * SECONDS_PER_DAY;

    /** A create at `at` (epoch seconds): the limit counts the request from then, as a create made then would. */
    const createAt = (request: NewRequest, at: number) => store.create({ ...request, limit: limitConditionFor(request.limit, at, at) }, at);

    /** A request of the customer's made on the contract at `at`, under `limit`, then ended as told so that the contract is free again. */
    async function madeAndEnded(
      contractId: string,
      at: number,
      {
        customerId = ANNA,
        end = 'WITHDRAWN',
        limit = TWO_IN_30_DAYS,
      }: { customerId?: string; end?: 'WITHDRAWN' | 'REJECTED'; limit?: RequestLimit } = {},
    ): Promise<NewRequest> {
      const request = newRequest(contractId, { customerId, limit });
      expect(await createAt(request, at)).toEqual({ kind: 'created' });
      if (end === 'WITHDRAWN') expect(await store.withdraw(withdrawalOf(request), at)).toEqual({ kind: 'withdrawn' });
      else expect(await store.applyDecision(decisionOn(request, end), moveTo(end), new Date().toISOString())).toEqual({ kind: 'applied' });
      return request;
    }

    it('refuses the third request in the period, withdrawn and rejected ones counted, with their times newest first, and writes nothing', async () => {
      const t = nowSeconds();
      const contractId = await contract();
      await madeAndEnded(contractId, t);
      await madeAndEnded(contractId, t + 60, { end: 'REJECTED' });
      const third = newRequest(contractId, { limit: TWO_IN_30_DAYS });
      expect(await createAt(third, t + 120)).toEqual({ kind: 'limit-reached', createdAtSeconds: [t + 60, t] });
      expect(await store.findRequest(contractId, third.requestId)).toBeUndefined();
      expect(await store.findIdempotencyRecord(ANNA, third.idempotencyKey, t + 120)).toBeUndefined();
      // Until the oldest counted request is a period old, then room again. Had either refusal been
      // recorded, its time would be counted now instead of the oldest, and refuse this create.
      expect(await createAt(newRequest(contractId, { limit: TWO_IN_30_DAYS }), t + PERIOD - 1)).toEqual({
        kind: 'limit-reached',
        createdAtSeconds: [t + 60, t],
      });
      expect(await createAt(newRequest(contractId, { limit: TWO_IN_30_DAYS, requestNumber: third.requestNumber }), t + PERIOD)).toEqual({
        kind: 'created',
      });
    });

    it('the slot comes before the limit, and the documents before the limit too', async () => {
      const t = nowSeconds();
      const contractId = await contract();
      await madeAndEnded(contractId, t);
      const active = newRequest(contractId, { limit: TWO_IN_30_DAYS });
      expect(await createAt(active, t + 60)).toEqual({ kind: 'created' });
      expect(await createAt(newRequest(contractId, { limit: TWO_IN_30_DAYS }), t + 120)).toEqual({
        kind: 'slot-taken',
        holder: { requestNumber: active.requestNumber, customerId: ANNA },
      });
      expect(await store.withdraw(withdrawalOf(active), t + 120)).toEqual({ kind: 'withdrawn' });
      expect(await createAt(newRequest(contractId, { limit: TWO_IN_30_DAYS, documentIds: [randomUUID()] }), t + 180)).toEqual({
        kind: 'documents-refused',
        positions: [0],
      });
      expect(await createAt(newRequest(contractId, { limit: TWO_IN_30_DAYS }), t + 180)).toEqual({
        kind: 'limit-reached',
        createdAtSeconds: [t + 60, t],
      });
    });

    it("counts each customer's requests on the contract apart: a previous owner's do not count against the next, nor the other way", async () => {
      const t = nowSeconds();
      const contractId = await contract();
      await madeAndEnded(contractId, t);
      await subject.addContract({ contractId, customerId: BORIS, status: 'ACTIVE' });
      await madeAndEnded(contractId, t + 60, { customerId: BORIS });
      await madeAndEnded(contractId, t + 120, { customerId: BORIS });
      await subject.addContract({ contractId, customerId: ANNA, status: 'ACTIVE' });
      await madeAndEnded(contractId, t + 180);
      expect(await createAt(newRequest(contractId, { limit: TWO_IN_30_DAYS }), t + 240)).toEqual({
        kind: 'limit-reached',
        createdAtSeconds: [t + 180, t],
      });
      await subject.addContract({ contractId, customerId: BORIS, status: 'ACTIVE' });
      expect(await createAt(newRequest(contractId, { customerId: BORIS, limit: TWO_IN_30_DAYS }), t + 240)).toEqual({
        kind: 'limit-reached',
        createdAtSeconds: [t + 120, t + 60],
      });
    });

    it("a list's first page brings the caller's own limit times, never another customer's; a later page none", async () => {
      const t = nowSeconds();
      const contractId = await contract();
      const annas = [await madeAndEnded(contractId, t)];
      await subject.addContract({ contractId, customerId: BORIS, status: 'ACTIVE' });
      const boris = await madeAndEnded(contractId, t + 60, { customerId: BORIS });
      await subject.addContract({ contractId, customerId: ANNA, status: 'ACTIVE' });
      annas.push(await madeAndEnded(contractId, t + 120));
      const first = await store.listRequests(contractId, ANNA, pageOf(1, undefined, TWO_IN_30_DAYS));
      expect(first).toEqual({
        items: [expect.objectContaining({ requestId: annas[1]?.requestId })],
        lastRequestId: annas[1]?.requestId,
        limitTimes: [t + 120, t],
      });
      const second = await store.listRequests(contractId, ANNA, pageOf(1, first.lastRequestId, TWO_IN_30_DAYS));
      expect(second.items.map((item) => item.requestId)).toEqual([annas[0]?.requestId]);
      expect(second.limitTimes).toBeUndefined();
      // Boris's record sorts after Anna's, hers before his: each reads their own, whichever side the other's is on.
      expect(await store.listRequests(contractId, BORIS, pageOf(5, undefined, TWO_IN_30_DAYS))).toEqual({
        items: [expect.objectContaining({ requestId: boris.requestId })],
        limitTimes: [t + 60],
      });
      expect(await store.listRequests(contractId, 'customer-nobody', pageOf(5, undefined, TWO_IN_30_DAYS))).toEqual({ items: [] });
    });

    it('a lower count reads the time it now names; a higher one counts from the next create, the times it had not kept as none', async () => {
      const t = nowSeconds();
      const contractId = await contract();
      await madeAndEnded(contractId, t);
      await madeAndEnded(contractId, t + 60);
      expect(await createAt(newRequest(contractId, { limit: { count: 1, periodDays: 30 } }), t + 120)).toEqual({
        kind: 'limit-reached',
        createdAtSeconds: [t + 60],
      });
      const three = { count: 3, periodDays: 30 };
      await madeAndEnded(contractId, t + 180, { limit: three });
      expect(await createAt(newRequest(contractId, { limit: three }), t + 240)).toEqual({
        kind: 'limit-reached',
        createdAtSeconds: [t + 180, t + 60, t],
      });
    });

    it('a time a lower count left unshifted counts again once the count grows back: every request made counts', async () => {
      const t = nowSeconds();
      const contractId = await contract();
      const three = { count: 3, periodDays: 30 };
      await madeAndEnded(contractId, t, { limit: three });
      await madeAndEnded(contractId, t + 60, { limit: three });
      await madeAndEnded(contractId, t + 120, { limit: three });
      // Two in 30 days: the second newest (t + 60) is a period old. The record's third time (t) stays as it was.
      await madeAndEnded(contractId, t + 60 + PERIOD, { limit: TWO_IN_30_DAYS });
      // Three in 60 days: four requests were made in the last 60 days, so a fifth is refused, on the times the record holds.
      expect(await createAt(newRequest(contractId, { limit: { count: 3, periodDays: 60 } }), t + 120 + PERIOD)).toEqual({
        kind: 'limit-reached',
        createdAtSeconds: [t + 60 + PERIOD, t + 120, t],
      });
    });
  });

  describe(`${name}: reads`, () => {
    it('a request is found under its own contract only', async () => {
      const request = await created();
      expect(await store.findRequest(await contract(), request.requestId)).toBeUndefined();
      expect(await store.findRequest(request.contractId, randomUUID())).toBeUndefined();
    });

    it('a contract is read as its owner stored it', async () => {
      const contractId = await contract({ endDate: 20300630, note: 'kept as is' });
      expect(await store.findContract(contractId)).toEqual({
        contractId,
        customerId: ANNA,
        status: 'ACTIVE',
        endDate: 20300630,
        note: 'kept as is',
      });
      expect(await store.findContract(randomUUID())).toBeUndefined();
    });

    it("lists a customer's requests newest first, page by page, each page continuing after the last of the one before", async () => {
      const first = await requestIn('WITHDRAWN');
      const second = await created({}, first.contractId);
      await store.withdraw(withdrawalOf(second), nowSeconds());
      const third = await created({}, first.contractId);
      const ids = [third, second, first].map((request) => request.requestId);
      const all = await store.listRequests(first.contractId, ANNA, pageOf(10));
      expect(all.items.map((item) => item.requestId)).toEqual(ids);
      expect(all.lastRequestId).toBeUndefined();

      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 5; page++) {
        const { items, lastRequestId } = await store.listRequests(first.contractId, ANNA, pageOf(2, after));
        seen.push(...items.map((item) => item.requestId));
        if (lastRequestId === undefined) break;
        expect(lastRequestId).toBe(items.at(-1)?.requestId);
        after = lastRequestId;
      }
      expect(seen).toEqual(ids);
    });

    it("lists none of another customer's requests on a contract that changed owner, and never stands a page on one", async () => {
      const annas = [await requestIn('WITHDRAWN')];
      const contractId = annas[0]?.contractId ?? '';
      await subject.addContract({ contractId, customerId: BORIS, status: 'ACTIVE' });
      const boris = await created({ customerId: BORIS }, contractId);
      await store.withdraw(withdrawalOf(boris), nowSeconds());
      await subject.addContract({ contractId, customerId: ANNA, status: 'ACTIVE' });
      annas.push(await created({}, contractId));
      const list = async (customerId: string, limit: number) => {
        const pages: { items: string[]; lastRequestId: string | undefined }[] = [];
        let after: string | undefined;
        do {
          const page = await store.listRequests(contractId, customerId, pageOf(limit, after));
          pages.push({ items: page.items.map((item) => item.requestId), lastRequestId: page.lastRequestId });
          after = page.lastRequestId;
        } while (after !== undefined && pages.length < 5);
        return pages;
      };
      const annaIds = annas.map((request) => request.requestId).reverse();
      for (const limit of [1, 2, 10]) {
        const pages = await list(ANNA, limit);
        expect(pages.flatMap((page) => page.items)).toEqual(annaIds);
        for (const page of pages) if (page.lastRequestId !== undefined) expect(annaIds).toContain(page.lastRequestId);
      }
      expect((await list(BORIS, 1)).flatMap((page) => page.items)).toEqual([boris.requestId]);
      expect(await store.listRequests(contractId, 'customer-nobody', pageOf(5))).toEqual({ items: [] });
    });
  });

  describe(`${name}: a decision`, () => {
    const cases = DECISION_STATUSES.flatMap((to) => STATUSES.map((from) => ({ from, to, allowed: moveTo(to).from.includes(from) })));

    it.each(cases)('to $to from $from: applied only where the lifecycle allows ($allowed)', async ({ from, to, allowed }) => {
      const request = await requestIn(from);
      const before = await store.findRequest(request.contractId, request.requestId);
      const decision = decisionOn(request, to, 'Checked by the bank.');
      const outcome = await store.applyDecision(decision, moveTo(to), new Date().toISOString());
      if (!allowed) {
        expect(outcome).toEqual({
          kind: 'request-condition-failed',
          request: { customerId: ANNA, status: from, statusReason: before?.statusReason, decisionIds: expect.any(Array) },
        });
        expect(await store.findRequest(request.contractId, request.requestId)).toEqual(before);
        return;
      }
      expect(outcome).toEqual({ kind: 'applied' });
      expect(await store.findRequest(request.contractId, request.requestId)).toEqual({
        ...before,
        status: to,
        statusReason: 'Checked by the bank.',
      });
      // The contract is free again exactly when the new status is final.
      expect(await slotIsFree(request.contractId)).toBe(FINAL_STATUSES.includes(to));
    });

    it('remembers the decisions it applied: the same decision again fails with its id among them', async () => {
      const request = await created();
      const decision = decisionOn(request, 'IN_REVIEW');
      await store.applyDecision(decision, moveTo('IN_REVIEW'), new Date().toISOString());
      expect(await store.applyDecision(decision, moveTo('IN_REVIEW'), new Date().toISOString())).toEqual({
        kind: 'request-condition-failed',
        request: { customerId: ANNA, status: 'IN_REVIEW', statusReason: undefined, decisionIds: [decision.eventId] },
      });
    });

    it("sets the back office's words with the status, and removes them with a status that has none", async () => {
      const request = await created();
      await store.applyDecision(decisionOn(request, 'IN_REVIEW', 'Documents received.'), moveTo('IN_REVIEW'), new Date().toISOString());
      expect(await store.findRequest(request.contractId, request.requestId)).toMatchObject({ statusReason: 'Documents received.' });
      await store.applyDecision(decisionOn(request, 'APPROVED'), moveTo('APPROVED'), new Date().toISOString());
      expect(await store.findRequest(request.contractId, request.requestId)).not.toHaveProperty('statusReason');
    });

    it('an unknown request, or one under another contract, fails with no request', async () => {
      const request = await created();
      for (const unknown of [
        { ...request, requestId: timeOrderedUuid() },
        { ...request, contractId: await contract() },
      ]) {
        for (const status of DECISION_STATUSES) {
          expect(await store.applyDecision(decisionOn(unknown, status), moveTo(status), new Date().toISOString())).toEqual({
            kind: 'request-condition-failed',
            request: undefined,
          });
        }
      }
    });

    it.each(['COMPLETED', 'REJECTED'] as const)(
      '%s when the slot names another request, or none: the slot fails, naming what it holds, and nothing moves',
      async (status) => {
        const request = await created();
        const other = { requestId: timeOrderedUuid(), requestNumber: newRequestNumber(), customerId: ANNA };
        await subject.setSlot(request.contractId, other);
        expect(await store.applyDecision(decisionOn(request, status), moveTo(status), new Date().toISOString())).toEqual({
          kind: 'slot-condition-failed',
          slotRequestId: other.requestId,
        });
        await subject.setSlot(request.contractId, undefined);
        expect(await store.applyDecision(decisionOn(request, status), moveTo(status), new Date().toISOString())).toEqual({
          kind: 'slot-condition-failed',
          slotRequestId: undefined,
        });
        expect(await store.findRequest(request.contractId, request.requestId)).toMatchObject({ status: 'SUBMITTED' });
      },
    );
  });

  describe(`${name}: a withdrawal`, () => {
    it.each([...WITHDRAWABLE_STATUSES])(
      'of its own request in %s: WITHDRAWN, its words gone, the contract free, the key bound',
      async (from) => {
        const request = await requestIn(from);
        const intent = withdrawalOf(request);
        expect(await store.withdraw(intent, nowSeconds())).toEqual({ kind: 'withdrawn' });
        expect(await store.findRequest(request.contractId, request.requestId)).toMatchObject({ status: 'WITHDRAWN' });
        expect(await store.findRequest(request.contractId, request.requestId)).not.toHaveProperty('statusReason');
        expect(await store.withdraw(later(intent, { fingerprint: 'another call' }), nowSeconds())).toEqual({
          kind: 'key-taken',
          record: { fingerprint: intent.fingerprint, response: intent.response },
        });
        expect(await slotIsFree(request.contractId)).toBe(true);
      },
    );

    it.each(STATUSES.filter((status) => !WITHDRAWABLE_STATUSES.includes(status)))(
      'of a request in %s: the request fails, as it is',
      async (from) => {
        const request = await requestIn(from);
        expect(await store.withdraw(withdrawalOf(request), nowSeconds())).toEqual({
          kind: 'request-condition-failed',
          request: { customerId: ANNA, status: from, statusReason: undefined, decisionIds: expect.any(Array) },
        });
      },
    );

    it("of another customer's request: the request fails, naming its customer; of none: no request", async () => {
      const request = await created();
      expect(await store.withdraw(withdrawalOf(request, { customerId: BORIS }), nowSeconds())).toEqual({
        kind: 'request-condition-failed',
        request: { customerId: ANNA, status: 'SUBMITTED', statusReason: undefined, decisionIds: [] },
      });
      expect(await store.withdraw(withdrawalOf({ ...request, requestId: timeOrderedUuid() }), nowSeconds())).toEqual({
        kind: 'request-condition-failed',
        request: undefined,
      });
      expect(await store.findRequest(request.contractId, request.requestId)).toMatchObject({ status: 'SUBMITTED' });
    });

    it('a withdrawal key past its expiresAt may be taken again', async () => {
      const request = await created();
      const intent = withdrawalOf(request, { expiresAt: nowSeconds() + 10 });
      await store.withdraw(intent, nowSeconds());
      const other = await created();
      const reuse = withdrawalOf(other, { idempotencyKey: intent.idempotencyKey });
      expect(await store.withdraw(reuse, intent.expiresAt - 1)).toMatchObject({ kind: 'key-taken' });
      expect(await store.withdraw(reuse, intent.expiresAt)).toEqual({ kind: 'withdrawn' });
    });

    it('the key comes first: a key in use answers with its record, whatever the request', async () => {
      const request = await created();
      const intent = withdrawalOf(request);
      await store.withdraw(intent, nowSeconds());
      expect(await store.withdraw(later(intent, { requestId: timeOrderedUuid(), fingerprint: 'x' }), nowSeconds())).toMatchObject({
        kind: 'key-taken',
        record: { fingerprint: intent.fingerprint },
      });
    });

    it('when the slot names another request: the slot fails, naming it, and nothing moves', async () => {
      const request = await created();
      const other = { requestId: timeOrderedUuid(), requestNumber: newRequestNumber(), customerId: ANNA };
      await subject.setSlot(request.contractId, other);
      const intent = withdrawalOf(request);
      expect(await store.withdraw(intent, nowSeconds())).toEqual({ kind: 'slot-condition-failed', slotRequestId: other.requestId });
      expect(await store.findRequest(request.contractId, request.requestId)).toMatchObject({ status: 'SUBMITTED' });
      expect(await store.withdraw(later(intent, { fingerprint: 'x' }), nowSeconds())).not.toMatchObject({ kind: 'key-taken' });
    });
  });
}
