import { SECONDS_PER_DAY } from '../time';

/*
 * How long a request's personal data is kept (docs/decisions/0024-retention-by-calendar-year.md):
 * until the end of the calendar year, in the business time zone, in which the request became
 * final, plus a number of whole years, as the records laws count (402-FZ art. 29). The write that
 * makes it final sets the time on the request item, and DynamoDB's TTL deletes the item after it.
 * A request still active has none: it never expires. A test stage may instead keep a final
 * request a number of days from the moment it became final, to watch expiry happen.
 */

/** The records laws' five years (402-FZ art. 29, 115-FZ art. 7): the fewest a production stage may keep. */
export const LEGAL_MINIMUM_YEARS = 5;

export type RetentionRule =
  /** Until the end of the final moment's calendar year in `timeZone`, then `years` whole years. */
  | { kind: 'calendar-years'; years: number; timeZone: string }
  /** `days` days from the final moment: for dev and local stages only (the packaging refuses it on prod). */
  | { kind: 'days'; days: number };

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of `at` in `timeZone`, read as if it were UTC: its difference to `at` is the zone's offset then. */
function wallClockAsUtc(at: number, timeZone: string): number {
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormatters.set(timeZone, formatter);
  }
  const part = (parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((p) => p.type === type)?.value ?? Number.NaN);
  const parts = formatter.formatToParts(at);
  return Date.UTC(
    part(parts, 'year'),
    part(parts, 'month') - 1,
    part(parts, 'day'),
    part(parts, 'hour'),
    part(parts, 'minute'),
    part(parts, 'second'),
  );
}

/** The calendar year of `at` in `timeZone`. */
export const yearIn = (at: Date, timeZone: string): number => new Date(wallClockAsUtc(at.getTime(), timeZone)).getUTCFullYear();

/** The instant 1 January of `year`, 00:00, begins in `timeZone` (epoch ms). */
export function startOfYearIn(year: number, timeZone: string): number {
  const asUtc = Date.UTC(year, 0, 1);
  // The zone's offset at that moment; asked twice, so an offset that changes around it is the one in force then.
  const first = asUtc - (wallClockAsUtc(asUtc, timeZone) - asUtc);
  return asUtc - (wallClockAsUtc(first, timeZone) - first);
}

/** Epoch seconds after which a request that became final at `finalAt` may be deleted. */
export function retainedUntil(finalAt: Date, rule: RetentionRule): number {
  if (rule.kind === 'days') return Math.floor(finalAt.getTime() / 1000) + rule.days * SECONDS_PER_DAY;
  const endOfFinalYear = yearIn(finalAt, rule.timeZone) + 1;
  return Math.floor(startOfYearIn(endOfFinalYear + rule.years, rule.timeZone) / 1000);
}
