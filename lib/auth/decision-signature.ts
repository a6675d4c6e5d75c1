import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { JwksSettings } from '../config';
import type { CheckSignature } from '../termination/ports/signature';
import { jwsCheck } from './jws-check';
import { jwksCacheFor, type RefreshingJwksCache } from './jwks-cache';

/*
 * The back office's signature over a decision (docs/decisions/0017-lifecycle.md, docs/events.md):
 * a compact JWS, checked with what the authorizer checks customer tokens with (jws-check.ts: its shape checks
 * before the library sees it, aws-jwt-verify, the same JWKS cache), against the back office's
 * own JWKS. What the claims must say of the decision is the use case's rule; this only says
 * whether the back office signed these claims.
 */

/**
 * Longest signature taken, in bytes: a decision's claims with a reason of 1000 characters, each
 * written as a six-byte \u escape, in base64url, with the largest RSA signature, fit well below.
 */
export const MAX_SIGNATURE_BYTES = 16_384;

/** What a decision's signature must be besides its signature, iss and nbf, which the library checks. */
export function decisionSignatureBreach(
  header: JwtHeader,
  payload: JwtPayload,
  clockSkewSeconds: number,
  nowSeconds: number,
): string | undefined {
  if ('crit' in header) return 'crit header parameter not supported';
  // A decision must verify as long as it may wait in the dead-letter queue: its key's life in the
  // JWKS bounds it, never an exp a redrive could outlast.
  if ('exp' in payload) return 'exp is not allowed: a decision stays valid while its key is in the JWKS';
  const { iat } = payload;
  if (typeof iat !== 'number') return 'no iat claim';
  if (iat > nowSeconds + clockSkewSeconds) return 'iat in the future';
  return undefined;
}

/**
 * Checks a decision's signature against the back office's JWKS: its claims, or why it is not the
 * back office's. A JWKS that cannot be had throws, so the invocation is tried again.
 */
export function createDecisionSignatureCheck(
  settings: JwksSettings & { issuer: string },
  now: () => number = Date.now,
  /** The JWKS cache: one of its own unless given (a test's, with the keys in hand). */
  jwksCache: RefreshingJwksCache = jwksCacheFor(settings, now),
): CheckSignature {
  return jwsCheck(
    settings,
    {
      issuer: settings.issuer,
      maxBytes: MAX_SIGNATURE_BYTES,
      breach: (header, payload, nowSeconds) => decisionSignatureBreach(header, payload, settings.clockSkewSeconds, nowSeconds),
    },
    jwksCache,
    now,
  );
}
