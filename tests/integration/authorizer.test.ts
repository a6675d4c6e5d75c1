import { createHmac } from 'node:crypto';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, signToken } from '../../scripts/local/signing-key';

const METHOD_ARN = 'arn:aws:execute-api:eu-central-1:123456789012:abc123def4/dev/POST/api/v1/contracts/c1/termination-requests';
const key = makeSigningKey();
let stopJwks: () => Promise<void>;
let handler: (typeof import('../../functions/authorize-customer'))['handler'];

beforeAll(async () => {
  const jwks = await startJwksServer(key.jwks, 0);
  stopJwks = jwks.stop;
  Object.assign(process.env, { JWKS_URI: jwks.uri, JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, POWERTOOLS_LOG_LEVEL: 'SILENT' });
  ({ handler } = await import('../../functions/authorize-customer'));
});

afterAll(() => stopJwks());

const authorize = (authorizationToken: string) => {
  const event: APIGatewayTokenAuthorizerEvent = { type: 'TOKEN', authorizationToken, methodArn: METHOD_ARN };
  return handler(event);
};

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const [validHeader = '', validPayload = ''] = signToken(key, { customerId: 'customer-anna' }).split('.');

describe('authorizer', () => {
  it('allows a valid token and passes customerId in the context, for every route of the stage', async () => {
    const result = await authorize(`Bearer ${signToken(key, { customerId: 'customer-anna' })}`);
    expect(result.principalId).toBe('customer-anna');
    expect(result.context).toEqual({ customerId: 'customer-anna' });
    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-central-1:123456789012:abc123def4/dev/*/*' },
    ]);
  });

  it('accepts the audience in client_id, as in access tokens', async () => {
    const token = signToken(key, { customerId: 'customer-anna', audience: 'other', extraClaims: { client_id: LOCAL_AUDIENCE } });
    expect((await authorize(`Bearer ${token}`)).context).toEqual({ customerId: 'customer-anna' });
  });

  const refused: [string, () => string][] = [
    ['an empty header', () => ''],
    ['a token without Bearer', () => signToken(key, { customerId: 'a' })],
    ['a Basic credential', () => 'Basic dXNlcjpwYXNz'],
    ['a malformed token', () => 'Bearer not.a-jwt'],
    ['alg none', () => `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${validPayload}.`],
    [
      'HS256 signed with the public key',
      () => {
        const header = b64({ alg: 'HS256', typ: 'JWT', kid: key.kid });
        const secret = JSON.stringify(key.jwks.keys[0]);
        return `Bearer ${header}.${validPayload}.${createHmac('sha256', secret).update(`${header}.${validPayload}`).digest('base64url')}`;
      },
    ],
    ['an unknown kid', () => `Bearer ${signToken(key, { customerId: 'a', header: { kid: 'unknown-kid' } })}`],
    ['a wrong issuer', () => `Bearer ${signToken(key, { customerId: 'a', issuer: 'https://evil.test' })}`],
    ['a wrong audience', () => `Bearer ${signToken(key, { customerId: 'a', audience: 'another-api' })}`],
    ['an expired token', () => `Bearer ${signToken(key, { customerId: 'a', expiresIn: -5 })}`],
    ['a token not valid yet', () => `Bearer ${signToken(key, { customerId: 'a', notBefore: 600 })}`],
    [
      'a tampered payload',
      () => {
        const signature = signToken(key, { customerId: 'customer-anna' }).split('.')[2] ?? '';
        return `Bearer ${validHeader}.${b64({ ...JSON.parse(Buffer.from(validPayload, 'base64url').toString()), sub: 'customer-boris' })}.${signature}`;
      },
    ],
    ['a token without the customer claim', () => `Bearer ${signToken(key, { customerId: '', extraClaims: { sub: undefined } })}`],
    ['a token signed by another key with the same kid', () => `Bearer ${signToken(makeSigningKey(key.kid), { customerId: 'a' })}`],
  ];

  it.each(refused)('refuses %s with Unauthorized (401)', async (_name, token) => {
    await expect(authorize(token())).rejects.toThrow(/^Unauthorized$/);
  });
});
