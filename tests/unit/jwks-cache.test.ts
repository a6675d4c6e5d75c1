import { describe, expect, it } from 'vitest';
import { FetchError, KidNotFoundInJwksError } from 'aws-jwt-verify/error';
import { RefreshingJwksCache } from '../../lib/auth/jwks-cache';

const URI = 'https://issuer.example/.well-known/jwks.json';
const key = (kid: string) => ({ kty: 'RSA', kid, alg: 'RS256', use: 'sig', n: 'AQAB', e: 'AQAB' });

/** An issuer whose published keys the test changes, and a clock the test moves. */
function issuer(kids: string[]) {
  const state = { kids, fetches: 0, down: false, now: 1_000_000_000_000 };
  const fetcher = {
    fetch: async () => {
      state.fetches++;
      if (state.down) throw new FetchError(URI, 'connect ECONNREFUSED');
      return new TextEncoder().encode(JSON.stringify({ keys: state.kids.map(key) })).buffer;
    },
  };
  const cache = new RefreshingJwksCache({ fetcher, ttlMs: 300_000, minRefetchMs: 30_000, now: () => state.now });
  const token = (kid: string, iatMs = state.now) => ({ header: { alg: 'RS256', kid }, payload: { iat: Math.floor(iatMs / 1000) } });
  return { state, cache, token };
}

describe('RefreshingJwksCache', () => {
  it('fetches once and serves known kids from the cache', async () => {
    const { state, cache, token } = issuer(['a']);
    await expect(cache.getJwk(URI, token('a'))).resolves.toMatchObject({ kid: 'a' });
    await cache.getJwk(URI, token('a'));
    expect(state.fetches).toBe(1);
  });

  it('stops trusting a removed key once the TTL has passed', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    state.kids = ['b'];
    state.now += 299_000;
    await expect(cache.getJwk(URI, token('a', state.now - 299_000))).resolves.toMatchObject({ kid: 'a' });
    state.now += 1_000;
    await expect(cache.getJwk(URI, token('a', state.now - 300_000))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    expect(state.fetches).toBe(2);
  });

  it('answers an unknown kid at once from the JWKS in hand while the last fetch is younger than the bound', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    state.now += 29_999;
    await expect(cache.getJwk(URI, token('made-up'))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    expect(state.fetches).toBe(1);
  });

  it('fetches for an unknown kid once the last fetch is as old as the bound, and accepts a key published since', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    state.kids = ['a', 'new'];
    state.now += 1_000;
    await expect(cache.getJwk(URI, token('new'))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    state.now += 29_000;
    await expect(cache.getJwk(URI, token('new'))).resolves.toMatchObject({ kid: 'new' });
    expect(state.fetches).toBe(2);
  });

  it('counts the bound from the last fetch, even one a made-up kid caused', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    state.now += 30_000;
    await expect(cache.getJwk(URI, token('made-up'))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    state.kids = ['a', 'new'];
    state.now += 1_000;
    await expect(cache.getJwk(URI, token('new'))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    state.now += 29_000;
    await expect(cache.getJwk(URI, token('new'))).resolves.toMatchObject({ kid: 'new' });
    expect(state.fetches).toBe(3);
  });

  it('does not fetch for an unknown kid in a token older than the JWKS in hand', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    const before = state.fetches;
    await expect(cache.getJwk(URI, token('gone', state.now - 5_000))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    expect(state.fetches).toBe(before);
  });

  it('does not fetch for a token whose iat lies in the future', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    const before = state.fetches;
    await expect(cache.getJwk(URI, token('x', state.now + 60_000))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    expect(state.fetches).toBe(before);
  });

  it('lets many made-up kids at once cost one fetch', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    state.now += 30_000;
    const before = state.fetches;
    const tries = Array.from({ length: 20 }, (_, i) => cache.getJwk(URI, token(`made-up-${i}`)).catch((e: unknown) => e));
    const results = await Promise.all(tries);
    expect(results.every((r) => r instanceof KidNotFoundInJwksError)).toBe(true);
    expect(state.fetches - before).toBe(1);
  });

  it('reports an issuer it cannot reach as a fetch failure (an outage), not as an unknown key', async () => {
    const { state, cache, token } = issuer(['a']);
    state.down = true;
    await expect(cache.getJwk(URI, token('a'))).rejects.toBeInstanceOf(FetchError);
  });

  it('counts a failed fetch too: made-up kids do not hammer an issuer that is down', async () => {
    const { state, cache, token } = issuer(['a']);
    await cache.getJwk(URI, token('a'));
    state.now += 30_000;
    state.down = true;
    await expect(cache.getJwk(URI, token('made-up'))).rejects.toBeInstanceOf(FetchError);
    state.now += 1_000;
    await expect(cache.getJwk(URI, token('made-up-2'))).rejects.toBeInstanceOf(KidNotFoundInJwksError);
    expect(state.fetches).toBe(2);
  });
});
