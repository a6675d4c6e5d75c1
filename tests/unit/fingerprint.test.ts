import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from '../../lib/termination/fingerprint';
import { bankDetails, validBody } from '../support/bodies';

const CONTRACT_ID = '3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0c';

/** The same valid body on every call: two fixed documents (the changes below refer to them) and a Cyrillic name. */
function body(): Record<string, unknown> {
  return validBody({
    bankDetails: bankDetails({ recipientName: 'Иван Петров' }),
    documentIds: ['0b6f1c1e-2f7a-4d35-9a6b-0c1d2e3f4a5b', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'],
  });
}

/** The same data written with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    );
  }
  return value;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth, including inside arrays', () => {
    const value = { b: 1, a: { d: [{ z: 1, y: { q: true, p: null } }], c: 'x' } };
    expect(canonicalJson(value)).toBe('{"a":{"c":"x","d":[{"y":{"p":null,"q":true},"z":1}]},"b":1}');
  });

  it('keeps array order', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson(['b', 'a'])).not.toBe(canonicalJson(['a', 'b']));
  });

  it('writes scalars as JSON', () => {
    expect(canonicalJson('a"b\\c')).toBe(JSON.stringify('a"b\\c'));
    expect(canonicalJson(12.5)).toBe('12.5');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(false)).toBe('false');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });

  it('escapes keys as JSON strings', () => {
    expect(canonicalJson({ 'a"b': 1 })).toBe('{"a\\"b":1}');
  });

  it('is valid JSON that parses back to equal data', () => {
    const value = body();
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('gives the same text for the same data in another key order', () => {
    const value = body();
    const reordered = reversedKeys(value);
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(value));
    expect(canonicalJson(reordered)).toBe(canonicalJson(value));
  });

  it('keeps an own __proto__ key from JSON.parse as data', () => {
    const parsed: unknown = JSON.parse('{"b":1,"__proto__":{"x":1}}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"b":1}');
  });
});

describe('requestFingerprint', () => {
  it('is deterministic and looks like a base64url SHA-256', () => {
    const fingerprint = requestFingerprint(CONTRACT_ID, body());
    expect(fingerprint).toBe(requestFingerprint(CONTRACT_ID, body()));
    expect(fingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('is the same for the same data in another key order', () => {
    expect(requestFingerprint(CONTRACT_ID, reversedKeys(body()))).toBe(requestFingerprint(CONTRACT_ID, body()));
  });

  it('treats contractId case-insensitively', () => {
    expect(requestFingerprint(CONTRACT_ID.toUpperCase(), body())).toBe(requestFingerprint(CONTRACT_ID, body()));
  });

  it('differs for another contractId', () => {
    expect(requestFingerprint('3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f8a9b0d', body())).not.toBe(requestFingerprint(CONTRACT_ID, body()));
  });

  const changes: [string, (b: Record<string, unknown>) => Record<string, unknown>][] = [
    ['reasonCode', (b) => ({ ...b, reasonCode: 'OTHER' })],
    ['desiredTerminationDate', (b) => ({ ...b, desiredTerminationDate: '2045-07-01' })],
    ['bankDetails.bik', (b) => ({ ...b, bankDetails: { ...bankDetailsOf(b), bik: '044525974' } })],
    ['bankDetails.accountNumber', (b) => ({ ...b, bankDetails: { ...bankDetailsOf(b), accountNumber: '40817810500001234567' } })],
    ['bankDetails.recipientName', (b) => ({ ...b, bankDetails: { ...bankDetailsOf(b), recipientName: 'Иван Петров ' } })],
    ['comment', (b) => ({ ...b, comment: 'Moving abroad.' })],
    ['comment removed', (b) => Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'comment'))],
    ['documentIds one removed', (b) => ({ ...b, documentIds: ['0b6f1c1e-2f7a-4d35-9a6b-0c1d2e3f4a5b'] })],
    [
      'documentIds one changed',
      (b) => ({ ...b, documentIds: ['0b6f1c1e-2f7a-4d35-9a6b-0c1d2e3f4a5b', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e'] }),
    ],
    ['field added', (b) => ({ ...b, extra: 1 })],
    ['string became number', (b) => ({ ...b, desiredTerminationDate: 20450630 })],
  ];

  it.each(changes)('differs when %s changes', (_name, change) => {
    expect(requestFingerprint(CONTRACT_ID, change(body()))).not.toBe(requestFingerprint(CONTRACT_ID, body()));
  });

  it('does not mix up the contract and the body', () => {
    expect(requestFingerprint(CONTRACT_ID, {})).not.toBe(requestFingerprint(CONTRACT_ID, null));
    expect(requestFingerprint(CONTRACT_ID, { a: 1 })).not.toBe(requestFingerprint(CONTRACT_ID, { a: '1' }));
  });
});

function bankDetailsOf(b: Record<string, unknown>): Record<string, unknown> {
  const details = b['bankDetails'];
  return details !== null && typeof details === 'object' ? Object.fromEntries(Object.entries(details)) : {};
}
