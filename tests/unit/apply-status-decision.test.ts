import { LOCAL_ACCOUNT_ID } from '../../scripts/local/template-patterns';
import { describe, expect, it } from 'vitest';
import { applyStatusDecision, DecisionContendedError, type DecisionDeps } from '../../lib/termination/apply-status-decision';
import type { DecisionWriteOutcome, RequestState, StatusMove } from '../../lib/termination/ports/store';
import type { Decision } from '../../lib/termination/ports/decision';
import { DECISION_SIGNED_FIELDS, DECISION_STATUSES, statusDecisionSchema } from '../../lib/api-model/event-schemas';
import { STATUSES, type Status } from '../../lib/api-model/schemas';
import {
  decisionEvent,
  DECISION_DETAIL_TYPE,
  LOCAL_BACK_OFFICE_KEY,
  LOCAL_DECISION_SOURCE,
  type DecisionOptions,
} from '../../scripts/local/decision-event';
import { makeSigningKey } from '../../scripts/local/signing-key';
import { signatureCheckWith } from '../support/decision-signatures';

/*
 * The use case with a store that answers what a test needs: contention and refusals are faults a
 * real DynamoDB shows only by chance (the integration tests apply real decisions).
 */

const REQUEST_ID = '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01';
const CONTRACT_ID = 'a1a1a1a1-0000-4000-8000-000000000001';

type DecisionStatus = Decision['status'];

/** The retention the consumer is configured with: five years after the year's end in Moscow. */
const RETENTION = { kind: 'calendar-years', years: 5, timeZone: 'Europe/Moscow' } as const;
/** A request made final on 23 Nov 2026 is kept to the end of 2031, Moscow time (UTC+3). */
const RETAIN_UNTIL = Date.parse('2031-12-31T21:00:00.000Z') / 1000;

/** What the store reports when the request's condition refused the write: the request in `status`. */
const refusedBy = (status: Status, fields: Partial<RequestState> = {}): DecisionWriteOutcome => ({
  kind: 'request-condition-failed',
  request: { customerId: 'customer-anna', status, statusReason: undefined, decisionIds: [], ...fields },
});

function depsAnswering(...answers: DecisionWriteOutcome[]): DecisionDeps & { seen: Decision[]; moves: StatusMove[] } {
  const seen: Decision[] = [];
  const moves: StatusMove[] = [];
  return {
    seen,
    moves,
    store: {
      applyDecision: (decision, move) => {
        seen.push(decision);
        moves.push(move);
        const answer = answers.shift();
        if (answer === undefined) throw new Error('no more answers');
        return Promise.resolve(answer);
      },
    },
    expected: { source: LOCAL_DECISION_SOURCE, detailType: DECISION_DETAIL_TYPE, account: LOCAL_ACCOUNT_ID },
    checkSignature,
    now: () => new Date('2026-11-23T10:00:00.000Z'),
    retention: RETENTION,
    maxAttempts: 3,
  };
}

const checkSignature = signatureCheckWith();

/** A decision the back office signed, as the use case takes it. */
const eventOf = (options: Partial<DecisionOptions> = {}) => {
  const event = decisionEvent({
    requestId: REQUEST_ID.toUpperCase(),
    contractId: CONTRACT_ID.toUpperCase(),
    status: 'REJECTED',
    ...options,
  });
  return { source: event.source, detailType: event['detail-type'], account: event.account, detail: event.detail };
};

describe('applyStatusDecision', () => {
  it('applies a decision with lower-cased ids and a UTC time', async () => {
    const deps = depsAnswering({ kind: 'applied' });
    const outcome = await applyStatusDecision(deps, eventOf({ occurredAt: '2026-11-23T13:00:00+03:00', reason: 'Unpaid balance' }));
    expect(outcome.kind).toBe('applied');
    expect(deps.seen[0]).toMatchObject({
      requestId: REQUEST_ID,
      contractId: CONTRACT_ID,
      occurredAt: '2026-11-23T10:00:00.000Z',
      reason: 'Unpaid balance',
    });
  });

  it('tries again while a concurrent writer wins, then decides', async () => {
    const deps = depsAnswering({ kind: 'conflict' }, refusedBy('IN_REVIEW'), refusedBy('REJECTED'));
    expect(await applyStatusDecision(deps, eventOf())).toMatchObject({ kind: 'duplicate', current: 'REJECTED' });
    expect(deps.seen).toHaveLength(3);
  });

  it('throws when contention outlasts its attempts: the invocation is retried, nothing is refused', async () => {
    const deps = depsAnswering({ kind: 'conflict' }, { kind: 'conflict' }, refusedBy('SUBMITTED'));
    await expect(applyStatusDecision(deps, eventOf())).rejects.toBeInstanceOf(DecisionContendedError);
    expect(deps.seen).toHaveLength(3);
  });

  it('hands the store the move the lifecycle allows: from the statuses before it, freeing the slot when final', async () => {
    const deps = depsAnswering({ kind: 'applied' });
    await applyStatusDecision(deps, eventOf());
    expect(deps.moves).toEqual([{ from: ['SUBMITTED', 'IN_REVIEW'], freesSlot: true, retainUntil: RETAIN_UNTIL }]);
  });

  it.each<[DecisionStatus, boolean]>([
    ['IN_REVIEW', false],
    ['APPROVED', false],
    ['COMPLETED', true],
    ['REJECTED', true],
  ])('%s starts the retention period in its own write: %s', async (status, final) => {
    const deps = depsAnswering({ kind: 'applied' });
    await applyStatusDecision(deps, eventOf({ status }));
    expect(deps.moves[0]?.retainUntil).toBe(final ? RETAIN_UNTIL : undefined);
  });

  it.each([
    ['a move back', refusedBy('COMPLETED'), 'forbidden-transition', 'COMPLETED may not move to REJECTED'],
    [
      'the same status with other words',
      refusedBy('REJECTED', { statusReason: 'Another reason' }),
      'forbidden-transition',
      'already REJECTED, with other words for the customer: a decision is not changed',
    ],
    ['no request', { kind: 'request-condition-failed', request: undefined }, 'unknown-request', 'no such request on that contract'],
    [
      'a slot naming another request',
      { kind: 'slot-condition-failed', slotRequestId: 'x' },
      'slot-mismatch',
      "the contract's active slot names x",
    ],
    [
      'a slot naming none',
      { kind: 'slot-condition-failed', slotRequestId: undefined },
      'slot-mismatch',
      "the contract's active slot names no request",
    ],
  ] satisfies [string, DecisionWriteOutcome, string, string][])('%s: refused with its reason', async (_title, answer, refusal, problem) => {
    expect(await applyStatusDecision(depsAnswering(answer), eventOf())).toMatchObject({ kind: 'refused', refusal, problems: [problem] });
  });
  it.each([
    ['a year 0 with an offset', '0000-01-01T00:00:00+01:00'],
    ['a year past 9999 once in UTC', '9999-12-31T23:59:59-23:59'],
    ['a leap second', '2026-12-31T23:59:60Z'],
    ['the last century', '1999-12-31T23:59:59Z'],
  ])('refuses %s as occurredAt before writing anything', async (_title, occurredAt) => {
    const deps = depsAnswering({ kind: 'applied' });
    expect(await applyStatusDecision(deps, eventOf({ occurredAt }))).toMatchObject({ kind: 'refused', refusal: 'malformed-detail' });
    expect(deps.seen).toEqual([]);
  });

  it.each([
    ['a tag', 'Call us <img src=x onerror=alert(1)>'],
    ['a closing tag', 'Thanks</p>'],
    ['a comment', 'Thanks<!-- x -->'],
    ['a processing instruction', '<?xml version="1.0"?>'],
    ['a tag after a line break', 'Line one\n<script>'],
    ['1001 characters', 'a'.repeat(1001)],
  ])('refuses a reason with %s: the customer reads plain text only', async (_title, reason) => {
    const deps = depsAnswering({ kind: 'applied' });
    expect(await applyStatusDecision(deps, eventOf({ reason }))).toMatchObject({ kind: 'refused', refusal: 'malformed-detail' });
    expect(deps.seen).toEqual([]);
  });

  it.each([['a < b'], ['<3 from the bank'], ['Line one\nLine two'], ['x'.repeat(1000)]])(
    'accepts the plain-text reason %j',
    async (reason) => {
      const deps = depsAnswering({ kind: 'applied' });
      expect((await applyStatusDecision(deps, eventOf({ reason }))).kind).toBe('applied');
    },
  );

  it('refuses another source or detail-type before reading the detail', async () => {
    const deps = depsAnswering({ kind: 'applied' });
    expect(await applyStatusDecision(deps, { ...eventOf(), source: 'bank.contract-termination' })).toMatchObject({
      refusal: 'unexpected-event',
    });
    expect(await applyStatusDecision(deps, { ...eventOf(), detailType: 'Other' })).toMatchObject({ refusal: 'unexpected-event' });
    expect(deps.seen).toEqual([]);
  });

  it("refuses a decision from any account but the back office's, whatever path brought it", async () => {
    const deps = depsAnswering({ kind: 'applied' });
    for (const account of ['999999999999', undefined, '']) {
      expect(await applyStatusDecision(deps, { ...eventOf(), account })).toEqual({
        kind: 'refused',
        refusal: 'unexpected-event',
        problems: [`expected source ${LOCAL_DECISION_SOURCE}, detail-type ${DECISION_DETAIL_TYPE} and account ${LOCAL_ACCOUNT_ID}`],
      });
    }
    expect(deps.seen).toEqual([]);
  });
});

describe('the back office signs every decision, whatever path brought it (0017-lifecycle.md)', () => {
  /** The outcome, and whether the store was asked to write anything. */
  const judge = async (event: ReturnType<typeof eventOf>, check = checkSignature) => {
    const deps = { ...depsAnswering({ kind: 'applied' }), checkSignature: check };
    const outcome = await applyStatusDecision(deps, event);
    return { outcome, wrote: deps.seen.length > 0 };
  };
  const withDetail = (event: ReturnType<typeof eventOf>, detail: Record<string, unknown>) => ({
    ...event,
    detail: { ...event.detail, ...detail },
  });
  const refusedFor = (problem: string | RegExp) => ({
    outcome: {
      kind: 'refused',
      refusal: 'unauthenticated',
      problems: [typeof problem === 'string' ? problem : expect.stringMatching(problem)],
    },
    wrote: false,
  });

  it('applies a decision signed by the back office over exactly its fields', async () => {
    expect(await judge(eventOf({ reason: 'Unpaid balance' }))).toMatchObject({ outcome: { kind: 'applied' }, wrote: true });
  });

  it('refuses an unsigned decision, moving nothing', async () => {
    expect(await judge(withDetail(eventOf(), { signature: undefined }))).toEqual(
      refusedFor('no signature: the back office signs every decision'),
    );
    expect(await judge(withDetail(eventOf(), { signature: '' }))).toEqual(refusedFor('no signature: the back office signs every decision'));
  });

  it('refuses a decision signed with another key, even under the back office key id', async () => {
    const impostor = makeSigningKey(LOCAL_BACK_OFFICE_KEY.kid);
    expect(await judge(eventOf({ signature: { key: impostor } }))).toEqual(refusedFor(/^signature: .*signature/i));
    expect(await judge(eventOf({ signature: { key: makeSigningKey('another-kid') } }))).toEqual(refusedFor(/^signature: .*not found/));
  });

  it("refuses a genuine signature over another request: it names the field, never the customer's words", async () => {
    const same = { eventId: 'bo-000187', occurredAt: '2026-11-23T10:00:00Z' };
    const genuine = eventOf({ ...same, requestId: '0190f5a2-0000-7000-8000-000000000000' });
    const forged = withDetail(eventOf(same), { signature: genuine.detail.signature });
    expect(await judge(forged)).toEqual(refusedFor("the signature does not cover this decision's requestId"));
    // The signature of another decision altogether: every field that differs is named.
    expect(
      await judge(withDetail(eventOf({ ...same, reason: 'x' }), { signature: eventOf({ status: 'IN_REVIEW' }).detail.signature })),
    ).toEqual(refusedFor("the signature does not cover this decision's eventId, status, reason, occurredAt"));
  });

  it('refuses a signed decision whose fields were changed or added after signing: the reason, the status', async () => {
    const signed = eventOf({ reason: 'Unpaid balance' });
    expect(await judge(withDetail(signed, { reason: 'Call us on +7 495 000 00 00' }))).toEqual(
      refusedFor("the signature does not cover this decision's reason"),
    );
    expect(await judge(withDetail(signed, { reason: undefined }))).toEqual(
      refusedFor("the signature does not cover this decision's reason"),
    );
    expect(await judge(withDetail(eventOf(), { reason: 'Added' }))).toEqual(
      refusedFor("the signature does not cover this decision's reason"),
    );
    expect(await judge(withDetail(signed, { status: 'COMPLETED' }))).toEqual(
      refusedFor("the signature does not cover this decision's status"),
    );
  });

  it.each([
    ['another issuer', { claims: { iss: 'bank.someone-else' } }, /iss is not the configured issuer/],
    ['an exp, which a redrive could outlast', { claims: { exp: Math.floor(Date.now() / 1000) + 86_400 } }, /exp is not allowed/],
    ['no iat', { claims: { iat: undefined } }, /no iat/],
    ['an iat in the future', { issuedAt: new Date(Date.now() + 600_000) }, /iat in the future/],
    ['HS256', { header: { alg: 'HS256' } }, /alg/],
    ['a crit header', { header: { crit: ['b64'] } }, /crit/],
  ])('refuses a signature with %s', async (_title, signature, problem) => {
    expect(await judge(eventOf({ signature }))).toEqual(refusedFor(problem));
  });

  it("takes a signature made 14 days ago, the dead-letter queue's retention: no age bound a redrive could outlast", async () => {
    const old = new Date(Date.now() - 14 * 86_400_000);
    expect(await judge(eventOf({ occurredAt: old.toISOString(), signature: { issuedAt: old } }))).toMatchObject({
      outcome: { kind: 'applied' },
    });
  });

  it("throws, refusing nothing, when the back office's keys cannot be had: Lambda tries the decision again", async () => {
    const outage = () => Promise.reject(new Error('JWKS unreachable'));
    const deps = { ...depsAnswering({ kind: 'applied' }), checkSignature: outage };
    await expect(applyStatusDecision(deps, eventOf())).rejects.toThrow('JWKS unreachable');
    expect(deps.seen).toEqual([]);
  });

  it('signs every field of the detail but the signature', () => {
    const fields = Object.keys(statusDecisionSchema.properties).filter((field) => field !== 'signature');
    expect([...DECISION_SIGNED_FIELDS].sort()).toEqual(fields.sort());
  });
});

describe('what a refused decision means (0017-lifecycle.md), from the request as the write found it', () => {
  const REASON = 'Unpaid balance';
  const EVENT_ID = 'bo-rejected-000187';
  /** The first answer's meaning: the outcome, or `retried` when the use case wrote again. */
  const decide = async (status: DecisionStatus, answer: DecisionWriteOutcome, reason?: string) => {
    const deps = depsAnswering(answer, { kind: 'applied' });
    const outcome = await applyStatusDecision(deps, eventOf({ status, eventId: EVENT_ID, ...(reason === undefined ? {} : { reason }) }));
    return deps.seen.length > 1 ? 'retried' : outcome.kind === 'refused' ? outcome.refusal : outcome.kind;
  };

  const table = STATUSES.flatMap((current) => DECISION_STATUSES.map((status): [Status, DecisionStatus] => [current, status]));

  it.each(table)('a request in %s refusing %s', async (current, status) => {
    // The allowed moves by hand: what the write's condition lets through (0017-lifecycle.md).
    const allowed: Record<DecisionStatus, Status[]> = {
      IN_REVIEW: ['SUBMITTED'],
      APPROVED: ['SUBMITTED', 'IN_REVIEW'],
      COMPLETED: ['SUBMITTED', 'IN_REVIEW', 'APPROVED'],
      REJECTED: ['SUBMITTED', 'IN_REVIEW'],
    };
    // A status the condition allows: the request moved since the write; look again.
    const expected = current === status ? 'duplicate' : allowed[status].includes(current) ? 'retried' : 'forbidden-transition';
    expect(await decide(status, refusedBy(current))).toBe(expected);
  });

  it('the same status under a new id with the same words: a duplicate; with other words, or none: refused, never applied silently', async () => {
    const rejected = refusedBy('REJECTED', { statusReason: REASON });
    expect(await decide('REJECTED', rejected, REASON)).toBe('duplicate');
    expect(await decide('REJECTED', rejected, 'Another reason')).toBe('forbidden-transition');
    expect(await decide('REJECTED', rejected)).toBe('forbidden-transition');
  });

  it('a decision whose eventId the request applied before: a duplicate, even from a later status', async () => {
    expect(await decide('IN_REVIEW', refusedBy('APPROVED', { decisionIds: [EVENT_ID, 'bo-later'] }))).toBe('duplicate');
    expect(await decide('IN_REVIEW', refusedBy('APPROVED', { decisionIds: [`${EVENT_ID}-2`] }))).toBe('forbidden-transition');
  });
});
