import { generateKeyPairSync, sign, verify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { derToJose, detailDigest, signedDetail, verifyEvent, type ReceivedEvent } from '../../lib/events/event-signature';
import { signInOrder } from '../../lib/events/sign-events';
import { jwksOf, keySigner, makeEventSigningKey } from '../../scripts/local/kms-stand-in';
import { timeRunsOutAt } from '../support/tries';

const key = makeEventSigningKey();
const jwks = jwksOf(key);
const source = 'bank.contract-termination';
const detail = {
  eventId: '5f0c2a8e-3b1d-4e6f-9a7c-2d4e6f8a0b1c',
  requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01',
  customerId: 'anna',
  status: 'REJECTED',
  reason: 'Ünïcode – and "quotes" <b>',
  bankDetails: { recipientName: 'Anna Ivanova', accountNumber: '40817810700000000001' },
};

async function received(detailType = 'TerminationRequestStatusChanged'): Promise<ReceivedEvent> {
  return { source, 'detail-type': detailType, detail: await signedDetail({ source, detailType, detail }, keySigner(key)) };
}

function claimsOf(signature: unknown): Record<string, unknown> {
  const claims: unknown = JSON.parse(Buffer.from(String(signature).split('.')[1] ?? '', 'base64url').toString('utf8'));
  return typeof claims === 'object' && claims !== null ? Object.fromEntries(Object.entries(claims)) : {};
}

describe('derToJose', () => {
  it("turns any DER signature KMS could return into the r||s that verifies as ES256 (node's ieee-p1363)", () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (message) => {
        const jose = derToJose(sign('sha256', message, privateKey));
        expect(jose).toHaveLength(64);
        expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what is not a DER ECDSA signature', () => {
    expect(() => derToJose(Buffer.alloc(64, 1))).toThrow(TypeError);
    expect(() => derToJose(Buffer.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01]))).toThrow(TypeError);
  });
});

describe('an event signature', () => {
  it('verifies with the JWKS, and carries no field of the event: the source, the detail-type and the digest', async () => {
    const event = await received();
    expect(verifyEvent(event, jwks)).toMatchObject({ ok: true, kid: key.keyId });
    const claims = claimsOf(event.detail['signature']);
    expect(Object.keys(claims).sort()).toEqual(['detailSha256', 'detailType', 'iat', 'iss']);
    expect(claims['detailSha256']).toBe(detailDigest(detail));
    expect(JSON.stringify(claims)).not.toContain('Anna');
  });

  it('covers the canonical form (RFC 8785), not the bytes: a detail re-serialised with other key order and escapes still verifies', async () => {
    const event = await received();
    const reordered = Object.fromEntries(Object.entries(event.detail).reverse());
    const reparsed = JSON.parse(JSON.stringify(reordered).replace('Ü', '\\u00dc'));
    expect(verifyEvent({ ...event, detail: reparsed }, jwks).ok).toBe(true);
  });

  it('differs on every signing of the same event (ECDSA), and each verifies', async () => {
    const [first, second] = [await received(), await received()];
    expect(first.detail['signature']).not.toBe(second.detail['signature']);
    expect(verifyEvent(second, jwks).ok).toBe(true);
  });

  it('refuses an altered field, an added one, another detail-type or source, another key, a forged or missing signature', async () => {
    const event = await received();
    const other = makeEventSigningKey();
    const forged = await signedDetail({ source, detailType: event['detail-type'], detail }, { ...keySigner(other), kid: key.keyId });
    const refusals: [ReceivedEvent, { keys: ReturnType<typeof jwksOf>['keys'] }, string][] = [
      [{ ...event, detail: { ...event.detail, status: 'COMPLETED' } }, jwks, 'the detail is not the one signed'],
      [{ ...event, detail: { ...event.detail, extra: 1 } }, jwks, 'the detail is not the one signed'],
      [{ ...event, 'detail-type': 'TerminationRequestSubmitted' }, jwks, 'signed for another detail-type'],
      [{ ...event, source: 'bank.back-office' }, jwks, 'signed for another source'],
      [event, jwksOf(other), `no key ${key.keyId} in the JWKS`],
      [{ ...event, detail: forged }, jwks, 'the signature does not verify'],
      [{ ...event, detail: { ...detail } }, jwks, 'no signature'],
      [{ ...event, detail: { ...detail, signature: 'e30.e30.' } }, jwks, 'alg undefined is not ES256'],
    ];
    for (const [candidate, keys, why] of refusals) expect(verifyEvent(candidate, keys)).toEqual({ ok: false, why });
  });
});

describe('signInOrder', () => {
  const items = Array.from({ length: 13 }, (_, i) => ({ sequenceNumber: String(i), source, detailType: 'X', detail: { i } }));
  const deps = {
    maxAttempts: 3,
    pause: () => Promise.resolve(),
    isTransient: (e: unknown) => e instanceof Error && e.name === 'Throttling',
  };

  const throttling = () => Object.assign(new Error('slow down'), { name: 'Throttling' });
  /** The key's signer, but the signing of event `{ i }` fails, every time, with the error `failure` makes. */
  function failingAt(i: number, failure: () => Error) {
    const signer = keySigner(key);
    return {
      kid: signer.kid,
      signDer: (message: Buffer) =>
        claimsOf(message.toString())['detailSha256'] === detailDigest({ i }) ? Promise.reject(failure()) : signer.signDer(message),
    };
  }

  it('retries a signing that may pass, and signs every event in order', async () => {
    let failures = 2;
    const signer = keySigner(key);
    const flaky = {
      kid: signer.kid,
      signDer: (message: Buffer) => {
        if (failures-- > 0) return Promise.reject(throttling());
        return signer.signDer(message);
      },
    };
    const result = await signInOrder(items, { ...deps, signer: flaky });
    expect(result.failed).toBeUndefined();
    expect(result.signed.map((s) => s.sequenceNumber)).toEqual(items.map((i) => i.sequenceNumber));
  });

  it('never hands out an unsigned event: the first that cannot be signed ends the run there', async () => {
    const result = await signInOrder(items, { ...deps, signer: failingAt(11, () => new Error('KMS is down')) });
    expect(result.signed.map((s) => s.sequenceNumber)).toEqual(items.slice(0, 11).map((i) => i.sequenceNumber));
    expect(result.failed).toEqual({ sequenceNumber: '11', reason: 'the event could not be signed: Error: KMS is down' });
    expect(result.signed.every((s) => typeof s.detail.signature === 'string')).toBe(true);
  });

  it("a signing still throttled when the invocation's time ends its pause ends the run there, with tries to spare", async () => {
    const time = timeRunsOutAt(1);
    const result = await signInOrder(items, { ...deps, maxAttempts: 10, ...time, signer: failingAt(11, throttling) });
    expect(result.signed.map((s) => s.sequenceNumber)).toEqual(items.slice(0, 11).map((i) => i.sequenceNumber));
    expect(result.failed).toEqual({
      sequenceNumber: '11',
      reason: 'the event could not be signed: Throttling: slow down (no time left for another try)',
    });
    expect(time.pauses).toEqual([1]);
  });

  it('a signing throttled on every try ends the run there once the tries run out', async () => {
    let tries = 0;
    const result = await signInOrder(items.slice(0, 1), {
      ...deps,
      signer: failingAt(0, () => {
        tries++;
        return throttling();
      }),
    });
    expect(result).toEqual({ signed: [], failed: { sequenceNumber: '0', reason: 'the event could not be signed: Throttling: slow down' } });
    expect(tries).toBe(deps.maxAttempts);
  });
});
