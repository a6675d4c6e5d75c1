import { JwtVerifier } from 'aws-jwt-verify';
import { JwtBaseError } from 'aws-jwt-verify/error';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { AuthConfig } from '../config';
import { isJwksOutage, jwksCacheFor } from './jwks-cache';
import { tokenRuleBreach, tokenShapeBreach } from './token-rules';

/** A refusal of the caller's credentials: API Gateway turns it into 401. */
export class InvalidTokenError extends Error {
  constructor(readonly reason: string) {
    super('Unauthorized');
    this.name = 'InvalidTokenError';
  }
}

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*) *$/i;
const CUSTOMER_ID = /^[^\s\p{Cc}]{1,128}$/u;

export function bearerToken(authorization: string | undefined): string {
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  if (!match?.[1]) throw new InvalidTokenError('no bearer token');
  return match[1];
}

export type CustomerIdOf = (token: string) => Promise<string>;

/**
 * Checks the token's shape, size, alg, kid and iss before the library sees it, then verifies the
 * signature (against the issuer's JWKS, asymmetric algorithms only), iss, exp, nbf and the rules
 * of token-rules.ts, and returns the customer id from the configured claim.
 */
export function createTokenVerifier(config: AuthConfig, now: () => number = Date.now): CustomerIdOf {
  const jwksCache = jwksCacheFor(config, now);
  const shape = { issuer: config.issuer, maxTokenBytes: config.maxTokenBytes };
  const rules = {
    audience: config.audience,
    accessTokenProof: config.accessTokenProof,
    requiredScope: config.requiredScope,
    maxLifetimeSeconds: config.maxTokenLifetimeSeconds,
    clockSkewSeconds: config.clockSkewSeconds,
    cacheTtlSeconds: config.cacheTtlSeconds,
  };
  const verifier = JwtVerifier.create(
    {
      issuer: config.issuer,
      jwksUri: config.jwksUri,
      audience: null,
      // The issuer's clock may run ahead: nbf (and exp) get the same grace as iat.
      graceSeconds: config.clockSkewSeconds,
      customJwtCheck: ({ header, payload }) => {
        const breach = tokenRuleBreach(header, payload, rules, Math.floor(now() / 1000));
        if (breach !== undefined) throw new InvalidTokenError(breach);
      },
    },
    { jwksCache },
  );
  return async (token) => {
    const misshapen = tokenShapeBreach(token, shape);
    if (misshapen !== undefined) throw new InvalidTokenError(misshapen);
    let payload: JwtPayload;
    try {
      payload = await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      // Only the token's own faults are a 401; a JWKS that cannot be had is an outage (503).
      // The library's message says what failed (expired, signature, kid...) without the token itself.
      if (error instanceof JwtBaseError && !isJwksOutage(error)) throw new InvalidTokenError(error.message);
      throw error;
    }
    const customerId = payload[config.customerIdClaim];
    if (typeof customerId !== 'string' || !CUSTOMER_ID.test(customerId))
      throw new InvalidTokenError(`no usable ${config.customerIdClaim} claim`);
    return customerId;
  };
}
