import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/http/outcomes';
import { preferredLanguage, textsFor } from '../../lib/http/texts';

describe('preferredLanguage', () => {
  it.each([
    ['ru', 'ru'],
    ['RU', 'ru'],
    ['ru-RU', 'ru'],
    ['ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7', 'ru'],
    ['en', 'en'],
    ['en-US', 'en'],
    ['en;q=0.9, ru;q=0.8', 'en'],
    ['ru;q=0.1, en;q=0.9', 'en'],
    ['ru;q=0.8, en;q=0.9', 'en'],
    ['en;q=0.8, ru;q=0.9', 'ru'],
    ['de-DE, ru;q=0.5', 'ru'],
    ['de, fr', 'en'],
    ['*', 'en'],
    ['*;q=0.5, ru', 'ru'],
    ['ru;q=0.5, *', 'en'],
    ['en;q=0, ru', 'ru'],
    ['ru;q=0', 'en'],
    ['ru;q=2', 'en'],
    ['ru;q=abc', 'en'],
    ['garbage', 'en'],
    [';;;,,,==', 'en'],
    ['', 'en'],
  ])('%j -> %s', (header, expected) => {
    expect(preferredLanguage(header)).toBe(expected);
  });

  it('is English when the header is missing', () => {
    expect(preferredLanguage(undefined)).toBe('en');
  });

  it('does not choke on a very long header', () => {
    expect(['en', 'ru']).toContain(preferredLanguage(`${'xx;q=0.5,'.repeat(10000)}ru`));
    expect(preferredLanguage(`ru,${'xx;q=0.5,'.repeat(10000)}`)).toBe('ru');
  });
});

describe('textsFor', () => {
  it('puts the request number into the created message, in both languages', () => {
    expect(textsFor('ru').created('TR-7KQM-X2PF')).toContain('TR-7KQM-X2PF');
    expect(textsFor('en').created('TR-7KQM-X2PF')).toContain('TR-7KQM-X2PF');
  });

  it('gives Russian texts for ru and English texts for en', () => {
    expect(textsFor('ru').created('TR-2345-6789')).toMatch(/[а-яё]/i);
    expect(textsFor('en').created('TR-2345-6789')).not.toMatch(/[а-яё]/i);
    expect(textsFor('ru').problem({ field: 'x', code: 'required' })).not.toBe(textsFor('en').problem({ field: 'x', code: 'required' }));
  });

  const codes = [...ERROR_CODES];

  it.each(codes)('has a non-empty, distinct message for %s in both languages', (code) => {
    const en = textsFor('en').error(code, {});
    const ru = textsFor('ru').error(code, {});
    expect(en.trim().length).toBeGreaterThan(0);
    expect(ru.trim().length).toBeGreaterThan(0);
    expect(ru).not.toBe(en);
    expect(ru).toMatch(/[а-яё]/i);
  });

  it('names the existing request in the 409 message', () => {
    expect(textsFor('en').error('ACTIVE_REQUEST_ALREADY_EXISTS', { requestNumber: 'TR-ABCD-EFGH' })).toContain('TR-ABCD-EFGH');
    expect(textsFor('ru').error('ACTIVE_REQUEST_ALREADY_EXISTS', { requestNumber: 'TR-ABCD-EFGH' })).toContain('TR-ABCD-EFGH');
  });

  it('says customerId must not be sent', () => {
    expect(textsFor('en').problem({ field: 'customerId', code: 'customerIdForbidden' })).toMatch(/must not be sent/);
  });

  it('formats parameterized reasons', () => {
    const en = textsFor('en');
    expect(en.problem({ field: 'bik', code: 'digits', limit: 9 })).toContain('9');
    expect(en.problem({ field: 'documentIds', code: 'maxItems', limit: 10 })).toContain('10');
    expect(en.problem({ field: 'reasonCode', code: 'notInDictionary', allowed: ['A', 'B'] })).toContain('A, B');
    expect(en.problem({ field: 'desiredTerminationDate', code: 'dateInPast', today: '2026-11-22' })).toContain('2026-11-22');
  });
});
