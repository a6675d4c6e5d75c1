import { createHmac } from 'node:crypto';
import { LOCAL_AUDIENCE, makeSigningKey, signToken, type SigningKey } from '../../scripts/local/signing-key';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

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
    ['an ID token', `Bearer ${signToken(key, { customerId, extraClaims: { token_use: 'id' } })}`],
    ['a crit header the verifier does not understand', `Bearer ${signToken(key, { customerId, header: { crit: ['exp'], exp: 1 } })}`],
  ];
}
