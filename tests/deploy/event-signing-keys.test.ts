import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kmsSignerFor } from '../../lib/aws/kms-signer';
import { signedDetail, verifyEvent } from '../../lib/events/event-signature';
import { EVENT_SIGNING_KEYS_OBJECT_KEY } from '../../lib/events/event-signing-keys';
import { keyIdsOf, publishEventSigningKeys } from '../../scripts/operations/event-signing-keys';
import { jsonObject } from '../support/json';
import { MOTO_REGION, motoInstalled, startMoto, type Moto } from '../support/moto';

/*
 * What npm run deploy writes once the stack is up (scripts/operations/event-signing-keys.ts): the
 * document of the events' public keys, from KMS's GetPublicKey, into the stage's bucket, against
 * moto's KMS and S3. The whole deploy writes it in tests/deploy/rehearsal.test.ts.
 */

const installed = motoInstalled();
let moto: Moto;
let kms: KMSClient;
let s3: S3Client;
const BUCKET = 'event-signing-keys';

const newKey = async (KeySpec: 'ECC_NIST_P256' | 'RSA_2048' | 'SYMMETRIC_DEFAULT', KeyUsage: 'SIGN_VERIFY' | 'ENCRYPT_DECRYPT') =>
  (await kms.send(new CreateKeyCommand({ KeySpec, KeyUsage }))).KeyMetadata?.KeyId ?? '';

async function written(): Promise<{ body: string; contentType?: string; cacheControl?: string }> {
  const answer = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: EVENT_SIGNING_KEYS_OBJECT_KEY }));
  return { body: (await answer.Body?.transformToString()) ?? '', contentType: answer.ContentType, cacheControl: answer.CacheControl };
}

describe.runIf(installed)("the document of the events' public keys, as the deploy writes it", () => {
  beforeAll(async () => {
    moto = await startMoto();
    const client = { region: MOTO_REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
    kms = new KMSClient(client);
    s3 = new S3Client({ ...client, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET, CreateBucketConfiguration: { LocationConstraint: MOTO_REGION } }));
  }, 90_000);
  afterAll(async () => {
    await moto.stop();
  });

  it('lists the current key first, then each previous one, as a JWK Set cached 5 minutes; what each key signed verifies with it', async () => {
    const current = await newKey('ECC_NIST_P256', 'SIGN_VERIFY');
    const previous = await newKey('ECC_NIST_P256', 'SIGN_VERIFY');
    const published = await publishEventSigningKeys(
      { kms, s3 },
      { bucket: BUCKET, currentKeyId: current, previousKeyIds: keyIdsOf(` ${previous}, ${current}`) },
    );
    expect(published.uri).toBe(`s3://${BUCKET}/.well-known/event-signing-keys.json`);
    const document = await written();
    expect([document.contentType, document.cacheControl]).toEqual(['application/jwk-set+json', 'max-age=300']);
    const jwks = { keys: jsonObject(JSON.parse(document.body))['keys'] };
    // Each key once, the one that signs first.
    expect(published.keys.map((key) => key.kid)).toEqual([current, previous]);
    expect(jwks).toEqual({ keys: published.keys });
    expect(published.keys.map((key) => [key.kty, key.crv, key.alg, key.use])).toEqual([
      ['EC', 'P-256', 'ES256', 'sig'],
      ['EC', 'P-256', 'ES256', 'sig'],
    ]);
    for (const keyId of [current, previous]) {
      const signer = kmsSignerFor({ kms: { region: MOTO_REGION, endpoint: moto.endpoint }, signingKeyId: keyId });
      const event = { source: 'bank.contract-termination', detailType: 'TerminationRequestSubmitted', detail: { eventId: keyId } };
      const detail = await signedDetail(event, signer);
      expect(verifyEvent({ source: event.source, 'detail-type': event.detailType, detail }, { keys: published.keys })).toMatchObject({
        ok: true,
        kid: keyId,
      });
    }
  });

  it('writes nothing when a key cannot be read or is no ECDSA P-256 signing key, and names it', async () => {
    const current = await newKey('ECC_NIST_P256', 'SIGN_VERIFY');
    await publishEventSigningKeys({ kms, s3 }, { bucket: BUCKET, currentKeyId: current, previousKeyIds: [] });
    const before = await written();
    const rsa = await newKey('RSA_2048', 'SIGN_VERIFY');
    const symmetric = await newKey('SYMMETRIC_DEFAULT', 'ENCRYPT_DECRYPT');
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [keyId, why] of [
      [rsa, `Key ${rsa} is not an ECC_NIST_P256 signing key`],
      [symmetric, `Key ${symmetric} is not an ECC_NIST_P256 signing key`],
      [missing, `KMS did not give the public key of ${missing}`],
    ]) {
      await expect(
        publishEventSigningKeys({ kms, s3 }, { bucket: BUCKET, currentKeyId: current, previousKeyIds: [keyId ?? ''] }),
      ).rejects.toThrow(why ?? '');
    }
    expect(await written()).toEqual(before);
    expect(JSON.parse(before.body)).toMatchObject({ keys: [{ kid: current }] });
  });
});
