import { randomUUID } from 'node:crypto';
import { DEMO_BANK_DETAILS } from '../../scripts/local/demo-data';

/** A body that passes every rule, for a contract without an end date. */
export function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    reasonCode: 'RELOCATION',
    desiredTerminationDate: '2045-06-30',
    bankDetails: { ...DEMO_BANK_DETAILS },
    comment: 'Moving abroad',
    documentIds: [randomUUID()],
    ...overrides,
  };
}

export function headersWithKey(key: string = randomUUID(), extra: Record<string, string> = {}): Record<string, string> {
  return { 'Idempotency-Key': key, ...extra };
}
