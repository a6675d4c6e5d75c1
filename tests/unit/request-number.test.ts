import { describe, expect, it } from 'vitest';
import { newRequestNumber, REQUEST_NUMBER_ALPHABET, REQUEST_NUMBER_PATTERN } from '../../lib/termination/request-number';

const DRAWS = 5000;
const draws = Array.from({ length: DRAWS }, () => newRequestNumber());

describe('REQUEST_NUMBER_ALPHABET', () => {
  it.each(['0', 'O', '1', 'I', 'L'])('has no confusable character %s', (char) => {
    expect(REQUEST_NUMBER_ALPHABET).not.toContain(char);
  });

  it('has no lower-case letters and no repeated characters', () => {
    expect(REQUEST_NUMBER_ALPHABET).toMatch(/^[2-9A-Z]+$/);
    expect(new Set(REQUEST_NUMBER_ALPHABET).size).toBe(REQUEST_NUMBER_ALPHABET.length);
    expect(REQUEST_NUMBER_ALPHABET.length).toBeGreaterThanOrEqual(28);
  });
});

describe('newRequestNumber', () => {
  // One expect over all the draws, naming those that fail: 5,000 expects each would take seconds.
  it('has the format TR-XXXX-XXXX with characters of the alphabet only', () => {
    const ofAlphabet = new RegExp(`^[${REQUEST_NUMBER_ALPHABET}]{4}-[${REQUEST_NUMBER_ALPHABET}]{4}$`);
    expect(
      draws.filter(
        (number) => !/^TR-[^-]{4}-[^-]{4}$/.test(number) || !REQUEST_NUMBER_PATTERN.test(number) || !ofAlphabet.test(number.slice(3)),
      ),
    ).toEqual([]);
  });

  it('is at most 20 characters long', () => {
    expect(draws.filter((number) => number.length > 20)).toEqual([]);
  });

  it('never contains 0, O, 1, I or L', () => {
    expect(draws.filter((number) => /[0O1IL]/.test(number.slice(3)))).toEqual([]);
  });

  it('gives distinct numbers on many draws', () => {
    expect(new Set(draws).size).toBe(DRAWS);
  });

  it('is not sequential: draws in order are not sorted either way and adjacent draws differ in many places', () => {
    const sorted = [...draws].sort();
    expect(draws).not.toEqual(sorted);
    expect(draws).not.toEqual([...sorted].reverse());
    let ascending = 0;
    for (let i = 1; i < draws.length; i++) if ((draws[i] ?? '') > (draws[i - 1] ?? '')) ascending++;
    // Random draws go up about half of the time; a counter would always go up.
    expect(ascending).toBeGreaterThan(DRAWS * 0.4);
    expect(ascending).toBeLessThan(DRAWS * 0.6);
  });

  it('uses every character of the alphabet at every position', () => {
    for (const position of [3, 4, 5, 6, 8, 9, 10, 11]) {
      const seen = new Set(draws.map((n) => n.charAt(position)));
      expect(seen.size, `position ${position}`).toBe(REQUEST_NUMBER_ALPHABET.length);
    }
  });
});

describe('REQUEST_NUMBER_PATTERN', () => {
  it.each(['TR-2345-6789', 'TR-ABCD-WXYZ', 'TR-7KQM-X2PF'])('accepts %s', (value) => {
    expect(REQUEST_NUMBER_PATTERN.test(value)).toBe(true);
  });

  it.each([
    'TR-0234-5678',
    'TR-ABCD-EFGO',
    'TR-ABCL-EFGH',
    'TR-ABCI-EFGH',
    'TR-1BCD-EFGH',
    'tr-abcd-efgh',
    'TR-ABCD-EFG',
    'TR-ABCDE-FGHJ',
    'XTR-ABCD-EFGH',
    'TR-ABCD-EFGH ',
  ])('rejects %s', (value) => {
    expect(REQUEST_NUMBER_PATTERN.test(value)).toBe(false);
  });
});
