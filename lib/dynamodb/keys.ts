/*
 * The keys of the service's table (partition key pk, sort key sk). A contract's requests and its
 * active slot share the contract's partition, so one Query lists the requests newest first:
 * request ids are UUIDv7, whose text sorts by creation time.
 *   CONTRACT#<contractId>           ACTIVE                the contract's one active-request slot
 *   CONTRACT#<contractId>           REQUEST#<requestId>   the request itself
 *   IDEMPOTENCY#<customerId>#<key>  IDEMPOTENCY           the key, its fingerprint and the 201 body (TTL: expiresAt)
 *   NUMBER#<requestNumber>          NUMBER                makes request numbers unique
 */

export interface TableKey {
  pk: string;
  sk: string;
}

export const REQUEST_SORT_PREFIX = 'REQUEST#';

export const idempotencyKeyOf = (customerId: string, key: string): TableKey => ({
  pk: `IDEMPOTENCY#${customerId}#${key}`,
  sk: 'IDEMPOTENCY',
});
export const slotKeyOf = (contractId: string): TableKey => ({ pk: `CONTRACT#${contractId}`, sk: 'ACTIVE' });
export const numberKeyOf = (requestNumber: string): TableKey => ({ pk: `NUMBER#${requestNumber}`, sk: 'NUMBER' });
export const requestKeyOf = (contractId: string, requestId: string): TableKey => ({
  pk: `CONTRACT#${contractId}`,
  sk: `${REQUEST_SORT_PREFIX}${requestId}`,
});
