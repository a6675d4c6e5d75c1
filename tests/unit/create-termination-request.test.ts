import { randomUUID } from 'node:crypto';
import { directContext } from '../support/call-context';
import { describe, expect, it } from 'vitest';
import { createTerminationRequest, type CreateDeps, type CreateOutcome } from '../../lib/termination/create-termination-request';
import type { IdempotencyRecord, NewRequest, WriteOutcome } from '../../lib/termination/ports/store';
import { validBody } from '../support/bodies';

/*
 * What the create makes of the facts its store reports (docs/decisions/0005-one-atomic-write.md,
 * 0007-contracts.md): the store only says which condition failed and with what item; the rules
 * that turn that into a replay, a refusal or another attempt are the use case's. A store answering
 * what a test needs shows the races a real DynamoDB shows only by chance (the integration tests
 * send real writes).
 */

const ANNA = 'customer-anna';
const CONTRACT_ID = 'a1a1a1a1-0000-4000-8000-00000000000a';
const DESIRED = '2045-06-30';
const BODY = validBody({ desiredTerminationDate: DESIRED });

function depsAnswering(...answers: WriteOutcome[]): CreateDeps & { seen: NewRequest[] } {
  const seen: NewRequest[] = [];
  return {
    seen,
    store: {
      create: (request) => {
        seen.push(request);
        const answer = answers.shift();
        if (answer === undefined) throw new Error('no more answers');
        return Promise.resolve(answer);
      },
      findIdempotencyRecord: () => Promise.reject(new Error('not asked here')),
    },
    businessTimeZone: 'Europe/Moscow',
    idempotencyTtlSeconds: 3600,
    requestLimit: { count: 5, periodDays: 30 },
    budgetMs: 2000,
    now: () => new Date('2026-11-24T09:00:00Z'),
  };
}

const create = (deps: CreateDeps, idempotencyKey = randomUUID()) =>
  createTerminationRequest(deps, {
    customerId: ANNA,
    contractId: CONTRACT_ID,
    idempotencyKey,
    body: BODY,
    context: directContext(),
  });

const codeOf = (outcome: CreateOutcome): string => (outcome.kind === 'refused' ? outcome.refusal.code : outcome.kind);

const contractFailed = (contract: Record<string, unknown> | undefined, readAfter = false): WriteOutcome => ({
  kind: 'contract-condition-failed',
  contract,
  readAfter,
});

describe('the create: what the write is handed', () => {
  it("hands the store the contract's condition: the caller's, ACTIVE, an end date from the desired date to 2999-12-31", async () => {
    const deps = depsAnswering({ kind: 'created' });
    expect(codeOf(await create(deps))).toBe('created');
    expect(deps.seen[0]?.contract).toEqual({ customerId: ANNA, status: 'ACTIVE', earliestEndDate: DESIRED, latestEndDate: '2999-12-31' });
  });
});

describe('the create: its clock', () => {
  it("stamps createdAt with the injected clock, as the withdrawal stamps withdrawnAt: the stored request's and the answer's", async () => {
    const deps = depsAnswering({ kind: 'created' });
    const outcome = await create(deps);
    expect(outcome).toMatchObject({ kind: 'created', request: { createdAt: '2026-11-24T09:00:00.000Z' } });
    expect(deps.seen[0]?.response.createdAt).toBe('2026-11-24T09:00:00.000Z');
  });
});

describe('the create: what a refused write means', () => {
  it('a key bound to this very call replays it; bound to another call, 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const first = depsAnswering({ kind: 'created' });
    const created = await create(first);
    const request = first.seen[0];
    if (created.kind !== 'created' || request === undefined) throw new Error('expected a creation');
    const record: IdempotencyRecord = {
      fingerprint: request.fingerprint,
      requestId: request.requestId,
      response: created.request,
      expiresAt: 0,
    };
    expect(await create(depsAnswering({ kind: 'key-taken', record }))).toEqual({ ...created, kind: 'replayed' });
    expect(codeOf(await create(depsAnswering({ kind: 'key-taken', record: { ...record, fingerprint: 'another call' } })))).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it.each([
    ['no contract', undefined, 'CONTRACT_NOT_FOUND'],
    ["another customer's, closed as well", { customerId: 'customer-boris', status: 'CLOSED' }, 'CONTRACT_ACCESS_DENIED'],
    ['closed, its end date passed as well', { customerId: ANNA, status: 'CLOSED', endDate: '2030-01-01' }, 'CONTRACT_NOT_ACTIVE'],
    [
      'ending before the desired date',
      { customerId: ANNA, status: 'ACTIVE', endDate: '2030-01-01' },
      'TERMINATION_DATE_AFTER_CONTRACT_END',
    ],
  ])('the contract refused, %s: %s', async (_title, contract, code) => {
    expect(codeOf(await create(depsAnswering(contractFailed(contract && { contractId: CONTRACT_ID, ...contract }))))).toBe(code);
  });

  it("names the contract's end date in the problem of TERMINATION_DATE_AFTER_CONTRACT_END", async () => {
    const outcome = await create(depsAnswering(contractFailed({ customerId: ANNA, status: 'ACTIVE', endDate: '2030-01-01' })));
    expect(outcome).toMatchObject({ refusal: { problems: [{ field: 'desiredTerminationDate', endDate: '2030-01-01' }] } });
  });

  it.each([
    ['a status that is not text', { customerId: ANNA, status: 7 }, 'status is not a string'],
    ['an end date written 31.12.2045', { customerId: ANNA, status: 'ACTIVE', endDate: '31.12.2045' }, 'endDate is not a YYYY-MM-DD date'],
    ['an end date after 2999-12-31', { customerId: ANNA, status: 'ACTIVE', endDate: '3000-01-01' }, 'endDate is after 2999-12-31'],
  ])('a contract with %s is malformed: thrown (a 500), never compared', async (_title, contract, problem) => {
    await expect(create(depsAnswering(contractFailed({ contractId: CONTRACT_ID, ...contract })))).rejects.toThrow(problem);
  });

  it('the slot held by a request of the caller: 409 naming its number', async () => {
    const outcome = await create(depsAnswering({ kind: 'slot-taken', holder: { requestNumber: 'TR-ABCD-EFGH', customerId: ANNA } }));
    expect(outcome).toMatchObject({
      kind: 'refused',
      refusal: {
        code: 'ACTIVE_REQUEST_ALREADY_EXISTS',
        requestNumber: 'TR-ABCD-EFGH',
        problems: [{ field: 'contractId', code: 'activeRequestExists', requestNumber: 'TR-ABCD-EFGH' }],
      },
    });
  });

  it.each<[string, WriteOutcome]>([
    ['a key gone by the read after', { kind: 'key-taken', record: undefined }],
    ['a contract fine by the read after', contractFailed({ customerId: ANNA, status: 'ACTIVE' }, true)],
    ['a slot free by the read after', { kind: 'slot-taken', holder: undefined }],
    ['another write in the way', { kind: 'conflict' }],
    ['a request number taken', { kind: 'number-taken' }],
  ])('%s: writes again, and then creates', async (_title, answer) => {
    const deps = depsAnswering(answer, { kind: 'created' });
    expect(codeOf(await create(deps))).toBe('created');
    expect(deps.seen).toHaveLength(2);
  });

  it('a request number taken: the next attempt draws another number and another request id', async () => {
    const deps = depsAnswering({ kind: 'number-taken' }, { kind: 'created' });
    await create(deps);
    const [first, second] = deps.seen;
    expect(second?.requestNumber).not.toBe(first?.requestNumber);
    expect(second?.requestId).not.toBe(first?.requestId);
  });
});
