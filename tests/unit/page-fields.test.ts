import { describe, expect, it } from 'vitest';
import { validateTerminationInput } from '../../lib/api-model/validator';
import { ACCOUNT_DIGITS, BIK_DIGITS } from '../../lib/api-model/schemas';
import { checkComment, checkDate, checkDigits, checkRecipientName, COMMENT_MAX, NAME_MAX, parseDate } from '../../web/fields';
import { bankDetails, validBody } from '../support/bodies';

/*
 * The demo page's own checks (web/fields.ts) hold the same limits as the API's validator: what
 * the page lets through on a complete form, the API accepts, and what the page stops, the API
 * would refuse. The page only says it earlier, in the customer's words.
 */

/** The field paths the API refuses in a body. */
function refused(body: unknown): string[] {
  const result = validateTerminationInput(body);
  return result.ok ? [] : result.problems.map((problem) => problem.field);
}

const digits = (n: number) => '1234567890'.repeat(3).slice(0, n);

describe("the page's checks agree with the API's", () => {
  it.each([
    ['bik', BIK_DIGITS],
    ['accountNumber', ACCOUNT_DIGITS],
  ] as const)('%s: exactly %i digits', (field, count) => {
    for (const value of [digits(count), digits(count - 1), digits(count + 1), `${digits(count - 1)}a`, '']) {
      const pageSays = checkDigits(value, count, 'complete') === undefined;
      const apiSays = refused(validBody({ bankDetails: bankDetails({ [field]: value }) })).length === 0;
      expect(pageSays, JSON.stringify(value)).toBe(apiSays);
    }
    expect(checkDigits(digits(count), count, 'complete')).toBeUndefined();
  });

  it(`recipientName: at most ${NAME_MAX} characters, a letter, nothing hidden`, () => {
    const cases = [
      'Anna Ivanova',
      'Я'.repeat(NAME_MAX),
      'Я'.repeat(NAME_MAX + 1),
      '😀'.repeat(NAME_MAX),
      '1234',
      'Anna\u200bIvanova',
      'Anna\u202eIvanova',
      'Anna\u3164',
    ];
    for (const value of cases) {
      const pageSays = checkRecipientName(value, 'complete') === undefined;
      const apiSays = refused(validBody({ bankDetails: bankDetails({ recipientName: value }) })).length === 0;
      expect(pageSays, JSON.stringify(value)).toBe(apiSays);
    }
  });

  it(`comment: at most ${COMMENT_MAX} characters, line breaks allowed, nothing else hidden, and something said for OTHER`, () => {
    const cases = ['Moving.\nSoon.', 'ж'.repeat(COMMENT_MAX), 'ж'.repeat(COMMENT_MAX + 1), 'a\u0007b', 'a\u2028b', 'emoji\ufe0f'];
    for (const value of cases) {
      const pageSays = checkComment(value, false, 'complete') === undefined;
      const apiSays = refused(validBody({ comment: value })).length === 0;
      expect(pageSays, JSON.stringify(value)).toBe(apiSays);
    }
    expect(checkComment(' . ', true, 'complete')).toEqual({ code: 'commentRequired' });
    expect(checkComment('Other plans', true, 'complete')).toBeUndefined();
  });

  it('a date: typed day first in either language, or pasted as YYYY-MM-DD, and a real one', () => {
    expect(parseDate('25.12.2026')).toBe('2026-12-25');
    expect(parseDate('25/12/2026')).toBe('2026-12-25');
    expect(parseDate(' 5.1.2027 ')).toBe('2027-01-05');
    expect(parseDate('2026-12-25')).toBe('2026-12-25');
    for (const wrong of ['31.02.2027', '12/25/2026', '25.12.26', '25 12 2026', '']) expect(parseDate(wrong), wrong).toBeUndefined();
    expect(checkDate('24.12.2026', '2026-12-25', undefined, 'complete')).toEqual({ code: 'dateBeforeToday', today: '2026-12-25' });
    expect(checkDate('25.12.2026', '2026-12-25', '2026-12-25', 'complete')).toBeUndefined();
    expect(checkDate('26.12.2026', '2026-12-25', '2026-12-25', 'complete')).toEqual({ code: 'dateAfterEnd', endDate: '2026-12-25' });
  });

  it('tells a day that does not exist (31.02.2027) from a date written in another form', () => {
    for (const impossible of ['31.02.2027', '29/02/2027', '2027-02-30', '32.01.2027', '15.13.2027'])
      expect(checkDate(impossible, '2026-12-25', undefined, 'complete'), impossible).toEqual({ code: 'dateImpossible' });
    expect(checkDate('29.02.2028', '2026-12-25', undefined, 'complete')).toBeUndefined();
    for (const wrong of ['12/25', '25.12.26', '2027'])
      expect(checkDate(wrong, '2026-12-25', undefined, 'complete'), wrong).toEqual({ code: 'dateFormat' });
  });

  it('says only what no further typing can mend while the customer types', () => {
    expect(checkDigits('0445', BIK_DIGITS, 'typing')).toBeUndefined();
    expect(checkDigits('0445 2', BIK_DIGITS, 'typing')).toBeUndefined();
    expect(checkDigits('0445x', BIK_DIGITS, 'typing')).toEqual({ code: 'digitsOnly' });
    expect(checkDigits(digits(BIK_DIGITS + 1), BIK_DIGITS, 'typing')).toEqual({ code: 'digitCount', entered: BIK_DIGITS + 1 });
    expect(checkRecipientName('', 'typing')).toBeUndefined();
    expect(checkDate('25.1', '2026-12-25', undefined, 'typing')).toBeUndefined();
    expect(checkDate('25.1a', '2026-12-25', undefined, 'typing')).toEqual({ code: 'dateFormat' });
  });
});
