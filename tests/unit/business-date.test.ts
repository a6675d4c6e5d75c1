import { describe, expect, it } from 'vitest';
import { businessToday } from '../../lib/termination/business-date';

describe('businessToday', () => {
  it.each([
    ['2026-11-21T20:59:59.999Z', '2026-11-21'],
    ['2026-11-21T21:00:00.000Z', '2026-11-22'],
    ['2026-11-21T21:30:00Z', '2026-11-22'],
    ['2026-11-21T23:59:59Z', '2026-11-22'],
    ['2026-11-22T00:00:00Z', '2026-11-22'],
    ['2026-11-22T20:59:59Z', '2026-11-22'],
    ['2026-12-31T21:00:00Z', '2027-01-01'],
    ['2028-02-28T21:00:00Z', '2028-02-29'],
    ['2026-06-30T22:00:00Z', '2026-07-01'],
  ])('at %s it is %s in Europe/Moscow', (instant, expected) => {
    expect(businessToday('Europe/Moscow', new Date(instant))).toBe(expected);
  });

  it('depends on the time zone', () => {
    const now = new Date('2026-11-21T21:30:00Z');
    expect(businessToday('UTC', now)).toBe('2026-11-21');
    expect(businessToday('America/New_York', now)).toBe('2026-11-21');
    expect(businessToday('Asia/Vladivostok', now)).toBe('2026-11-22');
    expect(businessToday('Pacific/Kiritimati', new Date('2026-11-21T09:59:00Z'))).toBe('2026-11-21');
    expect(businessToday('Pacific/Kiritimati', new Date('2026-11-21T10:00:00Z'))).toBe('2026-11-22');
  });

  it('always gives YYYY-MM-DD with zero padding', () => {
    expect(businessToday('Europe/Moscow', new Date('2027-01-04T12:00:00Z'))).toBe('2027-01-04');
    expect(businessToday('Europe/Moscow', new Date('2026-09-09T00:00:00Z'))).toBe('2026-09-09');
  });

  it('defaults to the current time', () => {
    const before = new Date().toISOString().slice(0, 10);
    const today = businessToday('UTC');
    const after = new Date().toISOString().slice(0, 10);
    expect([before, after]).toContain(today);
  });

  it('throws on an unknown time zone', () => {
    expect(() => businessToday('Mars/Olympus_Mons', new Date())).toThrow(RangeError);
  });
});
