import { createHash, createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import canonicalize from 'canonicalize';

/*
 * The service's signature on every event it publishes (docs/events.md, Verifying an event;
 * docs/decisions/0017-lifecycle.md): a compact JWS (RFC 7515), ES256, made with the stage's
 * asymmetric KMS key, put in the detail as `signature`. Its claims carry no field of the event:
 * they name the source, the detail-type and the SHA-256 of the detail's canonical form (RFC 8785,
 * `signature` left out), because EventBridge re-serialises `detail`, and because a copy of the
 * fields would double the event's size and every piece of personal data it carries. ECDSA
 * signatures differ on every signing: an event published again has the same eventId and a new
 * signature. The back office verifies with the stage's public keys (a JWKS); docs/examples/
 * verify-event.mjs is the same check with nothing to install.
 */

export const EVENT_SIGNATURE_ALGORITHM = 'ES256';

/** What an ES256 key signs with: the signing input's bytes in, the DER signature (as KMS returns it) out. */
export interface EventSigner {
  /** The key's id, the JWS header's `kid`: the KMS key id, which changes with each new key. */
  kid: string;
  signDer: (signingInput: Buffer) => Promise<Uint8Array>;
}

/** The claims of an event's signature. */
export interface EventClaims {
  /** The event's source. */
  iss: string;
  /** When it was signed, in seconds. */
  iat: number;
  /** The event's detail-type. */
  detailType: string;
  /** base64url SHA-256 of the detail's RFC 8785 form, `signature` left out. */
  detailSha256: string;
}

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

/** The detail's digest: the SHA-256 of its RFC 8785 canonical form, without its `signature`. */
export function detailDigest(detail: Record<string, unknown>): string {
  const canonical = canonicalize(Object.fromEntries(Object.entries(detail).filter(([name]) => name !== 'signature')));
  if (canonical === undefined) throw new TypeError('The detail has no JSON form');
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

/** An ECDSA P-256 signature from DER (SEQUENCE of two INTEGERs, what KMS returns) to JOSE's r||s, 32 bytes each. */
export function derToJose(der: Uint8Array): Buffer {
  const bytes = Buffer.from(der);
  let at = 0;
  const expect = (tag: number) => {
    if (bytes[at++] !== tag) throw new TypeError('Not a DER ECDSA signature');
  };
  const length = () => {
    const first = bytes[at++] ?? 0;
    if (first < 0x80) return first;
    if (first !== 0x81) throw new TypeError('Not a DER ECDSA signature');
    return bytes[at++] ?? 0;
  };
  const integer = () => {
    expect(0x02);
    const size = length();
    const value = bytes.subarray(at, at + size);
    at += size;
    const unsigned = value.subarray(value.findIndex((byte) => byte !== 0));
    if (unsigned.length > 32 || value.length !== size) throw new TypeError('Not a P-256 signature');
    return Buffer.concat([Buffer.alloc(32 - unsigned.length), unsigned]);
  };
  expect(0x30);
  if (length() !== bytes.length - at) throw new TypeError('Not a DER ECDSA signature');
  const r = integer();
  const s = integer();
  if (at !== bytes.length) throw new TypeError('Not a DER ECDSA signature');
  return Buffer.concat([r, s]);
}

/** The detail with its signature: what the publisher puts on the bus. */
export async function signedDetail<Detail extends Record<string, unknown>>(
  event: { source: string; detailType: string; detail: Detail },
  signer: EventSigner,
  now: Date = new Date(),
): Promise<Detail & { signature: string }> {
  const header = { alg: EVENT_SIGNATURE_ALGORITHM, kid: signer.kid };
  const claims: EventClaims = {
    iss: event.source,
    iat: Math.floor(now.getTime() / 1000),
    detailType: event.detailType,
    detailSha256: detailDigest(event.detail),
  };
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = derToJose(await signer.signDer(Buffer.from(signingInput, 'ascii')));
  return { ...event.detail, signature: `${signingInput}.${base64url(signature)}` };
}

/** A public key of a JWKS. */
export type EventKey = JsonWebKey & { kid?: string };

/** The event as the back office receives it (the EventBridge envelope). */
export interface ReceivedEvent {
  source: string;
  'detail-type': string;
  detail: Record<string, unknown>;
}

export type Verification = { ok: true; kid: string; claims: EventClaims } | { ok: false; why: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function jsonPart(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks an event's signature as the back office does: ES256 by a key of the JWKS, claims that
 * name this source and detail-type, and the digest of this very detail. Never throws for a bad event.
 */
export function verifyEvent(event: ReceivedEvent, jwks: { keys: EventKey[] }): Verification {
  const { signature } = event.detail;
  if (typeof signature !== 'string') return { ok: false, why: 'no signature' };
  const parts = signature.split('.');
  const [encodedHeader = '', encodedClaims = '', encodedSignature = ''] = parts;
  const header = jsonPart(encodedHeader);
  const claims = jsonPart(encodedClaims);
  if (parts.length !== 3 || header === undefined || claims === undefined) return { ok: false, why: 'not a compact JWS' };
  if (header['alg'] !== EVENT_SIGNATURE_ALGORITHM) return { ok: false, why: `alg ${String(header['alg'])} is not ES256` };
  const key = jwks.keys.find((candidate) => candidate.kid === header['kid']);
  if (key === undefined) return { ok: false, why: `no key ${String(header['kid'])} in the JWKS` };
  const valid = verify(
    'sha256',
    Buffer.from(`${encodedHeader}.${encodedClaims}`, 'ascii'),
    { key: createPublicKey({ key, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(encodedSignature, 'base64url'),
  );
  if (!valid) return { ok: false, why: 'the signature does not verify' };
  if (claims['iss'] !== event.source) return { ok: false, why: 'signed for another source' };
  if (claims['detailType'] !== event['detail-type']) return { ok: false, why: 'signed for another detail-type' };
  if (claims['detailSha256'] !== detailDigest(event.detail)) return { ok: false, why: 'the detail is not the one signed' };
  if (typeof claims['iat'] !== 'number') return { ok: false, why: 'no iat' };
  return {
    ok: true,
    kid: String(header['kid']),
    claims: { iss: event.source, iat: claims['iat'], detailType: event['detail-type'], detailSha256: claims['detailSha256'] },
  };
}

/** A JWK of the public key KMS's GetPublicKey returns (DER SubjectPublicKeyInfo). */
export function jwkOf(kid: string, publicKeyDer: Uint8Array): EventKey {
  const jwk = createPublicKey({ key: Buffer.from(publicKeyDer), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  return { ...jwk, kid, alg: EVENT_SIGNATURE_ALGORITHM, use: 'sig' };
}
