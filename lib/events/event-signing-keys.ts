import { jwkOf, type EventKey } from './event-signature';

/*
 * The document of the events' public keys (docs/decisions/0017-lifecycle.md, Rotation;
 * docs/events.md, The keys): a JWKS (RFC 7517) of every key whose signatures the back office may
 * still meet, the current one first. One document, one path and one set of HTTP headers, whoever
 * serves it: `npm run deploy` writes it to the stage's own bucket (EventSigningKeysBucket,
 * scripts/operations/event-signing-keys.ts), npm start's JWKS server serves it on loopback. Each
 * key comes from the DER public key KMS's GetPublicKey returns (jwkOf), so the local and deployed
 * documents are made by the same conversion.
 */

/** Where the document lives: the path the local server answers on, and the object's key in the stage's bucket. */
export const EVENT_SIGNING_KEYS_PATH = '/.well-known/event-signing-keys.json';
export const EVENT_SIGNING_KEYS_OBJECT_KEY = EVENT_SIGNING_KEYS_PATH.slice(1);

/** A JWK Set's media type (RFC 7517, section 8.5). */
export const EVENT_SIGNING_KEYS_CONTENT_TYPE = 'application/jwk-set+json';

/**
 * How long a copy may be used without asking again: 5 minutes, so that a key taken out (a leak)
 * leaves every back office within 5 minutes. A key id the copy does not hold is asked for at
 * once (docs/events.md says at most once a minute): a new key is never waited for.
 */
export const EVENT_SIGNING_KEYS_MAX_AGE_SECONDS = 300;
export const EVENT_SIGNING_KEYS_CACHE_CONTROL = `max-age=${String(EVENT_SIGNING_KEYS_MAX_AGE_SECONDS)}`;

/** A public key as KMS gives it: its id (the signatures' kid) and the DER SubjectPublicKeyInfo. */
export interface PublicSigningKey {
  kid: string;
  publicKeyDer: Uint8Array;
}

/** The document: the keys in the order given (the current first), each key once. */
export function eventSigningKeySet(keys: PublicSigningKey[]): { keys: EventKey[] } {
  const seen = new Set<string>();
  return {
    keys: keys.flatMap(({ kid, publicKeyDer }) => {
      if (seen.has(kid)) return [];
      seen.add(kid);
      return [jwkOf(kid, publicKeyDer)];
    }),
  };
}
