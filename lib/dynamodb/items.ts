import { isTerminationRequest, isWithdrawal } from '../api-model/validator';
import { MalformedItemError } from '../termination/ports/errors';
import type { IdempotencyRecord, WithdrawalRecord } from '../termination/ports/store';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableKey } from './keys';

/*
 * The key records' one home: their shape, their writes (the create's and the withdrawal's Put, an
 * erasure's emptying) and their reading back in the domain's words (lib/termination/ports/store.ts); the request item's
 * own reading is request-item.ts's. An item that breaks the service's own rules is a bug of
 * ours, never guessed about: MalformedItemError (a 500).
 */

export type Item = Record<string, unknown>;

/** A key record's `kind`: a create's key (IDEMPOTENCY#…, 0004-idempotency.md) or a withdrawal's (WITHDRAWAL#…, 0018-withdrawal.md). */
export const KEY_RECORD_KIND = { create: 'IDEMPOTENCY', withdrawal: 'WITHDRAWAL_KEY' } as const;

/** A key record as stored: the call it is bound to (its fingerprint), the request and the answer it keeps, until it expires. */
export type KeyRecordItem = TableKey & {
  kind: (typeof KEY_RECORD_KIND)[keyof typeof KEY_RECORD_KIND];
  fingerprint: string;
  /** The request and the answer: an erasure removes them (keyRecordEmptied). */
  requestId?: string;
  contractId?: string;
  /** Kept as text so a replay answers with the very bytes of the first answer. */
  responseJson?: string;
  createdAt: string;
  expiresAt: number;
  /** When an erasure emptied it. */
  erased?: string;
};

/** A key record's attributes as read back, by the names its type has. */
type KeyAttributes = Partial<Record<keyof KeyRecordItem, unknown>>;
/** A key record's attribute's name in an expression, checked against its type. */
const keyName = <Name extends keyof KeyRecordItem>(attributeName: Name): Name => attributeName;

type Put = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Put']>;

/**
 * The Put of a call's key record, in its write's transaction (create-transaction.ts,
 * withdrawal-write.ts): on condition that the key has no live record, the one it has asked back
 * when it refuses.
 */
export function keyRecordPut(
  tableName: string,
  record: Omit<KeyRecordItem, 'responseJson' | 'erased'> & { response: unknown },
  nowSeconds: number,
): Put & { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } {
  const { response, createdAt, expiresAt, ...bound } = record;
  return {
    TableName: tableName,
    Item: { ...bound, responseJson: JSON.stringify(response), createdAt, expiresAt } satisfies KeyRecordItem,
    ConditionExpression: `attribute_not_exists(pk) OR ${keyName('expiresAt')} <= :now`,
    ExpressionAttributeValues: { ':now': nowSeconds },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** A key record emptied by an erasure: its answer and request go, its fingerprint and expiry stay, and it says when it was erased. */
export function keyRecordEmptied(tableName: string, key: TableKey, requestId: string, now: Date) {
  return {
    TableName: tableName,
    Key: { ...key },
    UpdateExpression: `SET ${keyName('erased')} = :erasedAt REMOVE ${keyName('responseJson')}, ${keyName('requestId')}, ${keyName('contractId')}`,
    ConditionExpression: `${keyName('requestId')} = :requestId`,
    ExpressionAttributeValues: { ':erasedAt': now.toISOString(), ':requestId': requestId },
  };
}

/** What a subject access shows of a key record: what the key was bound to and when, never the answer it keeps. */
export function keyRecordSummary(item: Item): {
  kind: unknown;
  fingerprint: unknown;
  requestId: unknown;
  createdAt: unknown;
  expiresAt: unknown;
} {
  const { kind, fingerprint, requestId, createdAt, expiresAt }: KeyAttributes = item;
  return { kind, fingerprint, requestId, createdAt, expiresAt };
}

/** Whether an item is a key record, and, if so, the request it still names and whether an erasure emptied it. */
export function keyRecordState(item: Item | undefined): { requestId: unknown; erased: boolean } | undefined {
  if (item === undefined) return undefined;
  const { kind, requestId, erased }: KeyAttributes = item;
  return kind === KEY_RECORD_KIND.create || kind === KEY_RECORD_KIND.withdrawal ? { requestId, erased: erased !== undefined } : undefined;
}

/** A key's stored record, or nothing when there is none or it has expired (TTL may lag). */
function liveRecord(
  item: Item | undefined,
  nowSeconds: number,
  what: string,
): { fingerprint: string; expiresAt: number; response: unknown; requestId: unknown } | undefined {
  if (!item) return undefined;
  const { fingerprint, expiresAt, responseJson, requestId }: KeyAttributes = item;
  // A record without a numeric expiresAt blocks its key forever: malformed, not absent.
  if (typeof expiresAt !== 'number') throw new MalformedItemError(what);
  if (expiresAt <= nowSeconds) return undefined;
  if (typeof fingerprint !== 'string' || typeof responseJson !== 'string') throw new MalformedItemError(what);
  return { fingerprint, expiresAt, response: JSON.parse(responseJson), requestId };
}

/** The fingerprint of a key record an erasure emptied (customer-data.ts); undefined for any other. */
export function erasedKeyFingerprint(item: Item | undefined): string | undefined {
  if (item === undefined) return undefined;
  const { erased, fingerprint }: KeyAttributes = item;
  if (erased === undefined) return undefined;
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
