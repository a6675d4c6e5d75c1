import { describe, expect, it } from 'vitest';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { tokenRuleBreach, tokenShapeBreach, type TokenRules } from '../../lib/auth/token-rules';

const NOW = 2_000_000_000;
const rules: TokenRules = {
  audience: 'termination-api',
  accessTokenProof: 'token_use',
  requiredScope: undefined,
  maxLifetimeSeconds: 86_400,
  clockSkewSeconds: 30,
  cacheTtlSeconds: 60,
};
const header = { alg: 'RS256', kid: 'k1' };
const good: JwtPayload = {
  iss: 'https://auth.local.test',
  sub: 'customer-anna',
  aud: 'termination-api',
  token_use: 'access',
  iat: NOW - 60,
  exp: NOW + 3600,
};

/** The good payload without some claims and with others. */
function payload(drop: string[], add: JwtPayload = {}): JwtPayload {
  return { ...Object.fromEntries(Object.entries(good).filter(([claim]) => !drop.includes(claim))), ...add };
}

describe('tokenRuleBreach', () => {
  it('accepts an access token for this audience with exp and iat within the lifetime', () => {
    expect(tokenRuleBreach(header, good, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, aud: ['other', 'termination-api'] }, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, iat: NOW, exp: NOW + 86_400 }, rules, NOW)).toBeUndefined();
  });

  it.each([
    ['no exp', payload(['exp']), /no exp/],
    ['no iat', payload(['iat']), /no iat/],
    ['iat further in the future than the clock skew', { ...good, iat: NOW + 31 }, /future/],
    ['less life left than the authorizer cache keeps its answer', { ...good, exp: NOW + 59 }, /cached/],
    ['a lifetime over the maximum', { ...good, iat: NOW - 10, exp: NOW - 10 + 86_401 }, /lifetime/],
    ['an ID token', { ...good, token_use: 'id' }, /ID token/],
    ['another audience', { ...good, aud: 'other-api' }, /audience/],
    ['another audience even with our client_id', { ...good, aud: 'other-api', client_id: 'termination-api' }, /audience/],
    ['neither aud nor client_id', payload(['aud']), /audience/],
  ])('refuses %s', (_name, payload, reason) => {
    expect(tokenRuleBreach(header, payload, rules, NOW)).toMatch(reason);
  });

  it('accepts iat up to the clock skew ahead, since an issuer clock may run ahead of ours', () => {
    expect(tokenRuleBreach(header, { ...good, iat: NOW + 1 }, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, iat: NOW + 30 }, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, iat: NOW + 30 }, { ...rules, clockSkewSeconds: 0 }, NOW)).toMatch(/future/);
  });

  it('accepts a token only while it outlives the cached answer: no Allow is served past exp', () => {
    expect(tokenRuleBreach(header, { ...good, exp: NOW + 60 }, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, exp: NOW + 59 }, rules, NOW)).toMatch(/cached/);
    expect(tokenRuleBreach(header, { ...good, exp: NOW + 1 }, { ...rules, cacheTtlSeconds: 0 }, NOW)).toBeUndefined();
  });

  it('takes client_id only when aud is absent (Cognito access tokens)', () => {
    expect(tokenRuleBreach(header, payload(['aud'], { client_id: 'termination-api', token_use: 'access' }), rules, NOW)).toBeUndefined();
  });

  it('refuses a token that does not prove it is an access token, by each proof', () => {
    // An OIDC ID token: aud is the app's client id, and nothing says what the token is.
    const oidcId = payload(['token_use']);
    expect(tokenRuleBreach(header, oidcId, rules, NOW)).toMatch(/token_use is not "access"/);
    const atJwt = { ...rules, accessTokenProof: 'at+jwt' } satisfies TokenRules;
    expect(tokenRuleBreach(header, oidcId, atJwt, NOW)).toMatch(/typ is not at\+jwt/);
    expect(tokenRuleBreach({ ...header, typ: 'JWT' }, good, atJwt, NOW)).toMatch(/typ is not at\+jwt/);
    expect(tokenRuleBreach({ ...header, typ: 'at+jwt' }, oidcId, atJwt, NOW)).toBeUndefined();
    expect(tokenRuleBreach({ ...header, typ: 'application/at+JWT' }, oidcId, atJwt, NOW)).toBeUndefined();
    expect(tokenRuleBreach({ ...header, typ: 'at+jwt' }, { ...oidcId, token_use: 'id' }, atJwt, NOW)).toMatch(/ID token/);
    const scoped = { ...rules, accessTokenProof: 'scope', requiredScope: 'termination/requests' } satisfies TokenRules;
    expect(tokenRuleBreach(header, oidcId, scoped, NOW)).toMatch(/no termination\/requests in scope/);
    expect(tokenRuleBreach(header, { ...oidcId, scope: 'openid termination/requests-x' }, scoped, NOW)).toMatch(/scope/);
    expect(tokenRuleBreach(header, { ...oidcId, scope: 'openid termination/requests' }, scoped, NOW)).toBeUndefined();
    // With another proof, a required scope is asked for as well.
    expect(tokenRuleBreach(header, good, { ...rules, requiredScope: 'termination/requests' }, NOW)).toMatch(/scope/);
  });

  it('refuses any crit header parameter: it names extensions this service does not understand', () => {
    expect(tokenRuleBreach({ ...header, crit: ['b64'] }, good, rules, NOW)).toMatch(/crit/);
    expect(tokenRuleBreach({ ...header, crit: [] }, good, rules, NOW)).toMatch(/crit/);
  });
});

describe('tokenShapeBreach', () => {
  const shape = { issuer: 'https://auth.local.test', maxTokenBytes: 8192 };
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const token = (head: Record<string, unknown>, claims: Record<string, unknown>) =>
    `${b64({ ...header, ...head })}.${b64({ ...good, ...claims })}.c2ln`;

  /** The token with the segment's last character's dropped bits set (the segment must not be a multiple of 3 bytes). */
  function withLastBitsSet(value: string, segment: number): string {
    const parts = value.split('.');
    const text = parts[segment] ?? '';
    const bytes = Buffer.from(text, 'base64url');
    expect(bytes.length % 3).not.toBe(0);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    parts[segment] = `${text.slice(0, -1)}${alphabet[alphabet.indexOf(text.slice(-1)) | 1] ?? ''}`;
    expect(Buffer.from(parts[segment], 'base64url')).toEqual(bytes);
    return parts.join('.');
  }

  it('lets through a token of the configured issuer with an asymmetric alg and a key id, whatever its signature', () => {
    expect(tokenShapeBreach(token({}, {}), shape)).toBeUndefined();
    for (const alg of ['RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'])
      expect(tokenShapeBreach(token({ alg }, {}), shape)).toBeUndefined();
    expect(tokenShapeBreach(token({ kid: 'Ab+/=_-.:~'.repeat(12) + 'abcdefgh' }, {}), shape)).toBeUndefined();
  });

  it.each([
    ['another issuer', token({}, { iss: 'https://evil.test' }), /iss/],
    ['our issuer with a path added', token({}, { iss: 'https://auth.local.test/x' }), /iss/],
    ['our issuer with a trailing slash', token({}, { iss: 'https://auth.local.test/' }), /iss/],
    ['our issuer in capitals', token({}, { iss: 'HTTPS://AUTH.LOCAL.TEST' }), /iss/],
    ['no issuer', token({}, { iss: undefined }), /iss/],
    ['alg none', token({ alg: 'none' }, {}), /alg/],
    ['HS256', token({ alg: 'HS256' }, {}), /alg/],
    ['PS256', token({ alg: 'PS256' }, {}), /alg/],
    ['no alg', token({ alg: undefined }, {}), /alg/],
    ['no kid', token({ kid: undefined }, {}), /kid/],
    ['an empty kid', token({ kid: '' }, {}), /kid/],
    ['a kid of 129 characters', token({ kid: 'k'.repeat(129) }, {}), /kid/],
    ['a kid with a space', token({ kid: 'a b' }, {}), /kid/],
    ['a kid with a control character', token({ kid: 'a\nb' }, {}), /kid/],
    ['a kid beyond ASCII', token({ kid: 'ключ' }, {}), /kid/],
    ['two parts', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0', /3 parts/],
    // The same bytes spelled with the bits decoding drops set: each segment is checked.
    ['a header spelled with dropped bits set', withLastBitsSet(token({}, {}), 0), /canonical base64url/],
    ['claims spelled with dropped bits set', withLastBitsSet(token({}, {}), 1), /canonical base64url/],
    ['a signature spelled with dropped bits set', withLastBitsSet(`${token({}, {}).slice(0, -4)}c2lnbg`, 2), /canonical base64url/],
    ['a signature of a length no bytes have', `${token({}, {}).slice(0, -4)}c2lnx`, /canonical base64url/],
    ['a header that is no JSON object', `${Buffer.from('[1]').toString('base64url')}.${b64(good)}.c2ln`, /header/],
  ])('refuses %s', (_name, value, reason) => {
    expect(tokenShapeBreach(value, shape)).toMatch(reason);
  });

  it('refuses a token over the size limit before reading it, and takes one at the limit', () => {
    const long = token({}, { pad: 'x'.repeat(6000) });
    expect(tokenShapeBreach(long, { ...shape, maxTokenBytes: long.length })).toBeUndefined();
    expect(tokenShapeBreach(long, { ...shape, maxTokenBytes: long.length - 1 })).toMatch(new RegExp(`over ${long.length - 1} bytes`));
    // Not even the header is read: over the limit, the size alone refuses.
    expect(tokenShapeBreach('x'.repeat(8193), shape)).toMatch(/over 8192 bytes/);
  });
});
