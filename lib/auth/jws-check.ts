import { JwtVerifier } from 'aws-jwt-verify';
import { JwtBaseError } from 'aws-jwt-verify/error';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { JwksSettings } from '../config';
import { isJwksOutage, type RefreshingJwksCache } from './jwks-cache';
import { tokenShapeBreach } from './token-rules';

/*
 * One check for the two kinds of compact JWS the service takes, a customer's token
 * (token-verifier.ts) and the back office's signature over a decision (decision-signature.ts):
 * the same shape checks before the library sees it, aws-jwt-verify, a JWKS cache, and the same
 * line between a refusal (the JWS's own fault, answered) and an outage (the JWKS, thrown).
 */

/** What a JWS says once checked: its claims, or why they are refused. */
export type JwsVerdict = { ok: true; claims: JwtPayload } | { ok: false; problem: string };

export interface JwsRules {
  issuer: string;
  /** Longest JWS taken, in bytes. */
  maxBytes: number;
  /** What the header and claims must be besides the signature, iss, exp and nbf, which the library checks: why not, if not. */
  breach: (header: JwtHeader, payload: JwtPayload, nowSeconds: number) => string | undefined;
}

/** The library's way out of its custom check: taken back as a refusal, never seen outside this module. */
class Breach extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'Breach';
  }
}

/**
 * Checks a JWS's shape, size, alg, kid and iss before the library sees it (tokenShapeBreach),
 * then its signature against the issuer's JWKS (asymmetric algorithms only), iss, exp and nbf
 * (with `clockSkewSeconds` of grace, as the issuer's clock may run ahead) and `breach`. A JWKS
 * that cannot be had, or that the issuer broke, throws.
 */
export function jwsCheck(
  settings: Pick<JwksSettings, 'jwksUri' | 'clockSkewSeconds'>,
  rules: JwsRules,
  jwksCache: RefreshingJwksCache,
  now: () => number,
): (jws: string) => Promise<JwsVerdict> {
  const shape = { issuer: rules.issuer, maxTokenBytes: rules.maxBytes };
  const verifier = JwtVerifier.create(
    {
      issuer: rules.issuer,
      jwksUri: settings.jwksUri,
      audience: null,
      graceSeconds: settings.clockSkewSeconds,
      customJwtCheck: ({ header, payload }) => {
        const breach = rules.breach(header, payload, Math.floor(now() / 1000));
        if (breach !== undefined) throw new Breach(breach);
      },
    },
    { jwksCache },
  );
  return async (jws) => {
    const misshapen = tokenShapeBreach(jws, shape);
    if (misshapen !== undefined) return { ok: false, problem: misshapen };
    try {
      return { ok: true, claims: await verifier.verify(jws) };
    } catch (error) {
      if (error instanceof Breach) return { ok: false, problem: error.problem };
      // Only the JWS's own faults are refusals. The library's message says what failed (expired,
      // signature, kid...) without the JWS itself.
      if (error instanceof JwtBaseError && !isJwksOutage(error)) return { ok: false, problem: error.message };
      throw error;
    }
  };
}
