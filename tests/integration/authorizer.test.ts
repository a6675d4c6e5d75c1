import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizerEvent } from '../../scripts/local/api-event';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, signToken, type SigningKey } from '../../scripts/local/signing-key';
import { freePort } from '../../scripts/local/free-port';
import type { CustomerIdOf, TokenVerdict } from '../../lib/auth/token-verifier';
import { loadAuthConfig, type AuthConfig } from '../../lib/config';
import { forgedWithIssuer, refusedAuthorizations, sevenKilobyteIssuer, signatureSpellings } from '../support/jwt-attacks';

const key = makeSigningKey();

/** The authorizer's settings for the local issuer and a JWKS at `jwksUri`: lib/config.ts's defaults, and any overrides. */
const settingsFor = (jwksUri: string, overrides: Partial<AuthConfig> = {}): AuthConfig => ({
  ...loadAuthConfig({ JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, JWKS_URI: jwksUri }),
  ...overrides,
});

/** A JWKS server serving the keys of the moment, and how many times it was fetched. */
async function countingJwks(keys: () => SigningKey[]) {
  const counted = { fetches: 0 };
  const server = await startJwksServer(() => {
    counted.fetches++;
    return { keys: keys().flatMap((k) => k.jwks.keys) };
  }, 0);
  return { uri: server.uri, stop: server.stop, counted };
}

/** The reason a verification refused the token with, or what else it ended in. */
const outcomeOf = (verification: Promise<TokenVerdict>): Promise<unknown> =>
  verification.then(
    (verdict) => (verdict.ok ? { customerId: verdict.customerId } : verdict.problem),
    (error: unknown) => error,
  );
let stopJwks: () => Promise<void>;
let handler: (typeof import('../../functions/authorize-customer'))['handler'];

beforeAll(async () => {
  const jwks = await startJwksServer(key.jwks, 0);
  stopJwks = jwks.stop;
  Object.assign(process.env, {
    JWKS_URI: jwks.uri,
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  ({ handler } = await import('../../functions/authorize-customer'));
});

afterAll(() => stopJwks());

const authorize = (authorization: string) => handler(authorizerEvent(authorization === '' ? undefined : authorization));

describe('authorizer', () => {
  it('allows a valid token and passes customerId in the context, for every route of the stage', async () => {
    const result = await authorize(`Bearer ${signToken(key, { customerId: 'customer-anna' })}`);
    expect(result.principalId).toBe('customer-anna');
    expect(result.context).toEqual({ customerId: 'customer-anna' });
    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-central-1:123456789012:abc123def4/dev/*/*' },
    ]);
  });

  it('logs under the client correlation id and API Gateway request id, never the token', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const { logger } = await import('../../lib/observability/logger');
    logger.setLogLevel('INFO');
    const correlationId = '3b241101-e2bb-4255-8caf-4136c566a962';
    const token = signToken(key, { customerId: 'customer-anna', audience: 'nobody' });
    await handler(authorizerEvent(`Bearer ${token}`, { 'X-Correlation-Id': correlationId })).catch(() => undefined);
    spy.mockRestore();
    logger.setLogLevel('SILENT');
    const line = lines.find((l) => l.includes('token refused')) ?? '';
    expect(JSON.parse(line)).toMatchObject({
      correlationId,
      apiRequestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      reason: expect.stringContaining('audience'),
    });
    expect(line).not.toContain(token.split('.')[1] ?? 'x');
  });

  it('takes one spelling of a token: of the 16 that decode to the same signature, only the canonical one is allowed', async () => {
    const token = signToken(key, { customerId: 'customer-anna' });
    const spellings = signatureSpellings(token);
    expect(new Set(spellings).size).toBe(16);
    const signatures = new Set(spellings.map((spelling) => Buffer.from(spelling.split('.')[2] ?? '', 'base64url').toString('hex')));
    expect(signatures.size).toBe(1);
    const outcomes = await Promise.all(
      spellings.map((spelling) =>
        authorize(`Bearer ${spelling}`).then(
          (result) => result.principalId,
          (error: unknown) => (error instanceof Error ? error.message : error),
        ),
      ),
    );
    expect(outcomes).toEqual(['customer-anna', ...Array.from({ length: 15 }, () => 'Unauthorized')]);
  });

  it("accepts a fresh token whose issuer's clock runs 1 s ahead", async () => {
    const token = signToken(key, { customerId: 'customer-anna', extraClaims: { iat: Math.floor(Date.now() / 1000) + 1 } });
    expect((await authorize(`Bearer ${token}`)).context).toEqual({ customerId: 'customer-anna' });
  });

  it('accepts a fresh token whose nbf, like its iat, runs 5 s ahead: the skew covers both', async () => {
    const ahead = Math.floor(Date.now() / 1000) + 5;
    const token = signToken(key, { customerId: 'customer-anna', extraClaims: { iat: ahead, nbf: ahead } });
    expect((await authorize(`Bearer ${token}`)).context).toEqual({ customerId: 'customer-anna' });
  });

  it('refuses a token with less life left than the 60 s its Allow would be cached', async () => {
    await expect(authorize(`Bearer ${signToken(key, { customerId: 'customer-anna', expiresIn: 59 })}`)).rejects.toThrow(/^Unauthorized$/);
    expect((await authorize(`Bearer ${signToken(key, { customerId: 'customer-anna', expiresIn: 120 })}`)).context).toEqual({
      customerId: 'customer-anna',
    });
  });

  it('accepts the audience in client_id when the token has no aud, as Cognito access tokens', async () => {
    const token = signToken(key, { customerId: 'customer-anna', extraClaims: { aud: undefined, client_id: LOCAL_AUDIENCE } });
    expect((await authorize(`Bearer ${token}`)).context).toEqual({ customerId: 'customer-anna' });
  });

  it('fails, not refuses, when the JWKS cannot be fetched: an outage is no 401', async () => {
    const { createTokenVerifier } = await import('../../lib/auth/token-verifier');
    const verify = createTokenVerifier(settingsFor(`http://127.0.0.1:${await freePort()}/jwks.json`));
    await expect(verify(signToken(key, { customerId: 'customer-anna' }))).rejects.toBeInstanceOf(Error);
  });

  it('fails, not refuses, when the issuer publishes a malformed key: the JWKS is broken, not the token', async () => {
    const { createTokenVerifier } = await import('../../lib/auth/token-verifier');
    const broken = await startJwksServer({ keys: [...key.jwks.keys, { kid: 'no-kty', use: 'sig' }] }, 0);
    const verify = createTokenVerifier(settingsFor(broken.uri));
    const error: unknown = await verify(signToken(key, { customerId: 'customer-anna' }))
      .catch((e: unknown) => e)
      .finally(() => broken.stop());
    expect(error).toBeInstanceOf(Error);
  });

  it.each(refusedAuthorizations(key, 'customer-anna'))('refuses %s with Unauthorized (401)', async (_name, authorization) => {
    await expect(authorize(authorization)).rejects.toThrow(/^Unauthorized$/);
  });
});

describe('access tokens only, whichever way the identity provider marks them (JWT_ACCESS_TOKEN_PROOF)', () => {
  const customerId = 'customer-anna';
  const shapes = {
    cognitoAccess: () => signToken(key, { customerId, kind: 'access' }),
    cognitoId: () => signToken(key, { customerId, extraClaims: { token_use: 'id' } }),
    rfc9068Access: () => signToken(key, { customerId, kind: 'at+jwt' }),
    rfc9068AccessFullType: () => signToken(key, { customerId, kind: 'at+jwt', header: { typ: 'application/AT+JWT' } }),
    oidcId: () => signToken(key, { customerId, kind: 'oidc-id' }),
    scoped: () => signToken(key, { customerId, kind: 'oidc-id', extraClaims: { scope: 'openid termination-api/requests' } }),
  };
  type Shape = keyof typeof shapes;
  let jwksUri: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ uri: jwksUri, stop } = await startJwksServer(key.jwks, 0));
  });
  afterAll(() => stop());

  const verdicts = async (overrides: Partial<AuthConfig>, names: Shape[]) => {
    const { createTokenVerifier } = await import('../../lib/auth/token-verifier');
    const verify = createTokenVerifier(settingsFor(jwksUri, overrides));
    return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await outcomeOf(verify(shapes[name]()))] as const)));
  };
  const accepted = { customerId };

  it('token_use (Cognito, the default): an access token passes; an ID token of Cognito or of a standard OIDC provider is refused', async () => {
    expect(settingsFor(jwksUri).accessTokenProof).toBe('token_use');
    expect(await verdicts({}, ['cognitoAccess', 'cognitoId', 'oidcId', 'rfc9068Access'])).toEqual({
      cognitoAccess: accepted,
      cognitoId: 'an ID token is not an access token',
      oidcId: 'not an access token: token_use is not "access"',
      rfc9068Access: 'not an access token: token_use is not "access"',
    });
  });

  it('at+jwt (RFC 9068): a token typed at+jwt passes, in either spelling; an OIDC ID token and an untyped one are refused', async () => {
    expect(
      await verdicts({ accessTokenProof: 'at+jwt' }, ['rfc9068Access', 'rfc9068AccessFullType', 'oidcId', 'cognitoAccess', 'cognitoId']),
    ).toEqual({
      rfc9068Access: accepted,
      rfc9068AccessFullType: accepted,
      oidcId: 'not an access token: typ is not at+jwt',
      cognitoAccess: 'not an access token: typ is not at+jwt',
      cognitoId: 'an ID token is not an access token',
    });
  });

  it('scope: a token whose scope holds the required one passes; an OIDC ID token, which carries no scope, is refused', async () => {
    const settings = { accessTokenProof: 'scope', requiredScope: 'termination-api/requests' } as const;
    expect(await verdicts(settings, ['scoped', 'oidcId', 'cognitoAccess'])).toEqual({
      scoped: accepted,
      oidcId: 'no termination-api/requests in scope',
      cognitoAccess: 'no termination-api/requests in scope',
    });
  });
});

describe('refused at sight, before the library keeps anything', () => {
  it.each([
    ['another issuer', () => signToken(key, { customerId: 'customer-anna', issuer: 'https://evil.test' }), /iss/],
    ['an issuer that only starts like ours', () => signToken(key, { customerId: 'customer-anna', issuer: `${LOCAL_ISSUER}/x` }), /iss/],
    ['no issuer', () => signToken(key, { customerId: 'customer-anna', extraClaims: { iss: undefined } }), /iss/],
    ['HS256', () => signToken(key, { customerId: 'customer-anna', header: { alg: 'HS256' } }), /alg/],
    ['a kid of 129 characters', () => signToken(key, { customerId: 'customer-anna', header: { kid: 'k'.repeat(129) } }), /kid/],
    ['a kid with a space', () => signToken(key, { customerId: 'customer-anna', header: { kid: 'a b' } }), /kid/],
    ['a token over 8 KB', () => signToken(key, { customerId: 'customer-anna', extraClaims: { padding: 'x'.repeat(6200) } }), /8192 bytes/],
  ])('refuses a token with %s without fetching the JWKS, not even the first time', async (_name, token, reason) => {
    const jwks = await countingJwks(() => [key]);
    const { createTokenVerifier } = await import('../../lib/auth/token-verifier');
    const verify = createTokenVerifier(settingsFor(jwks.uri));
    const outcome = await outcomeOf(verify(token())).finally(() => jwks.stop());
    expect(outcome).toMatch(reason);
    expect(jwks.counted.fetches).toBe(0);
  });

  it('keeps nothing of 10,000 refused tokens with the public kid, a bad signature and a unique 7 KB iss', async () => {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc !== 'function') throw new Error('no gc in this Node');
    const heapAfterFullGc = () => {
      Reflect.apply(gc, undefined, []);
      Reflect.apply(gc, undefined, []);
      return process.memoryUsage().heapUsed;
    };
    const jwks = await countingJwks(() => [key]);
    const { createTokenVerifier } = await import('../../lib/auth/token-verifier');
    // The largest size a gateway lets through, so that the issuer check is what stops them.
    const verify = createTokenVerifier(settingsFor(jwks.uri, { maxTokenBytes: 10_240 }));
    await expect(verify(signToken(key, { customerId: 'customer-anna' }))).resolves.toEqual({ ok: true, customerId: 'customer-anna' });
    const reasons = new Map<unknown, number>();
    const send = async (from: number, count: number) => {
      for (let n = from; n < from + count; n++) {
        const outcome = await outcomeOf(verify(forgedWithIssuer(key, sevenKilobyteIssuer(n))));
        reasons.set(outcome, (reasons.get(outcome) ?? 0) + 1);
      }
    };
    await send(0, 500);
    const before = heapAfterFullGc();
    await send(500, 10_000);
    const growthMb = (heapAfterFullGc() - before) / 2 ** 20;
    await jwks.stop();
    expect(growthMb, `heap grew ${growthMb.toFixed(1)} MB over 10,000 refused tokens`).toBeLessThan(2);
    expect(reasons).toEqual(new Map([['iss is not the configured issuer', 10_500]]));
  });
});

describe('unknown kids and key rotation', () => {
  const oldKey = makeSigningKey();
  const newKey = makeSigningKey();
  const stranger = makeSigningKey('made-up');
  let published = [oldKey];
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const settings = settingsFor('http://127.0.0.1/unused');
  const boundMs = settings.jwksMinRefetchSeconds * 1000;
  let verify: CustomerIdOf;
  let jwks: Awaited<ReturnType<typeof countingJwks>>;

  /** A token issued now by the authorizer's clock, which the test moves. */
  const issuedNow = (signer: SigningKey, header: { kid?: string } = {}, ageSeconds = 0) => {
    const iat = Math.floor(now() / 1000) - ageSeconds;
    return signToken(signer, { customerId: 'customer-anna', header, extraClaims: { iat, exp: iat + 3600 } });
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

  beforeAll(async () => {
    jwks = await countingJwks(() => published);
    const { createTokenVerifier } = await import('../../lib/auth/token-verifier');
    verify = createTokenVerifier({ ...settings, jwksUri: jwks.uri }, now);
  });

  afterAll(() => jwks.stop());

  it('answers an unknown kid from the JWKS in hand, as fast as a known one and with no fetch, while that JWKS is younger than the bound', async () => {
    await expect(verify(issuedNow(oldKey))).resolves.toEqual({ ok: true, customerId: 'customer-anna' });
    expect(jwks.counted.fetches).toBe(1);
    const knownMs: number[] = [];
    const unknownMs: number[] = [];
    const outcomes: unknown[] = [];
    // As the attack: each made-up kid in a token issued the moment it is sent, so it may be newer than any JWKS.
    for (let n = 0; n < 20; n++) {
      const known = issuedNow(oldKey);
      let started = performance.now();
      outcomes.push(await outcomeOf(verify(known)));
      knownMs.push(performance.now() - started);
      const unknown = issuedNow(stranger, { kid: `made-up-${n}` });
      started = performance.now();
      outcomes.push(await outcomeOf(verify(unknown)));
      unknownMs.push(performance.now() - started);
    }
    const ratio = median(unknownMs) / median(knownMs);
    expect(ratio, `unknown kid ${median(unknownMs).toFixed(3)} ms, known ${median(knownMs).toFixed(3)} ms (medians)`).toBeLessThan(2);
    expect(outcomes.filter((o) => typeof o === 'string' && /not found/.test(o))).toHaveLength(20);
    expect(outcomes.filter((o) => JSON.stringify(o) === '{"customerId":"customer-anna"}')).toHaveLength(20);
    expect(jwks.counted.fetches).toBe(1);
  });

  it('refuses a key published since the last fetch until the bound has passed, then fetches once and accepts it', async () => {
    published = [oldKey, newKey];
    const before = jwks.counted.fetches;
    expect(await outcomeOf(verify(issuedNow(newKey)))).toMatch(/not found/);
    expect(jwks.counted.fetches).toBe(before);
    offsetMs += boundMs;
    await expect(verify(issuedNow(newKey))).resolves.toEqual({ ok: true, customerId: 'customer-anna' });
    await expect(verify(issuedNow(newKey))).resolves.toEqual({ ok: true, customerId: 'customer-anna' });
    expect(jwks.counted.fetches).toBe(before + 1);
  });

  it('lets many made-up kids at once, after the bound, cost one fetch', async () => {
    offsetMs += boundMs;
    const before = jwks.counted.fetches;
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, n) => outcomeOf(verify(issuedNow(stranger, { kid: `made-up-${n}` })))),
    );
    expect(outcomes.every((o) => typeof o === 'string' && /not found/.test(o))).toBe(true);
    expect(jwks.counted.fetches).toBe(before + 1);
  });

  it('does not fetch for an unknown kid in a token older than the JWKS in hand, however old that JWKS is within its TTL', async () => {
    const old = issuedNow(stranger, { kid: 'rotated-out' }, 5);
    offsetMs += boundMs;
    const before = jwks.counted.fetches;
    expect(await outcomeOf(verify(old))).toMatch(/not found/);
    expect(jwks.counted.fetches).toBe(before);
  });

  it('stops trusting a key removed from the JWKS once the cached copy is older than its TTL', async () => {
    published = [newKey];
    const token = issuedNow(oldKey);
    offsetMs += settings.jwksTtlSeconds * 1000;
    expect(await outcomeOf(verify(token))).toMatch(/not found/);
    await expect(verify(issuedNow(newKey))).resolves.toEqual({ ok: true, customerId: 'customer-anna' });
  });
});
