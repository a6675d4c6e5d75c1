import {
  FetchError,
  JwkValidationError,
  JwksNotAvailableInCacheError,
  JwksValidationError,
  KidNotFoundInJwksError,
  JwtWithoutValidKidError,
  ParameterValidationError,
} from 'aws-jwt-verify/error';
import type { Fetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache, type Jwks, type JwksCache, type JwkWithKid } from 'aws-jwt-verify/jwk';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import { isLoopbackHttp, type JwksSettings } from '../config';

interface DecomposedJwt {
  header: JwtHeader;
  payload: JwtPayload;
}

export interface JwksCacheOptions {
  fetcher?: Fetcher;
  /** A JWKS older than this is fetched again, so a key the issuer removed stops being trusted. */
  ttlMs: number;
  /** An unknown kid makes a fetch only when the last one began at least this long ago. */
  minRefetchMs: number;
  now?: () => number;
}

/**
 * The library's cache keeps a JWKS for the life of the Lambda environment and, after a kid it
 * cannot find, makes the next call for that kid wait out a penalty before fetching again. This
 * one refreshes by age, and answers an unknown kid at once from the JWKS in hand: it fetches
 * again only when the token may be newer than that JWKS (issuers publish a key before they sign
 * with it) and the last fetch began at least `minRefetchMs` ago. So made-up kids cost the issuer
 * at most one fetch per `minRefetchMs` and their callers no wait, and a genuine token signed with
 * a key published at least `minRefetchMs` before it is never refused. One fetch at a time: every
 * caller that needs one meanwhile shares it. A JWKS that cannot be fetched is an outage
 * (FetchError), never the token's fault.
 */
export class RefreshingJwksCache implements JwksCache {
  private readonly store: SimpleJwksCache;
  /** When the fetch that gave the JWKS in hand began. */
  private readonly fetchedAt = new Map<string, number>();
  /** When the last fetch began, whether it succeeded or not. */
  private readonly triedAt = new Map<string, number>();
  private readonly fetching = new Map<string, Promise<Jwks>>();
  private readonly now: () => number;

  constructor(private readonly options: JwksCacheOptions) {
    this.store = new SimpleJwksCache(options.fetcher ? { fetcher: options.fetcher } : undefined);
    this.now = options.now ?? Date.now;
  }

  addJwks(jwksUri: string, jwks: Jwks): void {
    this.store.addJwks(jwksUri, jwks);
    this.fetchedAt.set(jwksUri, this.now());
  }

  /** Fetches now, unless a fetch is under way: then its callers share that one. */
  getJwks(jwksUri: string): Promise<Jwks> {
    const running = this.fetching.get(jwksUri);
    if (running) return running;
    const startedAt = this.now();
    this.triedAt.set(jwksUri, startedAt);
    const fetch = this.store
      .getJwks(jwksUri)
      .then((jwks) => {
        this.fetchedAt.set(jwksUri, startedAt);
        return jwks;
      })
      .finally(() => this.fetching.delete(jwksUri));
    this.fetching.set(jwksUri, fetch);
    return fetch;
  }

  getCachedJwk(jwksUri: string, decomposedJwt: DecomposedJwt): JwkWithKid {
    return this.store.getCachedJwk(jwksUri, decomposedJwt);
  }

  async getJwk(jwksUri: string, decomposedJwt: DecomposedJwt): Promise<JwkWithKid> {
    const { kid } = decomposedJwt.header;
    if (typeof kid !== 'string') throw new JwtWithoutValidKidError('JWT header does not have valid kid claim');
    const fetchedAt = this.fetchedAt.get(jwksUri);
    if (fetchedAt === undefined || this.now() - fetchedAt >= this.options.ttlMs) await this.getJwks(jwksUri);
    const known = this.find(jwksUri, decomposedJwt);
    if (known) return known;
    if (!this.mayPredateKey(jwksUri, decomposedJwt.payload.iat) || !this.mayRefetch(jwksUri))
      throw new KidNotFoundInJwksError(`JWK for kid "${kid}" not found in the JWKS`);
    await this.getJwks(jwksUri);
    return this.store.getCachedJwk(jwksUri, decomposedJwt);
  }

  private find(jwksUri: string, decomposedJwt: DecomposedJwt): JwkWithKid | undefined {
    try {
      return this.store.getCachedJwk(jwksUri, decomposedJwt);
    } catch (error) {
      if (error instanceof KidNotFoundInJwksError) return undefined;
      throw error;
    }
  }

  /** Whether the JWKS in hand was fetched no later than the token was issued (iat has whole seconds). */
  private mayPredateKey(jwksUri: string, iat: unknown): boolean {
    if (typeof iat !== 'number' || iat * 1000 > this.now()) return false;
    return (this.fetchedAt.get(jwksUri) ?? 0) < (iat + 1) * 1000;
  }

  /** A fetch under way is shared; a new one only when the last began `minRefetchMs` ago or more. */
  private mayRefetch(jwksUri: string): boolean {
    if (this.fetching.has(jwksUri)) return true;
    const triedAt = this.triedAt.get(jwksUri);
    return triedAt === undefined || this.now() - triedAt >= this.options.minRefetchMs;
  }
}

/**
 * aws-jwt-verify fetches JWKS over HTTPS only. The local stack serves its JWKS over HTTP on
 * loopback, so only there the keys come through Node's fetch; every other URI keeps the
 * library's own HTTPS fetcher.
 */
const loopbackFetcher: Fetcher = {
  fetch: async (uri) => {
    const response = await fetch(uri, { signal: AbortSignal.timeout(3000) }).catch((error: unknown) => {
      throw new FetchError(uri, error instanceof Error ? error.message : 'fetch failed');
    });
    if (!response.ok) throw new FetchError(uri, `status ${response.status}`);
    return response.arrayBuffer();
  },
};

/**
 * The cache for one JWKS, as the authorizer (customer tokens) and the consumer (the back
 * office's decisions) both use it: the same refresh by age and the same bound on refetches.
 */
export function jwksCacheFor(settings: JwksSettings, now: () => number = Date.now): RefreshingJwksCache {
  return new RefreshingJwksCache({
    ...(isLoopbackHttp(settings.jwksUri) ? { fetcher: loopbackFetcher } : {}),
    ttlMs: settings.jwksTtlSeconds * 1000,
    minRefetchMs: settings.jwksMinRefetchSeconds * 1000,
    now,
  });
}

/**
 * A JWKS that cannot be had, or that the issuer broke (one malformed key fails every token), is
 * an outage: never the fault of the token or signature being checked, so never a refusal.
 */
export function isJwksOutage(error: unknown): boolean {
  return (
    error instanceof FetchError ||
    error instanceof JwksValidationError ||
    error instanceof JwkValidationError ||
    error instanceof JwksNotAvailableInCacheError ||
    error instanceof ParameterValidationError
  );
}
