import { randomUUID } from 'node:crypto';
import { DEMO_BANK_DETAILS } from '../../scripts/local/demo-data';

/** Bank details that pass every rule: a BIK and an account whose control key matches it. */
export function bankDetails(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...DEMO_BANK_DETAILS, ...overrides };
}

/**
 * A body that passes every rule, for a contract without an end date, by any customer: it names
 * no document (a document must be the caller's: add a demo customer's documentIds for that).
 */
export function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    reasonCode: 'RELOCATION',
    desiredTerminationDate: '2045-06-30',
    bankDetails: bankDetails(),
    comment: 'Moving abroad',
    ...overrides,
  };
}

export function headersWithKey(key: string = randomUUID(), extra: Record<string, string> = {}): Record<string, string> {
  return { 'Idempotency-Key': key, ...extra };
}

/** A valid body's bytes with `bytes` in the middle of the recipient's name, as a client that sends them raw. */
export function bodyWithBytesInName(bytes: number[]): Buffer {
  const [before = '', after = ''] = JSON.stringify(validBody({ bankDetails: bankDetails({ recipientName: 'Anna @@ Petrova' }) })).split(
    '@@',
  );
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}
