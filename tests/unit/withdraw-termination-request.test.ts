import { randomUUID } from 'node:crypto';
import { directContext } from '../support/call-context';
import { describe, expect, it } from 'vitest';
import type { RequestState, WithdrawalIntent, WithdrawalOutcome } from '../../lib/termination/ports/store';
import { withdrawTerminationRequest, type WithdrawDeps, type WithdrawOutcome } from '../../lib/termination/withdraw-termination-request';
import { WITHDRAWABLE_STATUSES } from '../../lib/termination/lifecycle';
import { STATUSES } from '../../lib/api-model/schemas';

/*
 * What a withdrawal makes of the facts its store reports (docs/decisions/0018-withdrawal.md): the
 * store says which condition failed and with what item; the use case says what that means. A
 * store answering what a test needs shows the races a real DynamoDB shows only by chance (the
 * integration tests send real writes).
 */

const ANNA = 'customer-anna';
const CONTRACT_ID = 'a1a1a1a1-0000-4000-8000-00000000000a';
const REQUEST_ID = '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01';

const ANNAS_CONTRACT = { contractId: CONTRACT_ID, customerId: ANNA };
/** The retention the withdrawal is configured with: five years after the year's end in Moscow. */
const RETENTION = { kind: 'calendar-years', years: 5, timeZone: 'Europe/Moscow' } as const;

/** A store that answers each write in turn, and holds `contract`. */
function depsAnswering(
  answers: WithdrawalOutcome[],
  contract: Record<string, unknown> | undefined = ANNAS_CONTRACT,
): WithdrawDeps & { seen: WithdrawalIntent[] } {
  const seen: WithdrawalIntent[] = [];
  return {
    seen,
    store: {
      withdraw: (intent) => {
        seen.push(intent);
        const answer = answers.shift();
        if (answer === undefined) throw new Error('no more answers');
        return Promise.resolve(answer);
      },
      findContract: () => Promise.resolve(contract),
    },
    idempotencyTtlSeconds: 3600,
    retention: RETENTION,
    budgetMs: 2000,
    now: () => new Date('2026-11-24T09:00:00Z'),
  };
}

const withdraw = (deps: WithdrawDeps) =>
  withdrawTerminationRequest(deps, {
    customerId: ANNA,
    contractId: CONTRACT_ID,
    requestId: REQUEST_ID,
    idempotencyKey: randomUUID(),
    context: directContext(),
  });

const codeOf = (outcome: WithdrawOutcome): string => (outcome.kind === 'refused' ? outcome.refusal.code : outcome.kind);

const requestIn = (status: RequestState['status'], customerId: string | undefined = ANNA): WithdrawalOutcome => ({
  kind: 'request-condition-failed',
  request: { customerId, status, statusReason: undefined, decisionIds: [] },
});

describe('a withdrawal: what the write is handed', () => {
  it('conditions the write on the statuses a request may be withdrawn from (the lifecycle says which: lifecycle.test.ts)', async () => {
    const deps = depsAnswering([{ kind: 'withdrawn' }]);
    expect(codeOf(await withdraw(deps))).toBe('withdrawn');
    expect(deps.seen[0]?.from).toEqual(WITHDRAWABLE_STATUSES);
  });

  it('starts the retention period in the same write: the request may go the retention after its withdrawal', async () => {
    const deps = depsAnswering([{ kind: 'withdrawn' }]);
    await withdraw(deps);
    // Withdrawn on 24 Nov 2026: kept to the end of 2031, Moscow time (UTC+3).
    expect(deps.seen[0]?.retainUntil).toBe(Date.parse('2031-12-31T21:00:00Z') / 1000);
    // The key keeps its own lifetime.
    expect(deps.seen[0]?.expiresAt).toBe(Date.parse('2026-11-24T09:00:00Z') / 1000 + 3600);
  });
});

describe('a withdrawal: what a refused write means', () => {
  it('a key bound to this very call replays its answer; bound to another call, 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const first = depsAnswering([{ kind: 'withdrawn' }]);
    await withdraw(first);
    const intent = first.seen[0];
    if (intent === undefined) throw new Error('expected a write');
    const record = { fingerprint: intent.fingerprint, response: { ...intent.response, message: 'the first answer' } };
    expect(await withdraw(depsAnswering([{ kind: 'key-taken', record }]))).toEqual({
      kind: 'withdrawal-replayed',
      withdrawal: record.response,
    });
    expect(codeOf(await withdraw(depsAnswering([{ kind: 'key-taken', record: { ...record, fingerprint: 'another call' } }])))).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it.each(STATUSES.filter((status) => !WITHDRAWABLE_STATUSES.includes(status)))(
    'a request already %s: 409 naming its status',
    async (status) => {
      expect(await withdraw(depsAnswering([requestIn(status)]))).toEqual({
        kind: 'refused',
        refusal: { code: 'REQUEST_NOT_WITHDRAWABLE', problems: [{ field: 'status', code: 'notWithdrawable', status }] },
      });
    },
  );

  it.each([
    ['no request', { kind: 'request-condition-failed', request: undefined }],
    ["another customer's request", requestIn('SUBMITTED', 'customer-boris')],
  ] satisfies [string, WithdrawalOutcome][])('%s: the contract decides between 404 and 403', async (_title, answer) => {
    expect(codeOf(await withdraw(depsAnswering([answer])))).toBe('TERMINATION_REQUEST_NOT_FOUND');
    expect(codeOf(await withdraw(depsAnswering([answer], { ...ANNAS_CONTRACT, customerId: 'customer-boris' })))).toBe(
      'CONTRACT_ACCESS_DENIED',
    );
    const noContract = depsAnswering([answer]);
    noContract.store = { ...noContract.store, findContract: () => Promise.resolve(undefined) };
    expect(codeOf(await withdraw(noContract))).toBe('CONTRACT_NOT_FOUND');
  });

  it('a slot that does not name the request is broken data: thrown (a 500)', async () => {
    await expect(withdraw(depsAnswering([{ kind: 'slot-condition-failed', slotRequestId: undefined }]))).rejects.toThrow(
      `Malformed slot of contract ${CONTRACT_ID}: does not name active request ${REQUEST_ID}`,
    );
  });

  it.each<[string, WithdrawalOutcome]>([
    ['a key gone by the read after', { kind: 'key-taken', record: undefined }],
    ['a request still withdrawable by the read after', requestIn('IN_REVIEW')],
    ['another write in the way', { kind: 'conflict' }],
  ])('%s: writes again, and then withdraws', async (_title, answer) => {
    const deps = depsAnswering([answer, { kind: 'withdrawn' }]);
    expect(codeOf(await withdraw(deps))).toBe('withdrawn');
    expect(deps.seen).toHaveLength(2);
  });
});
