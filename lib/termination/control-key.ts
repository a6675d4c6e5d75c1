const WEIGHTS = [7, 1, 3] as const;

/**
 * Bank of Russia control-key check of an account number against the bank's BIK (docs/decisions/0008-business-rules.md).
 * Inputs must already be 9 and 20 ASCII digits.
 */
export function isAccountKeyValid(bik: string, accountNumber: string): boolean {
  // A BIK ending in 000 is a Bank of Russia unit: "0" and BIK digits 5-6 replace its last three.
  const prefix = bik.endsWith('000') ? `0${bik.slice(4, 6)}` : bik.slice(-3);
  const digits = prefix + accountNumber;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    sum += (Number(digits[i]) * (WEIGHTS[i % 3] ?? 0)) % 10;
  }
  return sum % 10 === 0;
}
