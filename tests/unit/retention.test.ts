import { describe, expect, it } from 'vitest';
import { retainedUntil, type RetentionRule } from '../../lib/termination/retention';

/*
 * How long a final request is kept (docs/decisions/0024-retention-by-calendar-year.md): to the end
 * of the calendar year, in the business time zone, in which it became final, plus whole years.
 */

const moscowYears = (years: number): RetentionRule => ({ kind: 'calendar-years', years, timeZone: 'Europe/Moscow' });
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const until = (finalAt: string, rule: RetentionRule) => iso(retainedUntil(new Date(finalAt), rule));

describe('the calendar-year rule', () => {
  it('keeps a request completed on 27 Nov 2026 to the end of 2031 in Moscow, not 1,827 days (28 Nov 2031)', () => {
    // 1 Jan 2032 00:00 in Moscow (UTC+3) is 31 Dec 2031 21:00 UTC.
    expect(until('2026-11-27T12:00:00+03:00', moscowYears(5))).toBe('2031-12-31T21:00:00.000Z');
  });

  it("counts the year where the bank is: 31 Dec 2026 23:30 in Moscow is 2026's, 1 Jan 2027 00:30 in Moscow is 2027's though UTC still says 2026", () => {
    expect(until('2026-12-31T23:30:00+03:00', moscowYears(5))).toBe('2031-12-31T21:00:00.000Z');
    expect(until('2027-01-01T00:30:00+03:00', moscowYears(5))).toBe('2032-12-31T21:00:00.000Z');
    // The first instant of 2027 in Moscow starts the next year's count; the last of 2026 does not.
    expect(until('2026-12-31T21:00:00.000Z', moscowYears(5))).toBe('2032-12-31T21:00:00.000Z');
    expect(until('2026-12-31T20:59:59.999Z', moscowYears(5))).toBe('2031-12-31T21:00:00.000Z');
  });

  it('is the same whichever day of the year, leap days included: 1 Jan, 29 Feb and 31 Dec of 2028', () => {
    for (const finalAt of ['2028-01-01T00:00:00+03:00', '2028-02-29T12:00:00+03:00', '2028-12-31T23:59:59+03:00'])
      expect(until(finalAt, moscowYears(5))).toBe('2033-12-31T21:00:00.000Z');
  });

  it('never ends before the whole years have passed from the final moment, in any zone', () => {
    for (const timeZone of ['Europe/Moscow', 'Asia/Kamchatka', 'Europe/Kaliningrad', 'America/New_York', 'UTC']) {
      for (const finalAt of ['2026-01-01T00:00:00Z', '2027-12-31T23:59:59Z', '2028-02-29T00:00:00Z', '2026-07-15T09:00:00Z']) {
        const rule: RetentionRule = { kind: 'calendar-years', years: 5, timeZone };
        const final = new Date(finalAt);
        const fiveYearsOn = Date.UTC(final.getUTCFullYear() + 5, final.getUTCMonth(), final.getUTCDate()) / 1000;
        expect(retainedUntil(final, rule), `${finalAt} in ${timeZone}`).toBeGreaterThanOrEqual(fiveYearsOn);
        // ...and never more than a year and a day past that.
        expect(retainedUntil(final, rule) - fiveYearsOn, `${finalAt} in ${timeZone}`).toBeLessThanOrEqual(367 * 86_400);
      }
    }
  });

  it("ends at the zone's own midnight, with the offset in force then (New York in winter: UTC-5)", () => {
    expect(until('2026-06-01T12:00:00Z', { kind: 'calendar-years', years: 5, timeZone: 'America/New_York' })).toBe(
      '2032-01-01T05:00:00.000Z',
    );
    expect(until('2026-06-01T12:00:00Z', { kind: 'calendar-years', years: 1, timeZone: 'UTC' })).toBe('2028-01-01T00:00:00.000Z');
  });
});

describe("a test stage's days", () => {
  it('count from the final moment itself', () => {
    expect(until('2026-11-27T12:00:00Z', { kind: 'days', days: 2 })).toBe('2026-11-29T12:00:00.000Z');
  });
});
