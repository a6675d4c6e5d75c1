import { describe, expect, it } from 'vitest';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { tokenRuleBreach } from '../../lib/auth/token-rules';

const NOW = 2_000_000_000;
const rules = { audience: 'termination-api', maxLifetimeSeconds: 86_400, clockSkewSeconds: 30, cacheTtlSeconds: 60 };
const header = { alg: 'RS256', kid: 'k1' };
const good: JwtPayload = { iss: 'https://auth.local.test', sub: 'customer-anna', aud: 'termination-api', iat: NOW - 60, exp: NOW + 3600 };

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

  it('accepts iat up to the clock skew ahead, since an issuer clock may run ahead of ours (issue 15.5)', () => {
    expect(tokenRuleBreach(header, { ...good, iat: NOW + 1 }, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, iat: NOW + 30 }, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, iat: NOW + 30 }, { ...rules, clockSkewSeconds: 0 }, NOW)).toMatch(/future/);
  });

  it('accepts a token only while it outlives the cached answer: no Allow is served past exp (issue 15.5)', () => {
    expect(tokenRuleBreach(header, { ...good, exp: NOW + 60 }, rules, NOW)).toBeUndefined();
    expect(tokenRuleBreach(header, { ...good, exp: NOW + 59 }, rules, NOW)).toMatch(/cached/);
    expect(tokenRuleBreach(header, { ...good, exp: NOW + 1 }, { ...rules, cacheTtlSeconds: 0 }, NOW)).toBeUndefined();
  });

  it('takes client_id only when aud is absent (Cognito access tokens)', () => {
    expect(tokenRuleBreach(header, payload(['aud'], { client_id: 'termination-api', token_use: 'access' }), rules, NOW)).toBeUndefined();
  });

  it('refuses any crit header parameter: it names extensions this service does not understand', () => {
    expect(tokenRuleBreach({ ...header, crit: ['b64'] }, good, rules, NOW)).toMatch(/crit/);
    expect(tokenRuleBreach({ ...header, crit: [] }, good, rules, NOW)).toMatch(/crit/);
  });
});
