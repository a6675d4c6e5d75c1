import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/*
 * The local stack's identity provider: an RSA key pair made on first run (kept in the ignored
 * .local/ folder), its JWKS, and tokens signed with it. The authorizer verifies these exactly as
 * it verifies a real issuer's tokens in AWS.
 */

export const LOCAL_ISSUER = 'https://auth.local.test';
export const LOCAL_AUDIENCE = 'termination-api';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwks: { keys: Record<string, unknown>[] };
}

export function makeSigningKey(kid: string = randomUUID()): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] } };
}

/** A key pair from its private key in PEM, with its public JWKS. */
export function signingKeyFromPem(kid: string, privateKeyPem: string): SigningKey {
  const privateKey = createPrivateKey(privateKeyPem);
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return { kid, privateKey, jwks: { keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] } };
}

/** The key in `dir`, made and saved there on first use. */
export function loadOrCreateSigningKey(dir: string): SigningKey {
  const file = join(dir, 'signing-key.json');
  if (existsSync(file)) {
    const saved: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (
      saved &&
      typeof saved === 'object' &&
      'kid' in saved &&
      'privateKeyPem' in saved &&
      typeof saved.kid === 'string' &&
      typeof saved.privateKeyPem === 'string'
    ) {
      return signingKeyFromPem(saved.kid, saved.privateKeyPem);
    }
  }
  const key = makeSigningKey();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ kid: key.kid, privateKeyPem: key.privateKey.export({ format: 'pem', type: 'pkcs8' }) }), {
    mode: 0o600,
  });
  return key;
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export interface TokenOptions {
  customerId: string;
  issuer?: string;
  audience?: string;
  /** Lifetime in seconds from now (negative: already expired). */
  expiresIn?: number;
  notBefore?: number;
  extraClaims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /**
   * Which token: an access token marked the way Cognito marks one (`token_use: access`, what the
   * local stack's default JWT_ACCESS_TOKEN_PROOF asks for), one marked the way RFC 9068 marks it
   * (header `typ: at+jwt`), or a standard OIDC ID token (neither mark), which the authorizer refuses.
   */
  kind?: TokenKind;
}

export type TokenKind = 'access' | 'at+jwt' | 'oidc-id';

/** An RS256 JWT signed with the local key: an access token unless `kind` says otherwise. */
export function signToken(key: SigningKey, options: TokenOptions): string {
  const now = Math.floor(Date.now() / 1000);
  const kind = options.kind ?? 'access';
  const header = { alg: 'RS256', typ: kind === 'at+jwt' ? 'at+jwt' : 'JWT', kid: key.kid, ...options.header };
  const payload = {
    iss: options.issuer ?? LOCAL_ISSUER,
    aud: options.audience ?? LOCAL_AUDIENCE,
    sub: options.customerId,
    ...(kind === 'access' ? { token_use: 'access' } : {}),
    iat: now,
    exp: now + (options.expiresIn ?? 3600),
    ...(options.notBefore !== undefined ? { nbf: now + options.notBefore } : {}),
    ...options.extraClaims,
  };
  return signJwt(key, header, payload);
}

/** A compact JWS of `payload` under `header`, signed RS256 with the key (whatever `alg` the header claims). */
export function signJwt(key: SigningKey, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  return `${signingInput}.${base64url(sign('sha256', Buffer.from(signingInput), key.privateKey))}`;
}
