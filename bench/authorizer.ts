import { createPublicKey, verify } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, signToken, type SigningKey } from '../scripts/local/signing-key';
import { authorizerEvent } from './api-event';
import { CUSTOMER } from './fixtures';
import { percentile } from './latency';

/*
 * The authorizer's cost per call once its JWKS is cached: functions/authorize-customer.ts
 * imported in this process against the local JWKS server, every fetch counted. Its floor is the
 * RS256 signature check alone (node:crypto verify with a ready public key) of the same token.
 */

export interface AuthorizerResult {
  /** JWKS fetches while the module loaded: none expected, the keys are fetched on first use. */
  fetchesAtImport: number;
  firstCallMs: number;
  fetchesOnFirstCall: number;
  warm: { p50: number; p99: number; fetches: number; iterations: number };
  bareVerify: { p50: number; p99: number };
}

type FetchArgs = Parameters<typeof fetch>;

export async function measureAuthorizer(key: SigningKey, jwksUri: string, iterations: number): Promise<AuthorizerResult> {
  Object.assign(process.env, { JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, JWKS_URI: jwksUri });
  let fetches = 0;
  const originalFetch = globalThis.fetch;
  globalThis.fetch = (input: FetchArgs[0], init?: FetchArgs[1]) => {
    fetches++;
    return originalFetch(input, init);
  };
  try {
    const { handler } = await import('../functions/authorize-customer');
    const fetchesAtImport = fetches;
    const token = signToken(key, { customerId: CUSTOMER });
    const event = authorizerEvent(token);

    const started = performance.now();
    const first = await handler(event);
    const firstCallMs = performance.now() - started;
    if (first.principalId !== CUSTOMER) throw new Error('authorizer did not allow the bench token');
    const fetchesOnFirstCall = fetches - fetchesAtImport;

    const warm: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t = performance.now();
      await handler(event);
      warm.push(performance.now() - t);
    }

    const [headerB64 = '', payloadB64 = '', signatureB64 = ''] = token.split('.');
    const publicKey = createPublicKey(key.privateKey);
    const signed = Buffer.from(`${headerB64}.${payloadB64}`);
    const signature = Buffer.from(signatureB64, 'base64url');
    const bare: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t = performance.now();
      if (!verify('sha256', signed, publicKey, signature)) throw new Error('bare RS256 verify failed');
      bare.push(performance.now() - t);
    }
    return {
      fetchesAtImport,
      firstCallMs,
      fetchesOnFirstCall,
      warm: { p50: percentile(warm, 50), p99: percentile(warm, 99), fetches: fetches - fetchesOnFirstCall - fetchesAtImport, iterations },
      bareVerify: { p50: percentile(bare, 50), p99: percentile(bare, 99) },
    };
  } finally {
    globalThis.fetch = originalFetch;
  }
}
