import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAccountKeyValid } from '../../lib/termination/control-key';

/*
 * An independent reference of the Bank of Russia control-key rule (0008-business-rules.md),
 * written from the text of the decision rather than from the module: 23 digits, weights 7 1 3
 * repeated, the last digit of each product summed, the sum must end in 0.
 */
const REFERENCE_WEIGHTS = '71371371371371371371371';

function referencePrefix(bik: string): string {
  // A BIK ending in 000 is a Bank of Russia unit: "0" and BIK digits 5-6 (1-based) instead.
  return bik.endsWith('000') ? `0${bik.charAt(4)}${bik.charAt(5)}` : bik.substring(6, 9);
}

function referenceSum(prefix: string, accountNumber: string): number {
  const digits = `${prefix}${accountNumber}`;
  let sum = 0;
  for (let i = 0; i < REFERENCE_WEIGHTS.length; i++) {
    const product = Number.parseInt(digits.charAt(i), 10) * Number.parseInt(REFERENCE_WEIGHTS.charAt(i), 10);
    sum += product % 10;
  }
  return sum;
}

function referenceValid(bik: string, accountNumber: string): boolean {
  return referenceSum(referencePrefix(bik), accountNumber) % 10 === 0;
}

/** The account with its 9th digit (the key position) chosen so that the reference accepts it. */
function withValidKey(bik: string, accountTemplate: string): string {
  const candidates = Array.from({ length: 10 }, (_, d) => `${accountTemplate.slice(0, 8)}${d}${accountTemplate.slice(9)}`);
  const valid = candidates.filter((account) => referenceValid(bik, account));
  // Weight 3 at that position is coprime with 10: exactly one digit fits.
  expect(valid).toHaveLength(1);
  return valid[0] ?? '';
}

function withDigit(value: string, position: number, digit: string): string {
  return `${value.slice(0, position)}${digit}${value.slice(position + 1)}`;
}

const GOOD_PAIRS = [
  { bik: '044525225', account: '40817810700000000001' },
  { bik: '044525974', account: '40817810500001234567' },
] as const;

const POSITIONS = Array.from({ length: 20 }, (_, i) => i);
const DIGITS = '0123456789'.split('');

describe('isAccountKeyValid: the pairs of 0008-business-rules.md', () => {
  it.each(GOOD_PAIRS)('accepts BIK $bik with account $account', ({ bik, account }) => {
    expect(referenceValid(bik, account)).toBe(true);
    expect(isAccountKeyValid(bik, account)).toBe(true);
  });

  describe.each(GOOD_PAIRS)('BIK $bik, account $account', ({ bik, account }) => {
    it.each(POSITIONS)('changing the account digit at index %i to any other digit breaks the key', (position) => {
      const original = account.charAt(position);
      const changed = DIGITS.filter((d) => d !== original).map((d) => withDigit(account, position, d));
      expect(changed).toHaveLength(9);
      for (const other of changed) {
        expect(isAccountKeyValid(bik, other), other).toBe(false);
      }
    });

    it.each([6, 7, 8])('changing the BIK digit at index %i to any other digit breaks the key', (position) => {
      const original = bik.charAt(position);
      for (const digit of DIGITS.filter((d) => d !== original)) {
        const otherBik = withDigit(bik, position, digit);
        expect(isAccountKeyValid(otherBik, account), otherBik).toBe(false);
      }
    });

    it('ignores the first six BIK digits when the BIK does not end in 000', () => {
      expect(isAccountKeyValid(`999999${bik.slice(6)}`, account)).toBe(true);
      expect(isAccountKeyValid(`000000${bik.slice(6)}`, account)).toBe(true);
    });
  });

  it('rejects swapped pairs', () => {
    expect(isAccountKeyValid('044525225', '40817810500001234567')).toBe(false);
    expect(isAccountKeyValid('044525974', '40817810700000000001')).toBe(false);
  });
});

describe('isAccountKeyValid: the reference agrees with the module', () => {
  it('on many random accounts and BIKs (about one in ten valid)', () => {
    const digits = (count: number) => Array.from({ length: count }, () => String(randomInt(10))).join('');
    let validCount = 0;
    for (let i = 0; i < 3000; i++) {
      const bik = i % 10 === 0 ? `${digits(6)}000` : digits(9);
      const account = digits(20);
      const expected = referenceValid(bik, account);
      if (expected) validCount++;
      expect(isAccountKeyValid(bik, account), `${bik} ${account}`).toBe(expected);
    }
    expect(validCount).toBeGreaterThan(200);
    expect(validCount).toBeLessThan(400);
  });
});

describe('isAccountKeyValid: a BIK ending in 000 (a Bank of Russia unit)', () => {
  const UNIT_BIKS = ['044525000', '046577000', '040349000'] as const;

  it.each(UNIT_BIKS)('accepts an account computed with "0" and BIK digits 5-6 for %s', (bik) => {
    const account = withValidKey(bik, '40102810045370000002');
    expect(isAccountKeyValid(bik, account)).toBe(true);
  });

  it.each(UNIT_BIKS)('does not use the last three digits 000 for %s', (bik) => {
    const account = withValidKey(bik, '40102810045370000002');
    // The prefix "0" + digits 5-6 adds a non-zero amount to the sum, so the naive rule would disagree.
    expect(referenceSum('000', account) % 10).not.toBe(0);
    expect(isAccountKeyValid(bik, account)).toBe(true);
    const naiveAccount = DIGITS.map((d) => withDigit(account, 8, d)).find((a) => referenceSum('000', a) % 10 === 0);
    expect(naiveAccount).toBeDefined();
    expect(isAccountKeyValid(bik, naiveAccount ?? account)).toBe(false);
  });

  it.each(UNIT_BIKS)('any one-digit change of the computed account breaks the key for %s', (bik) => {
    const account = withValidKey(bik, '40102810045370000002');
    for (const position of POSITIONS) {
      for (const digit of DIGITS.filter((d) => d !== account.charAt(position))) {
        const other = withDigit(account, position, digit);
        expect(isAccountKeyValid(bik, other), other).toBe(false);
      }
    }
  });

  it('changing BIK digit 5 or 6 of a unit BIK breaks the key', () => {
    const bik = '044525000';
    const account = withValidKey(bik, '40102810045370000002');
    for (const position of [4, 5]) {
      for (const digit of DIGITS.filter((d) => d !== bik.charAt(position))) {
        expect(isAccountKeyValid(withDigit(bik, position, digit), account)).toBe(false);
      }
    }
  });

  it('a BIK ending in 00 but not 000 uses its last three digits', () => {
    const bik = '044525200';
    const account = withValidKey(bik, '40702810000000000001');
    expect(isAccountKeyValid(bik, account)).toBe(true);
    // Under the unit rule ("0" + "25") this account would not pass.
    expect(referenceSum('025', account) % 10).not.toBe(0);
  });
});
