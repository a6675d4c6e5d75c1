import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth: equal data gives equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What makes two calls "the same call" for idempotency (docs/decisions/0004-idempotency.md): the contract and the parsed body. */
export function requestFingerprint(contractId: string, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ contractId: contractId.toLowerCase(), body }))
    .digest('base64url');
}
