import type { PutEventsRequestEntry, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import { againFor, outOfTimeReason, retrying, type Tries } from '../retry';

/*
 * Publishing a stream batch's events in order (docs/events.md): PutEvents takes at most 10
 * entries and 256 KiB a call. Entries that fail are sent again by the publisher's tries
 * (lib/retry.ts), those that failed only; a call refused as a whole (an entry too big or
 * malformed) is split in halves until the entry at fault stands alone. The first entry that still
 * fails when the tries run out, or when the invocation's time does, ends the run: its record and
 * every later one go back to the stream, to be retried, and after that to the dead-letter queue.
 */

export const MAX_ENTRIES_PER_CALL = 10;
export const MAX_BYTES_PER_CALL = 256 * 1024;

export interface PendingEntry {
  /** The stream record the entry comes from: where a retry starts again. */
  sequenceNumber: string;
  entry: PutEventsRequestEntry;
}

/** The tries are per batch (maxAttempts: PUBLISH_MAX_ATTEMPTS). */
export interface PublishDeps extends Tries {
  /** One PutEvents call: its result entries, in the order of the entries sent. */
  putEvents: (entries: PutEventsRequestEntry[]) => Promise<PutEventsResultEntry[]>;
  /** A call error that may pass (throttling, 5xx, network): retried rather than split. */
  isTransient: (error: unknown) => boolean;
}

export interface PublishResult {
  /** Entries known to be published before the first failure. */
  published: number;
  calls: number;
  /**
   * The first entry that could not be published, and why. No later batch was sent; entries after
   * it in its own batch may have been (they go again with the stream's retry: same eventId).
   */
  failed?: { sequenceNumber: string; reason: string };
}

const bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text, 'utf8'));

/** An entry's size as EventBridge counts it against the 256 KiB of a call. */
export function entrySize(entry: PutEventsRequestEntry): number {
  return (
    (entry.Time ? 14 : 0) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    (entry.Resources ?? []).reduce((sum, resource) => sum + bytes(resource), 0)
  );
}

/** Consecutive batches within PutEvents' limits, in the order given. */
export function batchesOf(pending: PendingEntry[]): PendingEntry[][] {
  const batches: PendingEntry[][] = [];
  let current: PendingEntry[] = [];
  let size = 0;
  for (const item of pending) {
    const itemSize = entrySize(item.entry);
    if (current.length === MAX_ENTRIES_PER_CALL || (current.length > 0 && size + itemSize > MAX_BYTES_PER_CALL)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += itemSize;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

interface BatchResult {
  failed: { item: PendingEntry; reason: string }[];
  calls: number;
}

/** What a try of a batch leaves for the next: its entries that failed, and why the first did. */
interface Unsent {
  entries: PendingEntry[];
  reason: string;
}

/** Why a call failed, for a log line: the error's name and message. */
export const reasonOf = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

async function sendBatch(batch: PendingEntry[], deps: PublishDeps): Promise<BatchResult> {
  let calls = 0;
  const handBack = ({ entries, reason }: Unsent): BatchResult => ({ failed: entries.map((item) => ({ item, reason })), calls });
  return retrying<BatchResult, Unsent>(
    deps,
    async (left) => {
      const remaining = left?.entries ?? batch;
      let results: PutEventsResultEntry[];
      try {
        calls++;
        results = await deps.putEvents(remaining.map((item) => item.entry));
      } catch (error) {
        const reason = reasonOf(error);
        if (deps.isTransient(error)) return againFor({ entries: remaining, reason });
        if (remaining.length === 1) return handBack({ entries: remaining, reason });
        const middle = Math.ceil(remaining.length / 2);
        const first = await sendBatch(remaining.slice(0, middle), deps);
        // Order matters: once an entry of the first half failed, the second half waits for the retry.
        if (first.failed.length > 0) return { failed: first.failed, calls: calls + first.calls };
        const second = await sendBatch(remaining.slice(middle), deps);
        return { failed: second.failed, calls: calls + first.calls + second.calls };
      }
      const failures = remaining.map((item, i) => ({ item, result: results[i] })).filter(({ result }) => result?.EventId === undefined);
      const [first] = failures;
      if (first === undefined) return { failed: [], calls };
      return againFor({
        entries: failures.map(({ item }) => item),
        reason: `${first.result?.ErrorCode ?? 'NoResult'}: ${first.result?.ErrorMessage ?? ''}`,
      });
    },
    { exhausted: handBack, outOfTime: ({ entries, reason }) => handBack({ entries, reason: outOfTimeReason(reason) }) },
  );
}

export async function publishInOrder(pending: PendingEntry[], deps: PublishDeps): Promise<PublishResult> {
  let published = 0;
  let calls = 0;
  for (const batch of batchesOf(pending)) {
    const result = await sendBatch(batch, deps);
    calls += result.calls;
    const first = result.failed[0];
    if (first) {
      const firstIndex = batch.indexOf(first.item);
      return { published: published + firstIndex, calls, failed: { sequenceNumber: first.item.sequenceNumber, reason: first.reason } };
    }
    published += batch.length;
  }
  return { published, calls };
}
