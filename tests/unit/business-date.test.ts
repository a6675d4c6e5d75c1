import { describe, expect, it } from 'vitest';
import { businessToday, isBeforeBusinessToday } from '../../lib/termination/business-date';

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

describe('isBeforeBusinessToday', () => {
  const zones = ['Europe/Moscow', 'Pacific/Kiritimati', 'Etc/GMT+12', 'UTC', 'Asia/Kolkata'];
  const instants = [
    '2026-11-21T00:00:00Z',
    '2026-11-21T09:59:59Z',
    '2026-11-21T10:00:00Z',
    '2026-11-21T12:00:00Z',
    '2026-11-21T23:59:59Z',
    '2024-02-28T23:30:00Z',
  ];

  it('agrees with the zone-by-zone answer for every date within three days of now, in every zone', () => {
    for (const zone of zones) {
      for (const iso of instants) {
        const now = new Date(iso);
        for (let days = -3; days <= 3; days++) {
          const date = new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);
          expect(isBeforeBusinessToday(date, zone, now), `${date} in ${zone} at ${iso}`).toBe(date < businessToday(zone, now));
        }
      }
    }
  });

  it('answers far dates without a time zone at all', () => {
    expect(isBeforeBusinessToday('2030-01-01', 'Not/AZone', new Date('2026-11-21T12:00:00Z'))).toBe(false);
    expect(isBeforeBusinessToday('2020-01-01', 'Not/AZone', new Date('2026-11-21T12:00:00Z'))).toBe(true);
  });
});
