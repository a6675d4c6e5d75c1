// The back office's check of the service's signature on an event it received (docs/events.md,
// "Verifying an event"). Node 18 or later, nothing to install:
//
//   node verify-event.mjs verify <keys> <event.json>   exit 0 and "verified" or exit 1 and why it is refused
//
// <keys> is the stage's document of the events' public keys (a JWKS): its https or http address
// (in AWS a presigned address of the stage's document, `aws s3 presign`; locally npm start's), or
// a copy of it on disk. <event.json> is the EventBridge event as a rule's target receives it
// (envelope and detail).
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** RFC 8785 (JSON Canonicalization Scheme) for what JSON.parse gives: keys sorted by UTF-16 code units, ES2015 number and string forms. */
const canonical = (value) =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
          .join(',')}}`
      : JSON.stringify(value);

const part = (text) => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));

/** Why the event must be refused, or undefined when its signature is the service's, over this very event. */
export function refusal(event, jwks) {
  const { signature, ...signed } = event.detail ?? {};
  if (typeof signature !== 'string') return 'no signature';
  const [header, claims, sig, ...more] = signature.split('.');
  let h, c;
  try {
    [h, c] = [part(header), part(claims)];
  } catch {
    return 'not a compact JWS';
  }
  if (more.length > 0 || sig === undefined) return 'not a compact JWS';
  if (h.alg !== 'ES256') return `alg ${h.alg} is not ES256`;
  const jwk = jwks.keys.find((key) => key.kid === h.kid);
  if (!jwk) return `no key ${h.kid} in the JWKS`;
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const input = Buffer.from(`${header}.${claims}`);
  if (!verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))) return 'the signature does not verify';
  if (c.iss !== event.source) return 'signed for another source';
  if (c.detailType !== event['detail-type']) return 'signed for another detail-type';
  const digest = createHash('sha256').update(canonical(signed), 'utf8').digest('base64url');
  if (c.detailSha256 !== digest) return 'the detail is not the one signed';
  return undefined;
}

/** The document of the keys, fetched from its address or read from a file. Keep it for its Cache-Control's max-age; fetch again, at most once a minute, for a kid it lacks. */
async function keysFrom(where) {
  if (!/^https?:\/\//.test(where)) return JSON.parse(readFileSync(where, 'utf8'));
  const answer = await fetch(where);
  if (!answer.ok) throw new Error(`${answer.status} from the keys' address`);
  return answer.json();
}

const [command, keys, eventFile] = process.argv.slice(2);
if (command === 'verify' && keys && eventFile) {
  const event = JSON.parse(readFileSync(eventFile, 'utf8'));
  const why = refusal(event, await keysFrom(keys));
  console.log(why === undefined ? `verified: ${event['detail-type']} ${event.detail.eventId}` : `REFUSED: ${why}`);
  process.exitCode = why === undefined ? 0 : 1;
} else if (command !== undefined) {
  console.error('usage: node verify-event.mjs verify <keys: https://... or jwks.json> <event.json>');
  process.exit(2);
}
