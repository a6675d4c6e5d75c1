import type { AttributeValue, CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isTerminationRequest, isWithdrawal } from '../api-model/validator';
import {
  isStatus,
  MalformedItemError,
  type IdempotencyRecord,
  type RequestState,
  type StoredRequest,
  type WithdrawalRecord,
} from '../termination/ports';
import type { TableKey } from './keys';

/*
 * Items read back in the domain's words (lib/termination/ports.ts). An item that breaks the
 * service's own rules is a bug of ours, never guessed about: MalformedItemError (a 500).
 */

export type Item = Record<string, unknown>;

/** One consistent read of an item of the service's table or the contracts table. */
export type ReadItem = (table: 'requests' | 'contracts', key: TableKey | { contractId: string }) => Promise<Item | undefined>;

/** Whether this item's condition is the one that failed. */
export const conditionFailed = (reason: CancellationReason | undefined): boolean => reason?.Code === 'ConditionalCheckFailed';

/**
 * The item a failed condition concerned: as the failure returned it (ALL_OLD), or, where it came
 * back without it (DynamoDB Local, a conflicting writer), as a consistent read finds it just after.
 */
export async function failedItem(
  returned: Record<string, AttributeValue> | undefined,
  readAfter: () => Promise<Item | undefined>,
): Promise<{ item: Item | undefined; readAfter: boolean }> {
  return returned ? { item: unmarshall(returned), readAfter: false } : { item: await readAfter(), readAfter: true };
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
