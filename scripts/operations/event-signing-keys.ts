import { GetPublicKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { EventKey } from '../../lib/events/event-signature';
import {
  EVENT_SIGNING_KEYS_CACHE_CONTROL,
  EVENT_SIGNING_KEYS_CONTENT_TYPE,
  EVENT_SIGNING_KEYS_OBJECT_KEY,
  eventSigningKeySet,
  type PublicSigningKey,
} from '../../lib/events/event-signing-keys';
import { keyIdOf } from '../../lib/aws/kms-signer';

/*
 * What `npm run deploy` does once the stack is up (docs/deploy.md; docs/operations.md, Rotating
 * the events' signing key): writes the document of the events' public keys to the stage's bucket
 * (EventSigningKeysBucket), made from KMS's GetPublicKey of the stack's current key and of every
 * previous key still in its window (the setting EVENT_SIGNING_PREVIOUS_KEY_IDS). Every key is read
 * before anything is written: a key KMS will not give (deleted, disabled, not this account's to
 * read) or one that is not an ECDSA P-256 signing key stops the run, naming it, and the document
 * stays as it was. The document is made anew from KMS each time, never from the one before.
 */

/** The previous keys a setting names: ids or ARNs, separated by commas or spaces. */
export const keyIdsOf = (setting: string | undefined): string[] => (setting ?? '').split(/[\s,]+/).filter((id) => id !== '');

/** One key's public half, as KMS gives it; throws, naming the key, for one that cannot sign events. */
async function publicKeyOf(kms: KMSClient, keyId: string): Promise<PublicSigningKey> {
  const answer = await kms.send(new GetPublicKeyCommand({ KeyId: keyId })).catch((error: unknown) => {
    throw new Error(`KMS did not give the public key of ${keyId}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const { KeyId = keyId, PublicKey, KeyUsage, SigningAlgorithms = [] } = answer;
  if (PublicKey === undefined || KeyUsage !== 'SIGN_VERIFY' || !SigningAlgorithms.includes('ECDSA_SHA_256'))
    throw new Error(
      `Key ${keyId} is not an ECC_NIST_P256 signing key (usage ${String(KeyUsage)}, ${SigningAlgorithms.join(', ') || 'no signing'})`,
    );
  return { kid: keyIdOf(KeyId), publicKeyDer: PublicKey };
}

export interface PublishedKeys {
  /** Where the document is: s3://<bucket>/<key>. */
  uri: string;
  keys: EventKey[];
}

/** Reads every key, then writes the document: the current key first, then the previous ones in the order given. */
export async function publishEventSigningKeys(
  clients: { kms: KMSClient; s3: S3Client },
  target: { bucket: string; currentKeyId: string; previousKeyIds: string[] },
): Promise<PublishedKeys> {
  const read = await Promise.all([target.currentKeyId, ...target.previousKeyIds].map((keyId) => publicKeyOf(clients.kms, keyId)));
  const document = eventSigningKeySet(read);
  const curve = document.keys.find((key) => key.kty !== 'EC' || key.crv !== 'P-256');
  if (curve !== undefined) throw new Error(`Key ${String(curve.kid)} is not a P-256 key`);
  const uri = `s3://${target.bucket}/${EVENT_SIGNING_KEYS_OBJECT_KEY}`;
  await clients.s3
    .send(
      new PutObjectCommand({
        Bucket: target.bucket,
        Key: EVENT_SIGNING_KEYS_OBJECT_KEY,
        Body: `${JSON.stringify(document, null, 2)}\n`,
        ContentType: EVENT_SIGNING_KEYS_CONTENT_TYPE,
        CacheControl: EVENT_SIGNING_KEYS_CACHE_CONTROL,
      }),
    )
    .catch((error: unknown) => {
      throw new Error(`S3 did not take ${uri}: ${error instanceof Error ? error.message : String(error)}`);
    });
  return { uri, keys: document.keys };
}
