import { KidNotFoundInJwksError, JwtWithoutValidKidError } from 'aws-jwt-verify/error';
import type { Fetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache, type Jwks, type JwksCache, type JwkWithKid } from 'aws-jwt-verify/jwk';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';

interface DecomposedJwt {
  header: JwtHeader;
  payload: JwtPayload;
}

export interface JwksCacheOptions {
  fetcher?: Fetcher;
  /** A JWKS older than this is fetched again, so a key the issuer removed stops being trusted. */
  ttlMs: number;
  /** Fetches caused by unknown kids are at least this far apart. */
  minRefetchGapMs: number;
  now?: () => number;
}

/**
 * The library's cache keeps a JWKS for the life of the Lambda environment and, after a kid it
 * cannot find, refuses every unknown kid for 10 s: a genuine token signed with a key the issuer
 * has just published would get 401 in that window. This one refreshes by age, and fetches again
 * for an unknown kid only when the token may be newer than the JWKS (issuers publish a key
 * before they sign with it): it waits out a short gap between such fetches instead of refusing,
 * so made-up kids cost the issuer at most one fetch per gap, and a genuine token never a 401.
 * A JWKS that cannot be fetched is an outage (FetchError), never the token's fault.
 */
export class RefreshingJwksCache implements JwksCache {
  private readonly store: SimpleJwksCache;
  private readonly fetchedAt = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: JwksCacheOptions) {
    this.store = new SimpleJwksCache(options.fetcher ? { fetcher: options.fetcher } : undefined);
    this.now = options.now ?? Date.now;
  }

  addJwks(jwksUri: string, jwks: Jwks): void {
    this.store.addJwks(jwksUri, jwks);
    this.fetchedAt.set(jwksUri, this.now());
  }

  /** Fetches now; concurrent callers share one fetch. */
  async getJwks(jwksUri: string): Promise<Jwks> {
    const jwks = await this.store.getJwks(jwksUri);
    this.fetchedAt.set(jwksUri, this.now());
    return jwks;
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

    const { iat } = decomposedJwt.payload;
    if (!this.mayPredateKey(jwksUri, iat)) throw new KidNotFoundInJwksError(`JWK for kid "${kid}" not found in the JWKS`);
    const gap = (this.fetchedAt.get(jwksUri) ?? 0) + this.options.minRefetchGapMs - this.now();
    if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
    // Another caller may have fetched while this one waited.
    if (this.mayPredateKey(jwksUri, iat)) await this.getJwks(jwksUri);
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
}
