import { describe, expect, it } from 'vitest';
import { bearerToken, createTokenVerifier } from '../../lib/auth/token-verifier';
import { loadAuthConfig } from '../../lib/config';

const JWT = 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJjdXN0b21lci00MiJ9.c2lnbmF0dXJlLWJ5dGVzXy0';

describe('bearerToken', () => {
  it('returns the token of "Bearer x.y.z"', () => {
    expect(bearerToken('Bearer x.y.z')).toBe('x.y.z');
    expect(bearerToken(`Bearer ${JWT}`)).toBe(JWT);
  });

  it.each(['bearer', 'BEARER', 'BeArEr'])('accepts the scheme written %s', (scheme) => {
    expect(bearerToken(`${scheme} ${JWT}`)).toBe(JWT);
  });

  it('tolerates extra spaces between scheme and token and after the token', () => {
    expect(bearerToken(`Bearer   ${JWT}  `)).toBe(JWT);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['Basic credentials', 'Basic dXNlcjpwYXNzd29yZA=='],
    ['Basic with a JWT-like value', `Basic ${JWT}`],
    ['another scheme', `Token ${JWT}`],
    ['"Bearer" alone', 'Bearer'],
    ['"Bearer" and a space', 'Bearer '],
    ['no space after the scheme', `Bearer${JWT}`],
    ['a bare token', JWT],
    ['two parts', 'Bearer x.y'],
    ['four parts', 'Bearer w.x.y.z'],
    ['an extra word', `Bearer ${JWT} extra`],
    ['two tokens', `Bearer ${JWT} ${JWT}`],
    ['a leading space', ` Bearer ${JWT}`],
    ['standard base64 characters', 'Bearer a+b.c/d.e=='],
    ['a newline inside', `Bearer ${JWT}\nX-Injected: 1`],
    ['an empty header part', 'Bearer .y.z'],
  ])('rejects %s', (_name, header) => {
    expect(bearerToken(header)).toBeUndefined();
  });

  it('is refused, with its reason, when the header holds no bearer token', async () => {
    const verify = createTokenVerifier(
      loadAuthConfig({ JWT_ISSUER: 'https://issuer.example', JWT_AUDIENCE: 'api', JWKS_URI: 'https://issuer.example/jwks.json' }),
    );
    expect(await verify(bearerToken('Basic abc'))).toEqual({ ok: false, problem: 'no bearer token' });
  });
});
