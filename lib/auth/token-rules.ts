import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';

/*
 * The checks aws-jwt-verify leaves to its caller (docs/decisions/0003-authentication.md). The
 * library verifies the signature, iss, exp and nbf when present; these run after it.
 */

export interface TokenRules {
  audience: string;
  /** Longest accepted `exp - iat`. */
  maxLifetimeSeconds: number;
  /** How far ahead of this clock an issuer's clock may be: `iat` up to this far ahead is accepted. */
  clockSkewSeconds: number;
  /**
   * How long API Gateway keeps this answer for the token. A token with less life left is refused,
   * so a cached Allow never outlives the token's `exp`.
   */
  cacheTtlSeconds: number;
}

/** `aud` decides when the token has one; only a token without `aud` may name us in `client_id`. */
function isForUs(payload: JwtPayload, audience: string): boolean {
  const { aud } = payload;
  if (aud !== undefined) return aud === audience || (Array.isArray(aud) && aud.includes(audience));
  return payload['client_id'] === audience;
}

/** Why the token must be refused, or undefined when these rules accept it. */
export function tokenRuleBreach(header: JwtHeader, payload: JwtPayload, rules: TokenRules, nowSeconds: number): string | undefined {
  // A critical extension is one we must understand to use the token; we understand none.
  if ('crit' in header) return 'crit header parameter not supported';
  const { exp, iat } = payload;
  if (typeof exp !== 'number') return 'no exp claim';
  if (typeof iat !== 'number') return 'no iat claim';
  if (iat > nowSeconds + rules.clockSkewSeconds) return 'iat in the future';
  if (exp - iat > rules.maxLifetimeSeconds) return `lifetime over ${rules.maxLifetimeSeconds} s`;
  if (exp - nowSeconds < rules.cacheTtlSeconds) return `expires within the ${rules.cacheTtlSeconds} s the authorizer's answer is cached`;
  if (payload['token_use'] === 'id') return 'an ID token is not an access token';
  if (!isForUs(payload, rules.audience)) return 'audience not allowed';
  return undefined;
}
