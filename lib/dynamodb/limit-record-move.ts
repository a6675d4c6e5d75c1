import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Item } from './items';
import { LEGACY_LIMIT_SORT_PREFIX, limitKeyOf, tableKeyOf, type TableKey } from './keys';
import { createdAtSecondsOf, LIMIT_KIND } from './request-limit';
import { scannedItems } from './scanned-items';

/*
 * Limit records kept under their earlier key (`LIMIT#<customerId>`, below a contract's requests,
 * where the list could only read them with a call of their own) moved to where the list's one
 * Query reads them (keys.ts): one of the migrations `npm run migrate` runs after a deploy
 * (migrations.ts, docs/deploy.md). Each is merged into the record at the new key, which a create
 * since the deploy may have started: the times of both, newest first, and the later expiry; the
 * old one is deleted in the same transaction, conditional on both being as read, so a create in
 * between makes the move read again. An expired record is only deleted. Running it again moves
 * nothing twice. It scans the table, which no function may: an operator's command.
 */

export interface LimitRecordMove {
  moved: number;
  expired: number;
}

/** Every time a record holds, newest first, up to the first it has none for. */
const timesOf = (item: Item | undefined) => createdAtSecondsOf(item, { count: Number.POSITIVE_INFINITY, periodDays: 1 }) ?? [];
const expiryOf = (item: Item | undefined) => (typeof item?.['expiresAt'] === 'number' ? item['expiresAt'] : 0);

const ATTEMPTS = 5;

export async function moveLegacyLimitRecords(doc: DynamoDBDocumentClient, tableName: string, nowSeconds: number): Promise<LimitRecordMove> {
  const result: LimitRecordMove = { moved: 0, expired: 0 };
  const legacyRecords = scannedItems(doc, {
    TableName: tableName,
    FilterExpression: 'begins_with(sk, :legacy)',
    ExpressionAttributeValues: { ':legacy': LEGACY_LIMIT_SORT_PREFIX },
    ConsistentRead: true,
  });
  for await (const item of legacyRecords) {
    const key = tableKeyOf(item);
    if (key === undefined) continue;
    result[await moveOne(doc, tableName, key, nowSeconds)] += 1;
  }
  return result;
}

/** One record moved (or, expired, deleted), read again and tried again when a create got in between. */
async function moveOne(
  doc: DynamoDBDocumentClient,
  tableName: string,
  legacy: TableKey,
  nowSeconds: number,
): Promise<keyof LimitRecordMove> {
  const target = limitKeyOf(legacy.pk.replace(/^CONTRACT#/, ''), legacy.sk.slice(LEGACY_LIMIT_SORT_PREFIX.length));
  const read = async (key: TableKey) =>
    (await doc.send(new GetCommand({ TableName: tableName, Key: { ...key }, ConsistentRead: true }))).Item;
  for (let attempt = 1; ; attempt++) {
    const [old, current] = await Promise.all([read(legacy), read(target)]);
    if (old === undefined) return 'moved';
    const deleteOld = {
      Delete: {
        TableName: tableName,
        Key: { ...legacy },
        ConditionExpression: 'expiresAt = :oldExpiry',
        ExpressionAttributeValues: { ':oldExpiry': expiryOf(old) },
      },
    };
    const expired = expiryOf(old) <= nowSeconds;
    // Every time of both: each a request made, so counting one the setting no longer reaches is never stricter than the rule.
    const times = [...timesOf(old), ...timesOf(current)].sort((a, b) => b - a);
    const merged = {
      Put: {
        TableName: tableName,
        Item: {
          ...target,
          kind: LIMIT_KIND,
          customerId: legacy.sk.slice(LEGACY_LIMIT_SORT_PREFIX.length),
          expiresAt: Math.max(expiryOf(old), expiryOf(current)),
          ...Object.fromEntries(times.map((time, i) => [`t${i}`, time])),
        },
        // As read: absent, or the same latest request and expiry.
        ...(current === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: 't0 = :t0 AND expiresAt = :expiry',
              ExpressionAttributeValues: { ':t0': timesOf(current)[0] ?? 0, ':expiry': expiryOf(current) },
            }),
      },
    };
    try {
      await doc.send(new TransactWriteCommand({ TransactItems: expired ? [deleteOld] : [merged, deleteOld] }));
      return expired ? 'expired' : 'moved';
    } catch (error) {
      if (!(error instanceof TransactionCanceledException) || attempt === ATTEMPTS) throw error;
    }
  }
}
