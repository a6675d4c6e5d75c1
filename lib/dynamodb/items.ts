import { isTerminationRequest, isWithdrawal } from '../api-model/validator';
import {
  isStatus,
  MalformedItemError,
  type IdempotencyRecord,
  type RequestState,
  type StoredRequest,
  type WithdrawalRecord,
} from '../termination/ports';

/*
 * Items read back in the domain's words (lib/termination/ports.ts). An item that breaks the
 * service's own rules is a bug of ours, never guessed about: MalformedItemError (a 500).
 */

export type Item = Record<string, unknown>;

/**
 * The first condition of a refused write, in the order of its items (and every other that failed,
 * by position: the create names each refused document), with the item it concerned:
 * as the failure returned it, or, where it came back without it (DynamoDB Local, a conflicting
 * writer), as the store's consistent read found it just after (`readAfter`). Only the items the
 * write asks back (ReturnValuesOnConditionCheckFailure: ALL_OLD) are ever read; for any other,
 * `item` is undefined. termination-table.ts finds it; the explain functions of each write read it.
 */
export interface Failure {
  /** The failed item's position in the write. */
  position: number;
  item: Item | undefined;
  readAfter: boolean;
  /** Every position whose condition failed, in order (the first is `position`). */
  failedPositions: readonly number[];
}

/** A request item read back as the domain's StoredRequest. */
export function asStoredRequest(item: Item): StoredRequest {
  const { requestId, requestNumber, customerId, status, createdAt, statusReason } = item;
  if (
    typeof requestId !== 'string' ||
    typeof requestNumber !== 'string' ||
    typeof customerId !== 'string' ||
    !isStatus(status) ||
    typeof createdAt !== 'string' ||
    !(statusReason === undefined || typeof statusReason === 'string')
  ) {
    throw new MalformedItemError(`request item ${String(requestId)}`);
  }
  return { requestId, requestNumber, customerId, status, createdAt, ...(statusReason === undefined ? {} : { statusReason }) };
}

/** A request item as a refused status write found it. */
export function asRequestState(item: Item, requestId: string): RequestState {
  const { customerId, status, statusReason, decisionIds } = item;
  if (!isStatus(status)) throw new MalformedItemError(`request item ${requestId}: status`);
  if (!(statusReason === undefined || typeof statusReason === 'string'))
    throw new MalformedItemError(`request item ${requestId}: statusReason`);
  return {
    customerId: typeof customerId === 'string' ? customerId : undefined,
    status,
    statusReason,
    // Ids of decisions applied: anything but a list of them names none.
    decisionIds: Array.isArray(decisionIds) ? decisionIds.filter((id): id is string => typeof id === 'string') : [],
  };
}

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

/** The fingerprint of a key record an erasure emptied (customer-data.ts); undefined for any other. */
export function erasedKeyFingerprint(item: Item | undefined): string | undefined {
  if (item?.['erased'] === undefined) return undefined;
  const { fingerprint } = item;
  if (typeof fingerprint !== 'string') throw new MalformedItemError('erased key record');
  return fingerprint;
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
