import { isTerminationRequest, isWithdrawal } from '../api-model/validator';
import { MalformedItemError } from '../termination/ports/errors';
import type { IdempotencyRecord, WithdrawalRecord } from '../termination/ports/store';

/*
 * The key records read back in the domain's words (lib/termination/ports/store.ts); the request item's
 * own reading is request-item.ts's. An item that breaks the service's own rules is a bug of
 * ours, never guessed about: MalformedItemError (a 500).
 */

export type Item = Record<string, unknown>;

/** A key's stored record, or nothing when there is none or it has expired (TTL may lag). */
function liveRecord(
  item: Item | undefined,
  nowSeconds: number,
  what: string,
): { fingerprint: string; expiresAt: number; response: unknown; requestId: unknown } | undefined {
  if (!item) return undefined;
  const { fingerprint, expiresAt, responseJson } = item;
  // A record without a numeric expiresAt blocks its key forever: malformed, not absent.
  if (typeof expiresAt !== 'number') throw new MalformedItemError(what);
  if (expiresAt <= nowSeconds) return undefined;
  if (typeof fingerprint !== 'string' || typeof responseJson !== 'string') throw new MalformedItemError(what);
  return { fingerprint, expiresAt, response: JSON.parse(responseJson), requestId: item['requestId'] };
}

/** A create's key record: what the key is bound to. */
export function asIdempotencyRecord(item: Item | undefined, nowSeconds: number): IdempotencyRecord | undefined {
  const record = liveRecord(item, nowSeconds, 'idempotency record');
  if (!record) return undefined;
  const { fingerprint, expiresAt, requestId, response } = record;
  if (typeof requestId !== 'string' || !isTerminationRequest(response)) throw new MalformedItemError('idempotency record');
  return { fingerprint, requestId, expiresAt, response };
}

/** A withdrawal's key record. */
export function asWithdrawalRecord(item: Item | undefined, nowSeconds: number): WithdrawalRecord | undefined {
  const record = liveRecord(item, nowSeconds, 'withdrawal key record');
  if (!record) return undefined;
  if (!isWithdrawal(record.response)) throw new MalformedItemError('withdrawal key record');
  return { fingerprint: record.fingerprint, response: record.response };
}
