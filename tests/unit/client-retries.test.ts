import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTerminationClient, newUuid } from '../../client';

/* The client's retry decisions where no real server can be made to answer that way. */

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function clientAnswering(responses: (() => Response)[], options: { deadlineMs?: number } = {}) {
  let calls = 0;
  const api = createTerminationClient({
    baseUrl: 'http://api.test',
    token: () => 'token',
    sleep: async () => undefined,
    retry: { attempts: 4, ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }) },
    fetch: async () => {
      const next = responses[Math.min(calls, responses.length - 1)];
      calls++;
      if (!next) throw new TypeError('no answer');
      return next();
    },
  });
  return { api, calls: () => calls };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('client retries', () => {
  it('never retries a 4xx that came without a body (a proxy refusing the call)', async () => {
    const { api, calls } = clientAnswering([() => new Response(null, { status: 413, headers: { 'Content-Length': '0' } })]);
    const result = await api.listTerminationRequests('c');
    expect(result).toMatchObject({ ok: false, attempts: 1 });
    expect(calls()).toBe(1);
  });

  it('retries a 502 without a body, then takes the answer', async () => {
    const ok = () => Response.json({ items: [] }, { status: 200 });
    const { api, calls } = clientAnswering([() => new Response(null, { status: 502, headers: { 'Content-Length': '0' } }), ok]);
    await expect(api.listTerminationRequests('c')).resolves.toMatchObject({ ok: true, attempts: 2 });
    expect(calls()).toBe(2);
  });

  it("hands back the caller's own token error at once, without calling the API", async () => {
    let calls = 0;
    const api = createTerminationClient({
      baseUrl: 'http://api.test',
      token: () => Promise.reject(new Error('session ended')),
      fetch: async () => {
        calls++;
        return Response.json({});
      },
    });
    await expect(api.listTerminationRequests('c')).rejects.toThrow('session ended');
    expect(calls).toBe(0);
  });

  it('makes UUIDs where crypto.randomUUID is missing (a page over plain HTTP)', () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (array: Uint8Array) => real.getRandomValues(array) });
    const made = new Set(Array.from({ length: 50 }, () => newUuid()));
    expect(made.size).toBe(50);
    for (const uuid of made) expect(uuid).toMatch(UUID_V4);
  });
});
