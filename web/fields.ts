import { hasHidden, hasLetter } from '../lib/api-model/characters.ts';
import { terminationRequestInputSchema } from '../lib/api-model/schemas.ts';
import { isAfterContractEnd, isBeforeToday } from '../lib/termination/desired-date.ts';
import { hasOwnWords } from '../lib/termination/reason-rules.ts';

/*
 * The page's own checks of what the customer types: the obvious ones (digits only, lengths, a
 * field left empty, a date out of range), so they are caught before any call, most of them as
 * the customer types. The API checks everything again and has the last word: what it refuses
 * and the page did not catch is shown as the API words it. No DOM here, so a unit test can hold
 * these limits against the API's own validator (tests/unit/page-fields.test.ts). The rules of a
 * person's text, of the customer's own words and of the date's range are the API's own, imported,
 * never copied.
 */

/** Characters (Unicode code points), as the API counts them: the schema's own limits. */
export const NAME_MAX = terminationRequestInputSchema.properties.bankDetails.properties.recipientName.maxLength;
export const COMMENT_MAX = terminationRequestInputSchema.properties.comment.maxLength;

/** What is wrong with a field, for the page to put in the customer's words. */
export type FieldProblem =
  | { code: 'required' }
  | { code: 'digitsOnly' }
  | { code: 'digitCount'; entered: number }
  | { code: 'noLetter' }
  | { code: 'tooLong'; max: number; entered: number }
  | { code: 'hiddenCharacters' }
  | { code: 'dateFormat' }
  | { code: 'dateImpossible' }
  | { code: 'dateBeforeToday'; today: string }
  | { code: 'dateAfterEnd'; endDate: string }
  | { code: 'commentRequired' };

/**
 * When a check runs: `typing` finds only what no further typing can mend (a letter among digits,
 * too many characters); `complete` (leaving the field, submitting) finds everything.
 */
export type Moment = 'typing' | 'complete';

const codePoints = (value: string) => Array.from(value).length;

/** Digits as the customer may type them: spaces (a common way to group digits) are dropped. */
export const withoutSpaces = (value: string) => value.replace(/\s+/g, '');

/** A BIK (9 digits) or an account number (20 digits). */
export function checkDigits(value: string, digits: number, moment: Moment): FieldProblem | undefined {
  const typed = withoutSpaces(value);
  if (typed === '') return moment === 'complete' ? { code: 'required' } : undefined;
  if (!/^[0-9]*$/.test(typed)) return { code: 'digitsOnly' };
  if (typed.length > digits || (moment === 'complete' && typed.length < digits)) return { code: 'digitCount', entered: typed.length };
  return undefined;
}

export function checkRecipientName(value: string, moment: Moment): FieldProblem | undefined {
  const name = value.trim();
  if (codePoints(name) > NAME_MAX) return { code: 'tooLong', max: NAME_MAX, entered: codePoints(name) };
  if (moment === 'typing') return undefined;
  if (name === '') return { code: 'required' };
  if (hasHidden(name, false)) return { code: 'hiddenCharacters' };
  if (!hasLetter(name)) return { code: 'noLetter' };
  return undefined;
}

export function checkComment(value: string, commentRequired: boolean, moment: Moment): FieldProblem | undefined {
  if (codePoints(value) > COMMENT_MAX) return { code: 'tooLong', max: COMMENT_MAX, entered: codePoints(value) };
  if (moment === 'typing') return undefined;
  if (hasHidden(value, true)) return { code: 'hiddenCharacters' };
  if (commentRequired && !hasOwnWords(value)) return { code: 'commentRequired' };
  return undefined;
}

/** Day, month and year as typed: day first with dots, slashes or hyphens (25.12.2026, 25/12/2026), or YYYY-MM-DD (pasted). */
function dateParts(value: string): [string, string, string] | undefined {
  const typed = value.trim();
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(typed);
  const dayFirst = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/.exec(typed);
  const [year, month, day] = iso ? [iso[1], iso[2], iso[3]] : dayFirst ? [dayFirst[3], dayFirst[2], dayFirst[1]] : [];
  return year === undefined || month === undefined || day === undefined ? undefined : [year, month, day];
}

/** A day as a customer types it (dateParts), as YYYY-MM-DD when it is a real calendar day. */
export function parseDate(value: string): string | undefined {
  const parts = dateParts(value);
  if (parts === undefined) return undefined;
  const [year, month, day] = parts;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day))
    return undefined;
  return date.toISOString().slice(0, 10);
}

/** The desired date as typed, against today and the contract's end by the service's own rules (desired-date.ts). */
export function checkDate(value: string, today: string, endDate: string | undefined, moment: Moment): FieldProblem | undefined {
  if (/[^0-9./\-\s]/.test(value)) return { code: 'dateFormat' };
  if (moment === 'typing') return undefined;
  if (value.trim() === '') return { code: 'required' };
  const day = parseDate(value);
  // Written as a date, but no such day (31.02.2027): the customer needs to hear that, not the format again.
  if (day === undefined) return dateParts(value) === undefined ? { code: 'dateFormat' } : { code: 'dateImpossible' };
  if (isBeforeToday(day, today)) return { code: 'dateBeforeToday', today };
  if (endDate !== undefined && isAfterContractEnd(day, endDate)) return { code: 'dateAfterEnd', endDate };
  return undefined;
}
