import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { PublisherDeps } from '../../lib/events/publish-request-events';
import { keySigner, makeEventSigningKey } from '../../scripts/local/kms-stand-in';

/**
 * A publisher reading through the reads given, signing with a fresh key, and putting every event
 * on a bus that accepts it into `sent`: one try each, nothing transient, for the faults a real
 * DynamoDB never shows.
 */
export function recordingPublisher(reads: Pick<PublisherDeps, 'readRequests' | 'readLedger'>): {
  publisher: PublisherDeps;
  sent: PutEventsRequestEntry[];
} {
  const sent: PutEventsRequestEntry[] = [];
  const publisher: PublisherDeps = {
    ...reads,
    putEvents: (entries) => {
      sent.push(...entries);
      return Promise.resolve(entries.map((_, i) => ({ EventId: `e${String(i)}` })));
    },
    signer: keySigner(makeEventSigningKey()),
    maxAttempts: 1,
    pause: () => Promise.resolve(),
    isTransient: () => false,
  };
  return { publisher, sent };
}
