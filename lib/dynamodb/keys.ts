/*
 * The keys of the service's table (partition key pk, sort key sk). A contract's requests and its
 * active slot share the contract's partition, so one Query lists the requests newest first:
 * request ids are UUIDv7, whose text sorts by creation time.
 *   CONTRACT#<contractId>           ACTIVE                the contract's one active-request slot
 *   CONTRACT#<contractId>           REQUEST#<requestId>   the request itself (TTL: expiresAt, set once it is final)
 *   CONTRACT#<contractId>           REQUEST_LIMIT#<customerId>  when the customer made their latest requests on it (TTL: expiresAt)
 *   IDEMPOTENCY#<customerId>#<key>  IDEMPOTENCY           the key, its fingerprint and the 201 body (TTL: expiresAt)
 *   NUMBER#<requestNumber>          NUMBER                the number alone: makes request numbers unique
 *   WITHDRAWAL#<customerId>#<key>   WITHDRAWAL            a withdrawal's key, its fingerprint and its answer (TTL: expiresAt)
 */

/** The tables a store works on: the service's own, and the contracts table it only reads. */
export interface Tables {
  requests: string;
  contracts: string;
}

/** The create's tables: besides those, the documents service's table, which only the create checks. */
export interface CreateTables extends Tables {
  documents: string;
}

export interface TableKey {
  pk: string;
  sk: string;
}

export const REQUEST_SORT_PREFIX = 'REQUEST#';

/** A key DynamoDB handed back (a LastEvaluatedKey), when it is one of this table's. */
export function tableKeyOf(key: Record<string, unknown> | undefined): TableKey | undefined {
  const pk = key?.['pk'];
  const sk = key?.['sk'];
  return typeof pk === 'string' && typeof sk === 'string' ? { pk, sk } : undefined;
}

export const idempotencyKeyOf = (customerId: string, key: string): TableKey => ({
  pk: `IDEMPOTENCY#${customerId}#${key}`,
  sk: 'IDEMPOTENCY',
});
/** A withdrawal's key: its own namespace, so a key names one action of one route (0018-withdrawal.md). */
export const withdrawalKeyOf = (customerId: string, key: string): TableKey => ({
  pk: `WITHDRAWAL#${customerId}#${key}`,
  sk: 'WITHDRAWAL',
});
export const slotKeyOf = (contractId: string): TableKey => ({ pk: `CONTRACT#${contractId}`, sk: 'ACTIVE' });
/**
 * The record of one customer's latest requests on one contract (0020-request-limit.md): in the
 * contract's partition, outside the requests' sort-key prefix, and above every request (`_` sorts
 * after `#`), so that the first page of the customer's list, one descending Query from this key
 * down (termination-table.ts), reads it first and in the same call. Another customer's record on
 * the contract sorts above or below it by their id: above is outside the Query, below is read and
 * filtered out, never shown.
 */
export const limitKeyOf = (contractId: string, customerId: string): TableKey => ({
  pk: `CONTRACT#${contractId}`,
  sk: `REQUEST_LIMIT#${customerId}`,
});
/**
 * Where a limit record was kept before it moved above the requests: below them, out of the
 * list's reach. `npm run migrate` moves any left there (limit-record-move.ts); an erasure deletes
 * one it finds.
 */
export const LEGACY_LIMIT_SORT_PREFIX = 'LIMIT#';
export const legacyLimitKeyOf = (contractId: string, customerId: string): TableKey => ({
  pk: `CONTRACT#${contractId}`,
  sk: `${LEGACY_LIMIT_SORT_PREFIX}${customerId}`,
});
export const numberKeyOf = (requestNumber: string): TableKey => ({ pk: `NUMBER#${requestNumber}`, sk: 'NUMBER' });
export const requestKeyOf = (contractId: string, requestId: string): TableKey => ({
  pk: `CONTRACT#${contractId}`,
  sk: `${REQUEST_SORT_PREFIX}${requestId}`,
});
