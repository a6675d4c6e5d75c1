import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizerEvent } from '../../scripts/local/api-event';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, signToken } from '../../scripts/local/signing-key';
import { freePort } from '../../scripts/local/free-port';
import { refusedAuthorizations } from '../support/jwt-attacks';

const key = makeSigningKey();
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

  it("accepts a fresh token whose issuer's clock runs 1 s ahead (issue 15.5)", async () => {
    const token = signToken(key, { customerId: 'customer-anna', extraClaims: { iat: Math.floor(Date.now() / 1000) + 1 } });
    expect((await authorize(`Bearer ${token}`)).context).toEqual({ customerId: 'customer-anna' });
  });

  it('accepts a fresh token whose nbf, like its iat, runs 5 s ahead: the skew covers both', async () => {
    const ahead = Math.floor(Date.now() / 1000) + 5;
    const token = signToken(key, { customerId: 'customer-anna', extraClaims: { iat: ahead, nbf: ahead } });
    expect((await authorize(`Bearer ${token}`)).context).toEqual({ customerId: 'customer-anna' });
  });

  it('refuses a token with less life left than the 60 s its Allow would be cached (issue 15.5)', async () => {
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
    const { createTokenVerifier, InvalidTokenError } = await import('../../lib/auth/token-verifier');
    const verify = createTokenVerifier({
      issuer: LOCAL_ISSUER,
      audience: LOCAL_AUDIENCE,
      jwksUri: `http://127.0.0.1:${await freePort()}/jwks.json`,
      customerIdClaim: 'sub',
      maxTokenLifetimeSeconds: 86_400,
      jwksTtlSeconds: 300,
      clockSkewSeconds: 30,
      cacheTtlSeconds: 60,
    });
    const error: unknown = await verify(signToken(key, { customerId: 'customer-anna' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(InvalidTokenError);
  });

  it('fails, not refuses, when the issuer publishes a malformed key: the JWKS is broken, not the token', async () => {
    const { createTokenVerifier, InvalidTokenError } = await import('../../lib/auth/token-verifier');
    const broken = await startJwksServer({ keys: [...key.jwks.keys, { kid: 'no-kty', use: 'sig' }] }, 0);
    const verify = createTokenVerifier({
      issuer: LOCAL_ISSUER,
      audience: LOCAL_AUDIENCE,
      jwksUri: broken.uri,
      customerIdClaim: 'sub',
      maxTokenLifetimeSeconds: 86_400,
      jwksTtlSeconds: 300,
      clockSkewSeconds: 30,
      cacheTtlSeconds: 60,
    });
    const error: unknown = await verify(signToken(key, { customerId: 'customer-anna' }))
      .catch((e: unknown) => e)
      .finally(() => broken.stop());
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(InvalidTokenError);
  });

  it.each(refusedAuthorizations(key, 'customer-anna'))('refuses %s with Unauthorized (401)', async (_name, authorization) => {
    await expect(authorize(authorization)).rejects.toThrow(/^Unauthorized$/);
  });
});

describe('key rotation (the JWKS of the moment)', () => {
  const oldKey = makeSigningKey();
  const newKey = makeSigningKey();
  let published = [oldKey];
  let offsetMs = 0;
  let verify: (token: string) => Promise<string>;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const server = await startJwksServer(() => ({ keys: published.flatMap((k) => k.jwks.keys) }), 0);
    stop = server.stop;
    const { createTokenVerifier } = await import('../../lib/auth/token-verifier');
    const config = { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, jwksUri: server.uri, customerIdClaim: 'sub' };
    verify = createTokenVerifier(
      { ...config, maxTokenLifetimeSeconds: 86_400, jwksTtlSeconds: 300, clockSkewSeconds: 30, cacheTtlSeconds: 60 },
      () => Date.now() + offsetMs,
    );
  });

  afterAll(() => stop());

  it('accepts a key published after the last fetch, right after a made-up kid was refused', async () => {
    published = [oldKey];
    await expect(verify(signToken(oldKey, { customerId: 'customer-anna' }))).resolves.toBe('customer-anna');
    await expect(verify(signToken(makeSigningKey('made-up'), { customerId: 'customer-anna' }))).rejects.toMatchObject({
      reason: expect.stringMatching(/not found/),
    });
    published = [oldKey, newKey];
    // The library's own cache refuses every unknown kid for 10 s after a miss: this is the genuine rotation.
    await expect(verify(signToken(newKey, { customerId: 'customer-boris' }))).resolves.toBe('customer-boris');
  });

  it('stops trusting a key removed from the JWKS once the cached copy is older than its TTL', async () => {
    published = [newKey];
    const token = signToken(oldKey, { customerId: 'customer-anna' });
    offsetMs = 301_000;
    await expect(verify(token)).rejects.toMatchObject({ reason: expect.stringMatching(/not found/) });
    await expect(verify(signToken(newKey, { customerId: 'customer-anna' }))).resolves.toBe('customer-anna');
  });
});
