import { KMSClient, SignCommand } from '@aws-sdk/client-kms';
import type { AwsServiceConfig } from '../config';
import { localEndpoint } from './local-endpoint';

/** The key's id from an id or an ARN (`arn:aws:kms:<region>:<account>:key/<id>`): the signatures' `kid`. */
export const keyIdOf = (keyIdOrArn: string): string => keyIdOrArn.slice(keyIdOrArn.lastIndexOf('/') + 1);

/**
 * Signs with the stage's asymmetric KMS key (ECC_NIST_P256, SIGN_VERIFY), ECDSA with SHA-256 over
 * the message itself: one KMS client per function, made at module load. KMS returns the
 * signature DER-encoded (lib/events/event-signature.ts makes it JOSE's r||s).
 */
export function kmsSignerFor(config: { kms: AwsServiceConfig; signingKeyId: string }): {
  kid: string;
  signDer: (message: Buffer) => Promise<Uint8Array>;
} {
  const client = new KMSClient({
    region: config.kms.region,
    // Retries are the publisher's, event by event.
    maxAttempts: 1,
    requestHandler: { requestTimeout: 3000, connectionTimeout: 1000, throwOnRequestTimeout: true },
    ...localEndpoint(config.kms.endpoint),
  });
  return {
    kid: keyIdOf(config.signingKeyId),
    signDer: async (message) => {
      const { Signature } = await client.send(
        new SignCommand({ KeyId: config.signingKeyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }),
      );
      if (Signature === undefined) throw new Error('KMS returned no signature');
      return Signature;
    },
  };
}
