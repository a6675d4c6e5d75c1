import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  FINAL_STATUSES,
  isFinal,
  mayMove,
  moveTo,
  REJECTABLE_STATUSES,
  statusesBefore,
  WITHDRAWABLE_STATUSES,
} from '../../lib/termination/lifecycle';
import { textsFor } from '../../lib/http/texts';
import { isStatus, STATUSES, type Status } from '../../lib/api-model/schemas';

/** Every move the lifecycle allows, written out by hand: anything not listed is refused. */
const ALLOWED = new Set([
  'SUBMITTED -> IN_REVIEW',
  'SUBMITTED -> APPROVED',
  'SUBMITTED -> COMPLETED',
  'SUBMITTED -> REJECTED',
  'IN_REVIEW -> APPROVED',
  'IN_REVIEW -> COMPLETED',
  'IN_REVIEW -> REJECTED',
  'APPROVED -> COMPLETED',
  'SUBMITTED -> WITHDRAWN',
  'IN_REVIEW -> WITHDRAWN',
]);

const pairs: [Status, Status, boolean][] = STATUSES.flatMap((from) =>
  STATUSES.map((to): [Status, Status, boolean] => [from, to, ALLOWED.has(`${from} -> ${to}`)]),
);

/** The order of the happy path; REJECTED branches off it. */
const ORDER: Status[] = ['SUBMITTED', 'IN_REVIEW', 'APPROVED', 'COMPLETED'];

describe('mayMove', () => {
  it('covers all 36 pairs of statuses, 10 of them allowed', () => {
    expect(pairs).toHaveLength(36);
    expect(pairs.filter(([, , allowed]) => allowed)).toHaveLength(10);
  });

  it.each(pairs)('%s -> %s: %s', (from, to, allowed) => {
    expect(mayMove(from, to)).toBe(allowed);
  });

  it('never moves a request to the status it already has', () => {
    for (const status of STATUSES) expect(mayMove(status, status)).toBe(false);
  });

  it('never moves back along SUBMITTED -> IN_REVIEW -> APPROVED -> COMPLETED, and always forward', () => {
    for (const [i, from] of ORDER.entries()) {
      for (const [j, to] of ORDER.entries()) expect(mayMove(from, to)).toBe(j > i);
    }
  });

  it('leaves COMPLETED, REJECTED and WITHDRAWN for nothing', () => {
    for (const to of STATUSES) {
      expect(mayMove('COMPLETED', to)).toBe(false);
      expect(mayMove('REJECTED', to)).toBe(false);
      expect(mayMove('WITHDRAWN', to)).toBe(false);
    }
  });

  it('rejects only from SUBMITTED or IN_REVIEW, never once APPROVED', () => {
    expect(STATUSES.filter((from) => mayMove(from, 'REJECTED'))).toEqual(['SUBMITTED', 'IN_REVIEW']);
    expect(mayMove('APPROVED', 'REJECTED')).toBe(false);
  });

  it('moves nothing back to SUBMITTED', () => {
    expect(STATUSES.filter((from) => mayMove(from, 'SUBMITTED'))).toEqual([]);
  });

  it('allows no cycle: a chain of allowed moves never meets a status twice', () => {
    const status = fc.constantFrom(...STATUSES);
    fc.assert(
      fc.property(fc.array(status, { maxLength: 12 }), (steps) => {
        const seen: Status[] = ['SUBMITTED'];
        for (const to of steps) {
          const from = seen.at(-1) ?? 'SUBMITTED';
          if (mayMove(from, to)) seen.push(to);
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.length).toBeLessThanOrEqual(4);
      }),
    );
  });
});

describe('statusesBefore', () => {
  it.each<[Status, Status[]]>([
    ['SUBMITTED', []],
    ['IN_REVIEW', ['SUBMITTED']],
    ['APPROVED', ['SUBMITTED', 'IN_REVIEW']],
    ['COMPLETED', ['SUBMITTED', 'IN_REVIEW', 'APPROVED']],
    ['REJECTED', ['SUBMITTED', 'IN_REVIEW']],
  ])('%s may be reached from %j', (to, from) => {
    expect(statusesBefore(to)).toEqual(from);
  });

  it('lists exactly the statuses mayMove allows, in the order of STATUSES', () => {
    for (const to of STATUSES) expect(statusesBefore(to)).toEqual(STATUSES.filter((from) => mayMove(from, to)));
  });

  it('never lists a final status or the target itself', () => {
    for (const to of STATUSES) {
      expect(statusesBefore(to)).not.toContain(to);
      for (const final of FINAL_STATUSES) expect(statusesBefore(to)).not.toContain(final);
    }
  });

  it('returns a fresh array each time: a caller cannot change the next answer', () => {
    const first = statusesBefore('COMPLETED');
    first.length = 0;
    expect(statusesBefore('COMPLETED')).toEqual(['SUBMITTED', 'IN_REVIEW', 'APPROVED']);
  });
});

describe('isFinal', () => {
  it.each<[Status, boolean]>([
    ['SUBMITTED', false],
    ['IN_REVIEW', false],
    ['APPROVED', false],
    ['COMPLETED', true],
    ['REJECTED', true],
  ])('%s is final: %s', (status, final) => {
    expect(isFinal(status)).toBe(final);
  });

  it('names COMPLETED, REJECTED and WITHDRAWN as the final statuses', () => {
    expect([...FINAL_STATUSES].sort()).toEqual(['COMPLETED', 'REJECTED', 'WITHDRAWN']);
  });

  it('lets the customer withdraw only from SUBMITTED or IN_REVIEW (0018-withdrawal.md)', () => {
    expect(STATUSES.filter((from) => mayMove(from, 'WITHDRAWN'))).toEqual(['SUBMITTED', 'IN_REVIEW']);
  });

  it('a final status is one nothing leaves; an active one can still move on', () => {
    for (const from of STATUSES) expect(STATUSES.some((to) => mayMove(from, to))).toBe(!isFinal(from));
  });
});

describe('moveTo', () => {
  it.each<[Status, Status[], boolean]>([
    ['IN_REVIEW', ['SUBMITTED'], false],
    ['APPROVED', ['SUBMITTED', 'IN_REVIEW'], false],
    ['COMPLETED', ['SUBMITTED', 'IN_REVIEW', 'APPROVED'], true],
    ['REJECTED', ['SUBMITTED', 'IN_REVIEW'], true],
    ['WITHDRAWN', ['SUBMITTED', 'IN_REVIEW'], true],
  ])('to %s: the write is conditioned on %j, and frees the contract: %s', (to, from, freesSlot) => {
    expect(moveTo(to)).toEqual({ from, freesSlot });
  });
});

describe('isStatus', () => {
  it.each([...STATUSES])('accepts %s', (status) => {
    expect(isStatus(status)).toBe(true);
  });

  it.each([
    ['lower case', 'submitted'],
    ['padded', ' SUBMITTED'],
    ['unknown', 'CANCELLED'],
    ['empty', ''],
    ['undefined', undefined],
    ['null', null],
    ['a number', 0],
    ['an array', ['SUBMITTED']],
    ['an object', { status: 'SUBMITTED' }],
  ])('refuses %s', (_, value) => {
    expect(isStatus(value)).toBe(false);
  });

  it('accepts no string outside STATUSES', () => {
    const statuses: readonly string[] = STATUSES;
    fc.assert(
      fc.property(
        fc.string().filter((value) => !statuses.includes(value)),
        (value) => {
          expect(isStatus(value)).toBe(false);
        },
      ),
    );
  });
});

describe('the statuses a customer may withdraw from: one list, in lifecycle.ts', () => {
  /** The statuses a sentence names, in its order. */
  const named = (sentence: string | undefined) => (sentence ?? '').match(new RegExp(`\\b(${STATUSES.join('|')})\\b`, 'g')) ?? [];

  it('the back office rejects from its own list, the customer withdraws from theirs', () => {
    expect(STATUSES.filter((from) => mayMove(from, 'REJECTED'))).toEqual(REJECTABLE_STATUSES);
    expect(STATUSES.filter((from) => mayMove(from, 'WITHDRAWN'))).toEqual(WITHDRAWABLE_STATUSES);
  });

  it('the refusal of a withdrawal names them, in both languages', () => {
    for (const language of ['en', 'ru'] as const) {
      const text = textsFor(language).problem({ field: 'status', code: 'notWithdrawable', status: 'APPROVED' });
      expect(named(text).slice(1)).toEqual(WITHDRAWABLE_STATUSES);
    }
  });
});
