import type { PublisherConfig } from '../config';
import type { PendingEntry } from './publish-batches';
import { signInOrder, type SigningDeps } from './sign-events';

/*
 * Confirmed events to PutEvents entries, each signed (lib/events/sign-events.ts): after the table
 * confirmed them, before they are batched. Every event the publisher sends goes through here,
 * whichever of its streams it came from. An event that cannot be signed goes out unsigned never:
 * the run ends there.
 */

/** An event of the service, as the publisher sends it: its detail-type, its detail and its time. */
export interface OutgoingEvent {
  detailType: string;
  detail: Record<string, unknown>;
  time: string;
}

export type EntryConfig = Pick<PublisherConfig, 'eventBusName' | 'eventSource'>;

const entryOf = (config: EntryConfig, event: OutgoingEvent, signedDetail: Record<string, unknown>) => ({
  EventBusName: config.eventBusName,
  Source: config.eventSource,
  DetailType: event.detailType,
  Detail: JSON.stringify(signedDetail),
  Time: new Date(event.time),
});

export async function signedEntries(
  confirmed: { sequenceNumber: string; event: OutgoingEvent }[],
  config: EntryConfig,
  deps: SigningDeps,
): Promise<{ pending: PendingEntry[]; failed?: { sequenceNumber: string; reason: string } }> {
  const result = await signInOrder(
    confirmed.map(({ sequenceNumber, event }) => ({
      sequenceNumber,
      source: config.eventSource,
      detailType: event.detailType,
      detail: event.detail,
    })),
    deps,
  );
  const pending = result.signed.map(({ sequenceNumber, detail }, index) => {
    const { event } = confirmed[index] ?? { event: undefined };
    if (event === undefined) throw new Error('A signed event without its confirmed one');
    return { sequenceNumber, entry: entryOf(config, event, detail) };
  });
  return result.failed === undefined ? { pending } : { pending, failed: result.failed };
}
