import { isDeepStrictEqual } from 'node:util';
import type { DynamoDBRecord } from 'aws-lambda';
import { ledgerEntryOf, type LedgerEntry } from '../dynamodb/erasure-ledger';
import type { Item } from '../dynamodb/items';
import { erasedEventOf, erasureClaimOf, type ErasedEvent, type ErasureClaim } from './erasure-events';
import {
  readAll,
  storedItemOf,
  type PublisherDeps,
  type StreamPublishResult,
  type UnconfirmedReason,
  type UnconfirmedRecord,
} from './publish-request-events';
import { reasonOf } from './publish-batches';
import type { RecordIds } from './record-copies';
import type { EntryConfig } from './signed-entries';
import { claimsOf, sendConfirmed, type Claimed, type Failure } from './stream-claims';

/*
 * The erasure ledger's stream out as TerminationRequestErased events
 * (docs/decisions/0025-erasure.md): the back office learns of an erasure the way it learns of
 * everything else. As with the requests table's stream, the source is trusted, never the path:
 * each record's entry is read back from the ledger (a consistent GetItem per entry: erasures are
 * few, and the publisher's role may do nothing else there), must say what the record says, and
 * the request it names must be gone from the requests table (the batch's one BatchGetItem).
 * Only then is the event, rebuilt from the ledger's own item, signed and sent. A record the
 * tables do not confirm (no such entry, another entry, a request still there) publishes nothing
 * and is reported by ids, as a request record is (UnconfirmedRecords).
 */

type Confirming = Claimed<ErasureClaim>;

/** The names of the entry's fields the record and the ledger tell differently. */
function differences(claimed: LedgerEntry, truth: LedgerEntry): string[] {
  const a: Record<string, unknown> = { ...claimed };
  const b: Record<string, unknown> = { ...truth };
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((name) => !isDeepStrictEqual(a[name], b[name])).sort();
}

/** The ledger's own version of the claim's event, or why there is none. */
function truthOf(claim: ErasureClaim, item: Item | undefined): { event: ErasedEvent } | { why: UnconfirmedReason; fields: string[] } {
  const entry = item === undefined ? undefined : ledgerEntryOf(item);
  if (entry === undefined) return { why: 'no-such-erasure', fields: [] };
  const fields = differences(claim.entry, entry);
  const event = erasedEventOf(entry);
  if (fields.length > 0 || event === undefined) return { why: 'other-content', fields };
  return { event };
}

/** Each claim's ledger item, read in parallel; the first that could not be read, and why. */
async function readEntries(claims: Confirming[], deps: PublisherDeps) {
  const results = await Promise.allSettled(claims.map(({ claim }) => deps.readLedger(claim.entry.key)));
  const items: (Item | undefined)[] = [];
  for (const [index, result] of results.entries()) {
    if (result.status === 'rejected')
      return { items, failedAt: index, reason: `the erasure ledger could not be read: ${reasonOf(result.reason)}` };
    items.push(result.value);
  }
  return { items };
}

export async function publishErasureEvents(
  records: DynamoDBRecord[],
  config: EntryConfig,
  deps: PublisherDeps,
): Promise<StreamPublishResult> {
  const { claims, skipped, failed: unreadable } = claimsOf(records, erasureClaimOf);
  let failed: Failure | undefined;

  const entries = await readEntries(claims, deps);
  const readable = entries.failedAt === undefined ? claims : claims.slice(0, entries.failedAt);
  const stored = await readAll(
    deps.readRequests,
    readable.map(({ claim }) => claim),
  );
  const confirmed: (RecordIds & { event: ErasedEvent })[] = [];
  const unconfirmed: UnconfirmedRecord[] = [];
  for (const [index, { sequenceNumber, eventId, claim }] of readable.entries()) {
    const read = storedItemOf(stored, claim.request);
    if ('unread' in read) {
      failed = { sequenceNumber, reason: read.unread };
      break;
    }
    const request = read.item;
    const truth = truthOf(claim, entries.items[index]);
    if ('why' in truth || request !== undefined) {
      unconfirmed.push({
        sequenceNumber,
        ...claim.request,
        detailType: claim.event.detailType,
        why: 'why' in truth ? truth.why : 'request-still-there',
        fields: 'why' in truth ? truth.fields : [],
      });
      continue;
    }
    confirmed.push({ sequenceNumber, eventId, event: truth.event });
  }
  const unreadEntry = entries.failedAt === undefined ? undefined : claims[entries.failedAt];
  const ledgerFailure =
    unreadEntry === undefined ? undefined : { sequenceNumber: unreadEntry.sequenceNumber, reason: entries.reason ?? '' };
  // In stream order: a request left unread (before the entry that could not be read), that entry, then a record that could not be read at all.
  const first = failed ?? ledgerFailure ?? unreadable;
  // A GetItem per entry, all sent, and the requests' BatchGetItem calls.
  const reads = claims.length + ('error' in stored ? 1 : stored.calls);
  return { ...(await sendConfirmed(confirmed, config, deps, first)), skipped, unconfirmed, reads };
}
