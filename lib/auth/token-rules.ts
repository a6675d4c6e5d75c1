import { JwtBaseError } from 'aws-jwt-verify/error';
import { decomposeUnverifiedJwt } from 'aws-jwt-verify/jwt';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import { supportedSignatureAlgorithms } from 'aws-jwt-verify/jwt-verifier';
import type { AccessTokenProof } from '../config';

/*
 * The checks aws-jwt-verify leaves to its caller (docs/decisions/0003-authentication.md), in two
 * stages. tokenShapeBreach runs before the library sees the token: the library keys its cache of
 * public keys by the token's own `iss` before it checks the signature, so a refused token must
 * never reach it with an issuer, algorithm, kid or size of its choosing. The library then
 * verifies the signature, iss, exp and nbf when present, and tokenRuleBreach runs after it.
 */

/** What a token must look like before anything of it is handed on or cached. */
export interface TokenShape {
  /** The one issuer trusted: `iss` must equal it exactly. */
  issuer: string;
  /** Longest token, in bytes (a JWT is ASCII, so in characters too). */
  maxTokenBytes: number;
}

/** A key id as issuers write them: 1 to 128 printable ASCII characters, no space. */
const KID_PATTERN = /^[!-~]{1,128}$/;

/**
 * True when every segment is the one base64url spelling of its bytes. The last character of a
 * segment carries bits that decoding drops (2 or 4 of them): a library that decodes ignores them,
 * so one signature has up to 16 spellings, each a token of its own to a cache or a counter keyed
 * by the text. Decoding and encoding again gives the canonical spelling back, and only it.
 */
export function isCanonicalBase64Url(token: string): boolean {
  return token.split('.').every((segment) => Buffer.from(segment, 'base64url').toString('base64url') === segment);
}

/** Why the token must be refused before the library sees it, or undefined when it may go on. */
export function tokenShapeBreach(token: string, shape: TokenShape): string | undefined {
  if (token.length > shape.maxTokenBytes) return `token over ${shape.maxTokenBytes} bytes`;
  if (!isCanonicalBase64Url(token)) return 'a segment is not canonical base64url';
  let header: JwtHeader;
  let payload: JwtPayload;
  try {
    ({ header, payload } = decomposeUnverifiedJwt(token));
  } catch (error) {
    if (error instanceof JwtBaseError) return error.message;
    throw error;
  }
  // Only the asymmetric algorithms the library verifies: never none, never HMAC.
  if (!supportedSignatureAlgorithms.some((alg) => alg === header.alg)) return 'alg is not an accepted asymmetric algorithm';
  if (typeof header.kid !== 'string' || !KID_PATTERN.test(header.kid)) return 'no kid of the accepted shape';
  // The value itself is never echoed: it is the caller's, and may be kilobytes long.
  if (payload.iss !== shape.issuer) return 'iss is not the configured issuer';
  return undefined;
}

export interface TokenRules {
  audience: string;
  accessTokenProof: AccessTokenProof;
  /** A scope the token's `scope` must hold; required with the `scope` proof, optional with the others. */
  requiredScope: string | undefined;
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

/** RFC 9068's media type, with or without its `application/` prefix, in any case (RFC 7515's `typ`). */
const AT_JWT = /^(application\/)?at\+jwt$/i;

/** Why the token is not an access token by the configured proof, or undefined when it is one. */
function accessTokenBreach(header: JwtHeader, payload: JwtPayload, rules: TokenRules): string | undefined {
  // Cognito's ID tokens say what they are whatever the proof configured.
  if (payload['token_use'] === 'id') return 'an ID token is not an access token';
  if (rules.accessTokenProof === 'token_use' && payload['token_use'] !== 'access') return 'not an access token: token_use is not "access"';
  if (rules.accessTokenProof === 'at+jwt' && !(typeof header.typ === 'string' && AT_JWT.test(header.typ)))
    return 'not an access token: typ is not at+jwt';
  if (rules.requiredScope !== undefined) {
    const scope = payload['scope'];
    if (typeof scope !== 'string' || !scope.split(' ').includes(rules.requiredScope)) return `no ${rules.requiredScope} in scope`;
  }
  return undefined;
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
  const notAccess = accessTokenBreach(header, payload, rules);
  if (notAccess !== undefined) return notAccess;
  if (!isForUs(payload, rules.audience)) return 'audience not allowed';
  return undefined;
}
