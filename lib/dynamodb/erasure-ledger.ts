import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SECONDS_PER_DAY } from '../time';
import type { Item } from './items';
import type { TableKey } from './keys';

/*
 * The erasure ledger's items (docs/decisions/0025-erasure.md): one per erasure, written in the
 * erasing transaction itself (customer-data.ts), so an entry exists exactly when its keys were
 * erased. Keys, ids and times only, nothing of what the erased items held. Its stream tells the
 * publisher of each erasure (lib/events/publish-erasure-events.ts), which reads the entry back
 * here before it says anything.
 *   ERASED#<YYYY-MM-DD>   <erasedAt>#<first key erased>   kind ERASURE (TTL: expiresAt)
 */

export const LEDGER_KIND = 'ERASURE';
const LEDGER_PARTITION_PREFIX = 'ERASED#';

/** The ledger's partition for one UTC day: an operator reapplies the erasures since a time day by day, without a scan. */
export const ledgerPartition = (at: Date): string => `${LEDGER_PARTITION_PREFIX}${at.toISOString().slice(0, 10)}`;

/** Whether a key is a ledger entry's (the stream records of the ledger are told from the requests table's by it). */
export const isLedgerKey = (key: { pk?: unknown }): boolean => typeof key.pk === 'string' && key.pk.startsWith(LEDGER_PARTITION_PREFIX);

/** One erasure as the ledger records it. A limit record's erasure names no request. */
export interface LedgerEntry {
  key: TableKey;
  erasedAt: string;
  contractId: string;
  requestId?: string;
  requestNumber?: string;
  /** The requests table's keys the erasure removed or emptied. */
  keys: TableKey[];
}

/** The ledger item of an erasure that expires after `ledgerDays`. */
export function ledgerItemOf(
  erasure: { contractId: string; requestId?: string | undefined; requestNumber?: string | undefined; keys: TableKey[] },
  now: Date,
  ledgerDays: number,
): Item {
  return {
    pk: ledgerPartition(now),
    // The first key erased makes the entry unique: a request's own, or a limit record's (contract and customer).
    sk: `${now.toISOString()}#${erasure.keys.map((k) => `${k.pk}/${k.sk}`)[0] ?? ''}`,
    kind: LEDGER_KIND,
    erasedAt: now.toISOString(),
    ...(erasure.requestId === undefined ? {} : { requestId: erasure.requestId }),
    ...(erasure.requestNumber === undefined ? {} : { requestNumber: erasure.requestNumber }),
    contractId: erasure.contractId,
    keys: erasure.keys,
    expiresAt: Math.floor(now.getTime() / 1000) + ledgerDays * SECONDS_PER_DAY,
  };
}

export const isTableKey = (value: unknown): value is TableKey =>
  typeof value === 'object' &&
  value !== null &&
  typeof Reflect.get(value, 'pk') === 'string' &&
  typeof Reflect.get(value, 'sk') === 'string';

/** A ledger item read back; undefined when it is not one (another kind, or a field missing or of the wrong type). */
export function ledgerEntryOf(item: Item): LedgerEntry | undefined {
  const { pk, sk, kind, erasedAt, contractId, requestId, requestNumber, keys } = item;
  if (typeof pk !== 'string' || typeof sk !== 'string' || kind !== LEDGER_KIND) return undefined;
  if (typeof erasedAt !== 'string' || typeof contractId !== 'string' || !Array.isArray(keys) || !keys.every(isTableKey)) return undefined;
  if ((requestId !== undefined && typeof requestId !== 'string') || (requestNumber !== undefined && typeof requestNumber !== 'string'))
    return undefined;
  return {
    key: { pk, sk },
    erasedAt,
    contractId,
    ...(requestId === undefined ? {} : { requestId }),
    ...(requestNumber === undefined ? {} : { requestNumber }),
    keys: keys.map(({ pk: keyPk, sk: keySk }) => ({ pk: keyPk, sk: keySk })),
  };
}

/** Reads one ledger item by its key, consistently: undefined when the ledger holds none. */
export type ReadLedger = (key: TableKey) => Promise<Item | undefined>;

/** GetItem on the ledger through the function's one document client: the publisher's only access to it. */
export const ledgerReader =
  (client: DynamoDBDocumentClient, tableName: string): ReadLedger =>
  async (key) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }))).Item;
