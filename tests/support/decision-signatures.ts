import type { Fetcher } from 'aws-jwt-verify/https';
import { createDecisionSignatureCheck } from '../../lib/auth/decision-signature';
import { RefreshingJwksCache } from '../../lib/auth/jwks-cache';
import { loadDecisionConfig } from '../../lib/config';
import type { CheckSignature } from '../../lib/termination/ports/signature';
import { LOCAL_BACK_OFFICE_KEY, LOCAL_DECISION_SOURCE } from '../../scripts/local/decision-event';
import type { SigningKey } from '../../scripts/local/signing-key';

/**
 * The consumer's own signature check with its default settings, its JWKS fetched from memory: the
 * same code as deployed, without a JWKS server (the integration tests fetch one over HTTP).
 */
export function signatureCheckWith(keys: SigningKey[] = [LOCAL_BACK_OFFICE_KEY], now: () => number = Date.now): CheckSignature {
  const { signatures } = loadDecisionConfig({
    REQUESTS_TABLE_NAME: 'unused',
    DECISION_ACCOUNT_ID: '123456789012',
    DECISION_DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1/queue',
    DECISION_JWKS_URI: 'https://back-office.example/.well-known/jwks.json',
  });
  const jwks = JSON.stringify({ keys: keys.flatMap((key) => key.jwks.keys) });
  const fetcher: Fetcher = { fetch: async () => new TextEncoder().encode(jwks).buffer };
  const cache = new RefreshingJwksCache({
    fetcher,
    ttlMs: signatures.jwksTtlSeconds * 1000,
    minRefetchMs: signatures.jwksMinRefetchSeconds * 1000,
    now,
  });
  return createDecisionSignatureCheck({ ...signatures, issuer: LOCAL_DECISION_SOURCE }, now, cache);
}
