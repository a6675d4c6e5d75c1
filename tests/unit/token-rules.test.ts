import { describe, expect, it } from 'vitest';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { tokenRuleBreach } from '../../lib/auth/token-rules';

const NOW = 2_000_000_000;
const rules = { audience: 'termination-api', maxLifetimeSeconds: 86_400 };
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
    ['iat in the future', { ...good, iat: NOW + 1 }, /future/],
    ['a lifetime over the maximum', { ...good, iat: NOW - 10, exp: NOW - 10 + 86_401 }, /lifetime/],
    ['an ID token', { ...good, token_use: 'id' }, /ID token/],
    ['another audience', { ...good, aud: 'other-api' }, /audience/],
    ['another audience even with our client_id', { ...good, aud: 'other-api', client_id: 'termination-api' }, /audience/],
    ['neither aud nor client_id', payload(['aud']), /audience/],
  ])('refuses %s', (_name, payload, reason) => {
    expect(tokenRuleBreach(header, payload, rules, NOW)).toMatch(reason);
  });

  it('takes client_id only when aud is absent (Cognito access tokens)', () => {
    expect(tokenRuleBreach(header, payload(['aud'], { client_id: 'termination-api', token_use: 'access' }), rules, NOW)).toBeUndefined();
  });

  it('refuses any crit header parameter: it names extensions this service does not understand', () => {
    expect(tokenRuleBreach({ ...header, crit: ['b64'] }, good, rules, NOW)).toMatch(/crit/);
    expect(tokenRuleBreach({ ...header, crit: [] }, good, rules, NOW)).toMatch(/crit/);
  });
});
