import { businessToday } from '../lib/termination/business-date.ts';
import { state } from './state.ts';
import type { Language } from './texts.ts';

/* Dates as the customer reads and types them, in the page's language. */

const LOCALES: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU' };

const pad = (n: number) => String(n).padStart(2, '0');

/** A day to read: "25 Dec 2026" in English, "25.12.2026" in Russian. */
export function formatDay(isoDay: string): string {
  const [year = 0, month = 1, day = 1] = isoDay.split('-').map(Number);
  const options: Intl.DateTimeFormatOptions =
    state.language === 'ru' ? { day: '2-digit', month: '2-digit', year: 'numeric' } : { day: 'numeric', month: 'short', year: 'numeric' };
  return new Intl.DateTimeFormat(LOCALES[state.language], { ...options, timeZone: 'UTC' }).format(new Date(Date.UTC(year, month - 1, day)));
}

/** A moment (ISO 8601) as the day it was where the customer is. */
export function formatMoment(iso: string): string {
  const date = new Date(iso);
  return formatDay(`${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`);
}

/** A day as the customer types it: 25.12.2026 in Russian, 25/12/2026 in English. */
export function inputDay(isoDay: string): string {
  const [year = '', month = '', day = ''] = isoDay.split('-');
  return [day, month, year].join(state.language === 'ru' ? '.' : '/');
}

/**
 * Days from today as the service counts it, as YYYY-MM-DD: the business date in the bank's zone
 * (the config's), with the service's own function, so a customer east of it after midnight is
 * offered the day the API takes. Before the config is in, only a hint's example needs a day: UTC's.
 */
export function dayInDays(days: number): string {
  const [year = 0, month = 1, day = 1] = businessToday(state.config?.businessTimeZone ?? 'UTC')
    .split('-')
    .map(Number);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** The API's texts name days as YYYY-MM-DD: the page shows them as the customer reads dates. */
export const withLocalDays = (text: string) => text.replace(/\b(\d{4}-\d{2}-\d{2})\b/g, (day) => formatDay(day));

/** A moment (ISO 8601) as the day and the time it was where the customer is: "25 Dec 2026, 14:05". */
export function formatMomentWithTime(iso: string): string {
  const date = new Date(iso);
  const time = new Intl.DateTimeFormat(LOCALES[state.language], { hour: '2-digit', minute: '2-digit', hour12: false }).format(date);
  return `${formatMoment(iso)}, ${time}`;
}
