import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../lib/config';
import { corsHeaders } from '../../lib/http/cors';

const allowed = ['https://lk.bank.example', 'http://127.0.0.1:3006'];

describe('corsHeaders', () => {
  it('echoes an allowed origin and exposes what a client reads; no credentials', () => {
    expect(corsHeaders('https://lk.bank.example', allowed)).toEqual({
      Vary: 'Origin',
      'Access-Control-Allow-Origin': 'https://lk.bank.example',
      'Access-Control-Expose-Headers': 'Location, X-Correlation-Id, Idempotent-Replayed, Retry-After',
    });
  });

  it.each([undefined, 'https://evil.example', 'https://lk.bank.example.evil.example', 'https://LK.bank.example', 'null'])(
    'grants nothing to %s',
    (origin) => {
      expect(corsHeaders(origin, allowed)).toEqual({ Vary: 'Origin' });
    },
  );
});

describe('ALLOWED_ORIGINS', () => {
  const base = { REQUESTS_TABLE_NAME: 'r', CONTRACTS_TABLE_NAME: 'c' };

  it('reads a comma-separated list; none by default', () => {
    expect(loadServiceConfig({ ...base, ALLOWED_ORIGINS: 'https://lk.bank.example, http://127.0.0.1:3006' }).allowedOrigins).toEqual(
      allowed,
    );
    expect(loadServiceConfig(base).allowedOrigins).toEqual([]);
  });

  it.each(['lk.bank.example', 'https://lk.bank.example/', 'https://lk.bank.example/path', '*'])('refuses %j: not an origin', (origin) => {
    expect(() => loadServiceConfig({ ...base, ALLOWED_ORIGINS: origin })).toThrow(/ALLOWED_ORIGINS/);
  });
});
