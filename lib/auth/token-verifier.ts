import type { AuthConfig } from '../config';
import { jwsCheck } from './jws-check';
import { jwksCacheFor } from './jwks-cache';
import { tokenRuleBreach } from './token-rules';

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*) *$/i;
const CUSTOMER_ID = /^[^\s\p{Cc}]{1,128}$/u;

/** The token of an `Authorization: Bearer <JWT>` header, scheme in any case; undefined for any other header, or none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  return match?.[1];
}

/** What the caller's token says once checked: the customer it names, or why it is refused (API Gateway's 401). */
export type TokenVerdict = { ok: true; customerId: string } | { ok: false; problem: string };

/** Checks a bearer token (undefined: the header held none). Throws only when the JWKS cannot be had: an outage, never a refusal. */
export type CustomerIdOf = (token: string | undefined) => Promise<TokenVerdict>;

/**
 * Checks the token's shape, size, alg, kid and iss before the library sees it, then verifies the
 * signature (against the issuer's JWKS, asymmetric algorithms only), iss, exp, nbf and the rules
 * of token-rules.ts, and answers the customer id from the configured claim.
 */
export function createTokenVerifier(config: AuthConfig, now: () => number = Date.now): CustomerIdOf {
  const rules = {
    audience: config.audience,
    accessTokenProof: config.accessTokenProof,
    requiredScope: config.requiredScope,
    maxLifetimeSeconds: config.maxTokenLifetimeSeconds,
    clockSkewSeconds: config.clockSkewSeconds,
    cacheTtlSeconds: config.cacheTtlSeconds,
  };
  const check = jwsCheck(
    config,
    {
      issuer: config.issuer,
      maxBytes: config.maxTokenBytes,
      breach: (header, payload, nowSeconds) => tokenRuleBreach(header, payload, rules, nowSeconds),
    },
    jwksCacheFor(config, now),
    now,
  );
  return async (token) => {
    if (token === undefined) return { ok: false, problem: 'no bearer token' };
    const verdict = await check(token);
    if (!verdict.ok) return verdict;
    const customerId = verdict.claims[config.customerIdClaim];
    if (typeof customerId !== 'string' || !CUSTOMER_ID.test(customerId))
      return { ok: false, problem: `no usable ${config.customerIdClaim} claim` };
    return { ok: true, customerId };
  };
}
