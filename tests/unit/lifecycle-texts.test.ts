import { describe, expect, it } from 'vitest';
import { textsFor, type Language } from '../../lib/http/texts';
import { STATUSES, type Status } from '../../lib/api-model/schemas';

const NUMBER = 'TR-7KQM-X2PF';
const LANGUAGES: Language[] = ['en', 'ru'];
const CYRILLIC = /[а-яё]/i;

const statusText = (language: Language, status: Status, statusReason?: string) =>
  textsFor(language).requestStatus({ status, requestNumber: NUMBER, statusReason });

describe('requestStatus', () => {
  const cases = LANGUAGES.flatMap((language) => STATUSES.map((status): [Language, Status] => [language, status]));

  it.each(cases)('%s %s names the request number', (language, status) => {
    expect(statusText(language, status)).toContain(NUMBER);
  });

  it.each(cases)('%s %s is in its own language', (language, status) => {
    expect(CYRILLIC.test(statusText(language, status))).toBe(language === 'ru');
  });

  it.each(LANGUAGES)('%s: a different text for each of the 5 statuses', (language) => {
    expect(new Set(STATUSES.map((status) => statusText(language, status))).size).toBe(STATUSES.length);
  });

  it.each(LANGUAGES)('%s: SUBMITTED reads as the message of the created request', (language) => {
    expect(statusText(language, 'SUBMITTED')).toBe(textsFor(language).created(NUMBER));
  });

  it.each(LANGUAGES)('%s: the number is not left as a placeholder for another one', (language) => {
    for (const status of STATUSES) {
      const text = textsFor(language).requestStatus({ status, requestNumber: 'TR-ABCD-EFGH' });
      expect(text).toContain('TR-ABCD-EFGH');
      expect(text).not.toContain(NUMBER);
    }
  });

  it.each([
    ['en', 'Reason: '],
    ['ru', 'Причина: '],
  ] satisfies [Language, string][])('%s REJECTED with a reason: the status text, then "%s" and the reason', (language, label) => {
    const reason = 'По договору есть просроченная задолженность.';
    expect(statusText(language, 'REJECTED', reason)).toBe(`${statusText(language, 'REJECTED')} ${label}${reason}`);
  });

  it.each(
    LANGUAGES.flatMap((language) =>
      (['SUBMITTED', 'IN_REVIEW', 'APPROVED', 'COMPLETED'] satisfies Status[]).map((status): [Language, Status, string] => [
        language,
        status,
        language === 'en' ? 'Note from the bank: ' : 'Комментарий банка: ',
      ]),
    ),
  )('%s %s with a reason: the status text, then "%s" and the reason', (language, status, label) => {
    const reason = 'Documents received on 24 November.';
    expect(statusText(language, status, reason)).toBe(`${statusText(language, status)} ${label}${reason}`);
  });

  it.each(LANGUAGES)('%s: no reason, no label', (language) => {
    for (const status of STATUSES) {
      const text = statusText(language, status);
      for (const label of ['Reason', 'Note from the bank', 'Причина', 'Комментарий банка']) expect(text).not.toContain(label);
    }
  });

  it('keeps the reason as the back office wrote it, line breaks included', () => {
    const reason = 'Line one.\nLine two: 100% <b>sure</b>';
    expect(statusText('en', 'REJECTED', reason).endsWith(`Reason: ${reason}`)).toBe(true);
  });
});
