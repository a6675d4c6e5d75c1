import { isBeforeToday } from './desired-date';

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Today's date (YYYY-MM-DD) in the bank's business time zone, which decides "not before today". */
export function businessToday(timeZone: string, now: Date = new Date()): string {
  // One formatter per zone: making one costs ~100 µs, and the first of a process ~20 ms.
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }); // en-CA: YYYY-MM-DD
    formatters.set(timeZone, formatter);
  }
  return formatter.format(now);
}

/**
 * Whether a YYYY-MM-DD date is before today in the business time zone. Every zone's today lies
 * within a day of UTC's (offsets span -12 h to +14 h), so a date further away needs no zone.
 */
export function isBeforeBusinessToday(date: string, timeZone: string, now: Date = new Date()): boolean {
  const utcDate = (days: number) => new Date(now.getTime() + days * DAY_MS).toISOString().slice(0, 10);
  if (date > utcDate(1)) return false;
  if (date < utcDate(-1)) return true;
  return isBeforeToday(date, businessToday(timeZone, now));
}
