import { againFor, outOfTimeReason, retrying, type Tries } from '../retry';
import { signedDetail, type EventSigner } from './event-signature';
import { reasonOf } from './publish-batches';

/*
 * Signing a batch's confirmed events before they are batched for PutEvents (docs/events.md,
 * Verifying an event). Each event is signed on its own, ten at a time (KMS's ECC Sign quota is
 * per account and region: docs/decisions/0017-lifecycle.md). A signing that fails for a reason
 * that may pass (throttling, 5xx, network) is tried again by the publisher's tries (lib/retry.ts);
 * an event still unsigned when they run out, or when the invocation's time does, ends the run at
 * that event: it and every later one go back to the stream, never out unsigned, and the events
 * before it go out.
 */

/** Events signed at once: the entries of one PutEvents call. */
export const SIGNING_CONCURRENCY = 10;

/** The tries are per event (maxAttempts: PUBLISH_MAX_ATTEMPTS). */
export interface SigningDeps extends Tries {
  signer: EventSigner;
  isTransient: (error: unknown) => boolean;
}

export interface ToSign<Detail> {
  sequenceNumber: string;
  source: string;
  detailType: string;
  detail: Detail;
}

export interface SignResult<Detail> {
  /** The events signed, in the order given, up to the first that could not be. */
  signed: { sequenceNumber: string; detail: Detail & { signature: string } }[];
  failed?: { sequenceNumber: string; reason: string };
}

/** One event's signing: its signed detail, or why its tries ended without one (a signing that failed for good is thrown). */
type Signing<Detail> = { signed: Detail & { signature: string } } | { unsigned: string };

function signOne<Detail extends Record<string, unknown>>(item: ToSign<Detail>, deps: SigningDeps): Promise<Signing<Detail>> {
  return retrying<Signing<Detail>, string>(
    deps,
    async () => {
      try {
        return { signed: await signedDetail(item, deps.signer) };
      } catch (error) {
        if (!deps.isTransient(error)) throw error;
        return againFor(reasonOf(error));
      }
    },
    { exhausted: (reason) => ({ unsigned: reason }), outOfTime: (reason) => ({ unsigned: outOfTimeReason(reason) }) },
  );
}

export async function signInOrder<Detail extends Record<string, unknown>>(
  items: ToSign<Detail>[],
  deps: SigningDeps,
): Promise<SignResult<Detail>> {
  const signed: SignResult<Detail>['signed'] = [];
  for (let start = 0; start < items.length; start += SIGNING_CONCURRENCY) {
    const chunk = items.slice(start, start + SIGNING_CONCURRENCY);
    const results = await Promise.allSettled(chunk.map((item) => signOne(item, deps)));
    for (const [index, result] of results.entries()) {
      const { sequenceNumber } = chunk[index] ?? { sequenceNumber: '' };
      const endsAt = (reason: string) => ({ signed, failed: { sequenceNumber, reason: `the event could not be signed: ${reason}` } });
      if (result.status === 'rejected') return endsAt(reasonOf(result.reason));
      if ('unsigned' in result.value) return endsAt(result.value.unsigned);
      signed.push({ sequenceNumber, detail: result.value.signed });
    }
  }
  return { signed };
}
