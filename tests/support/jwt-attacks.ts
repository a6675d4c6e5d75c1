import { createHmac } from 'node:crypto';
import { LOCAL_AUDIENCE, makeSigningKey, signToken, type SigningKey } from '../../scripts/local/signing-key';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** 256 bytes that are no RS256 signature of anything: the length of a real one. */
const BAD_SIGNATURE = Buffer.alloc(256, 7).toString('base64url');

/**
 * A token with the key's public kid and a bad signature, whose payload claims `issuer`: what an
 * attacker makes without any key. Unsigned, so it costs no signing time.
 */
export function forgedWithIssuer(key: SigningKey, issuer: string, customerId = 'customer-anna'): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: issuer, aud: LOCAL_AUDIENCE, sub: customerId, token_use: 'access', iat: now, exp: now + 3600 };
  return `${b64({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${b64(payload)}.${BAD_SIGNATURE}`;
}

/** A unique issuer of about 7 KB: each one, if cached by issuer, would stay in the process. */
export const sevenKilobyteIssuer = (n: number) => `https://issuer-${n}.example/${'x'.repeat(7000)}`;

/**
 * Authorization header values that must all be refused with 401, made against the key the
 * service trusts. Each is named for the attack it stands for.
 */
export function refusedAuthorizations(key: SigningKey, customerId: string): [string, string][] {
  const valid = signToken(key, { customerId });
  const [header = '', payload = '', signature = ''] = valid.split('.');
  const hs256Header = b64({ alg: 'HS256', typ: 'JWT', kid: key.kid });
  const hs256Signature = createHmac('sha256', JSON.stringify(key.jwks.keys[0])).update(`${hs256Header}.${payload}`).digest('base64url');
  const tampered = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: `${customerId}-other` });
  return [
    ['an empty header', ''],
    ['a token without Bearer', valid],
    ['a Basic credential', 'Basic dXNlcjpwYXNz'],
    ['a malformed token', 'Bearer not.a-jwt'],
    ['alg none', `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`],
    ['HS256 signed with the public key', `Bearer ${hs256Header}.${payload}.${hs256Signature}`],
    ['an unknown kid', `Bearer ${signToken(key, { customerId, header: { kid: 'unknown-kid' } })}`],
    ['a wrong issuer', `Bearer ${signToken(key, { customerId, issuer: 'https://evil.test' })}`],
    ['a wrong audience', `Bearer ${signToken(key, { customerId, audience: 'another-api' })}`],
    ['an expired token', `Bearer ${signToken(key, { customerId, expiresIn: -5 })}`],
    ['a token not valid yet', `Bearer ${signToken(key, { customerId, notBefore: 600 })}`],
    ['a tampered payload', `Bearer ${header}.${tampered}.${signature}`],
    ['a token without the customer claim', `Bearer ${signToken(key, { customerId: '', extraClaims: { sub: undefined } })}`],
    ['a token signed by another key with the same kid', `Bearer ${signToken(makeSigningKey(key.kid), { customerId })}`],
    ['a token without exp', `Bearer ${signToken(key, { customerId, extraClaims: { exp: undefined } })}`],
    ['a lifetime over the maximum (25 h)', `Bearer ${signToken(key, { customerId, expiresIn: 25 * 3600 })}`],
    ['an iat in the future', `Bearer ${signToken(key, { customerId, extraClaims: { iat: Math.floor(Date.now() / 1000) + 600 } })}`],
    [
      'another aud, with our client_id',
      `Bearer ${signToken(key, { customerId, audience: 'other-api', extraClaims: { client_id: LOCAL_AUDIENCE } })}`,
    ],
    ["Cognito's ID token", `Bearer ${signToken(key, { customerId, extraClaims: { token_use: 'id' } })}`],
    ["a standard OIDC ID token (aud the app's client id, no token_use)", `Bearer ${signToken(key, { customerId, kind: 'oidc-id' })}`],
    [
      'a token marked at+jwt where the issuer marks access tokens with token_use',
      `Bearer ${signToken(key, { customerId, kind: 'at+jwt' })}`,
    ],
    ['a crit header the verifier does not understand', `Bearer ${signToken(key, { customerId, header: { crit: ['exp'], exp: 1 } })}`],
    ['a unique 7 KB issuer with the public kid and a bad signature', `Bearer ${forgedWithIssuer(key, sevenKilobyteIssuer(1), customerId)}`],
    ['a kid of 129 characters', `Bearer ${signToken(key, { customerId, header: { kid: 'k'.repeat(129) } })}`],
    ['a token over 8 KB', `Bearer ${signToken(key, { customerId, extraClaims: { padding: 'x'.repeat(6200) } })}`],
  ];
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Every spelling of the token's signature that decodes to the same bytes: its last character
 * with each value of the bits decoding drops (4 of them for a 256-byte RS256 signature, so 16
 * spellings; 2 for a 32-byte one, so 4). The token itself is the first.
 */
export function signatureSpellings(token: string): string[] {
  const cut = token.length - 1;
  const last = BASE64URL.indexOf(token.slice(cut));
  const signatureLength = token.length - token.lastIndexOf('.') - 1;
  const droppedBits = { 2: 4, 3: 2 }[signatureLength % 4] ?? 0;
  return Array.from({ length: 2 ** droppedBits }, (_, extra) => `${token.slice(0, cut)}${BASE64URL[last | extra] ?? ''}`);
}
