import { signedDetail, type EventSigner } from './event-signature';

/*
 * Signing a batch's confirmed events before they are batched for PutEvents (docs/events.md,
 * Verifying an event). Each event is signed on its own, ten at a time (KMS's ECC Sign quota is
 * per account and region: docs/decisions/0017-lifecycle.md). A signing that fails for a reason
 * that may pass (throttling, 5xx, network) is tried again with the publisher's backoff; an event
 * still unsigned then ends the run at that event: it and every later one go back to the stream,
 * never out unsigned, and the events before it go out.
 */

/** Events signed at once: the entries of one PutEvents call. */
export const SIGNING_CONCURRENCY = 10;

export interface SigningDeps {
  signer: EventSigner;
  /** Attempts per event, the first included. */
  maxAttempts: number;
  pause: (attempt: number) => Promise<void>;
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

const reasonOf = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

async function signOne<Detail extends Record<string, unknown>>(item: ToSign<Detail>, deps: SigningDeps) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await signedDetail(item, deps.signer);
    } catch (error) {
      if (attempt >= deps.maxAttempts || !deps.isTransient(error)) throw error;
      await deps.pause(attempt);
    }
  }
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
      if (result.status === 'rejected')
        return { signed, failed: { sequenceNumber, reason: `the event could not be signed: ${reasonOf(result.reason)}` } };
      signed.push({ sequenceNumber, detail: result.value });
    }
  }
  return { signed };
}
