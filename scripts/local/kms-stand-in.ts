import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { EventKey, EventSigner } from '../../lib/events/event-signature';
import { eventSigningKeySet } from '../../lib/events/event-signing-keys';
import { LOCAL_ACCOUNT_ID } from './template-patterns';

/*
 * The local stand-in for the KMS calls the publisher and the back office make with the stage's
 * event-signing key (ECC_NIST_P256, SIGN_VERIFY): Sign (ECDSA_SHA_256 over the raw message, the
 * signature DER-encoded as KMS returns it) and GetPublicKey (the DER SubjectPublicKeyInfo). The
 * key is made on first use: npm start keeps it in the ignored .local/ folder, a test's stand-in
 * holds one in memory; none is ever committed. Tests can make the next Sign calls fail.
 */

export interface EventSigningKey {
  keyId: string;
  privateKey: KeyObject;
}

export interface KmsStandIn {
  key: EventSigningKey;
  /** The key's public half as a JWKS, as npm start serves it. */
  jwks: { keys: EventKey[] };
  /** The next Sign calls fail, each with this error type (ThrottlingException, KMSInternalException, ...). */
  failNextSign: (...errorTypes: string[]) => void;
  /** Every Sign call the stand-in answered, failed ones included. */
  signCalls: () => number;
  /** When each Sign call arrived and was answered (performance.now()), for the bench's signing time per batch. */
  signSpans: { start: number; end: number }[];
  handle: (action: string, request: unknown, response: ServerResponse) => void;
}

export function makeEventSigningKey(): EventSigningKey {
  return { keyId: randomUUID(), privateKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey };
}

/** A signer with the key itself, as KMS signs with it (DER): for tests that need no stand-in. */
export const keySigner = (key: EventSigningKey): EventSigner => ({
  kid: key.keyId,
  signDer: (message) => Promise.resolve(sign('sha256', message, key.privateKey)),
});

/** The key's public half as the document of the events' keys: the DER public key KMS's GetPublicKey would give, through the deploy's conversion. */
export const jwksOf = (key: EventSigningKey): { keys: EventKey[] } =>
  eventSigningKeySet([{ kid: key.keyId, publicKeyDer: createPublicKey(key.privateKey).export({ format: 'der', type: 'spki' }) }]);

/** The key in `file`, made and saved there (readable by its owner only) on first use. */
export function loadOrCreateEventSigningKey(file: string): EventSigningKey {
  if (existsSync(file)) {
    const saved: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof saved === 'object' && saved !== null && 'keyId' in saved && 'privateKeyPem' in saved)
      return { keyId: String(saved.keyId), privateKey: createPrivateKey(String(saved.privateKeyPem)) };
  }
  const key = makeEventSigningKey();
  mkdirSync(dirname(file), { recursive: true });
  const privateKeyPem = key.privateKey.export({ format: 'pem', type: 'pkcs8' });
  writeFileSync(file, JSON.stringify({ keyId: key.keyId, privateKeyPem }), { mode: 0o600 });
  return key;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
}

export function kmsStandIn(key: EventSigningKey = makeEventSigningKey(), region = 'eu-central-1'): KmsStandIn {
  const arn = `arn:aws:kms:${region}:${LOCAL_ACCOUNT_ID}:key/${key.keyId}`;
  const publicKeyDer = createPublicKey(key.privateKey).export({ format: 'der', type: 'spki' });
  const faults: string[] = [];
  const signSpans: { start: number; end: number }[] = [];
  let calls = 0;
  const known = (keyId: unknown) => keyId === key.keyId || keyId === arn;
  return {
    key,
    jwks: jwksOf(key),
    failNextSign: (...errorTypes) => faults.push(...errorTypes),
    signCalls: () => calls,
    signSpans,
    handle: (action, request, response) => {
      if (!isRecord(request) || !known(request['KeyId'])) {
        reply(response, 400, {
          __type: 'NotFoundException',
          message: `Key '${String(isRecord(request) ? request['KeyId'] : '')}' does not exist`,
        });
        return;
      }
      if (action === 'GetPublicKey') {
        reply(response, 200, {
          KeyId: arn,
          PublicKey: publicKeyDer.toString('base64'),
          KeySpec: 'ECC_NIST_P256',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
        });
        return;
      }
      if (action !== 'Sign') {
        reply(response, 400, { __type: 'UnsupportedOperationException', message: `The stand-in does not do KMS ${action}` });
        return;
      }
      calls++;
      const fault = faults.shift();
      if (fault !== undefined) {
        reply(response, fault === 'KMSInternalException' ? 500 : 400, { __type: fault, message: 'Failed as the test asked' });
        return;
      }
      if (request['SigningAlgorithm'] !== 'ECDSA_SHA_256' || request['MessageType'] !== 'RAW' || typeof request['Message'] !== 'string') {
        reply(response, 400, { __type: 'ValidationException', message: 'ECDSA_SHA_256 over a RAW message only' });
        return;
      }
      const start = performance.now();
      const signature = sign('sha256', Buffer.from(request['Message'], 'base64'), key.privateKey);
      response.once('finish', () => signSpans.push({ start, end: performance.now() }));
      reply(response, 200, { KeyId: arn, Signature: signature.toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' });
    },
  };
}
