import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEGACY_LIMIT_SORT_PREFIX, limitKeyOf, tableKeyOf, type TableKey } from './keys';
import { everyCreatedAtSecondsOf, expiryOf, limitRecordPut } from './request-limit';
import { againFor, retrying, RETRY, triesBy, type Again } from '../retry';
import { namedTransaction, refusalOf } from './write-parts';
import { scannedItems } from './scanned-items';

/*
 * Limit records kept under their earlier key (`LIMIT#<customerId>`, below a contract's requests,
 * where the list could only read them with a call of their own) moved to where the list's one
 * Query reads them (keys.ts): one of the migrations `npm run migrate` runs after a deploy
 * (migrations.ts, docs/deploy.md). Each is merged into the record at the new key, which a create
 * since the deploy may have started: the times of both, newest first, and the later expiry; the
 * old one is deleted in the same transaction, conditional on both being as read, so a create in
 * between makes the move read again (the operator's retry policy, lib/retry.ts). An expired record is only deleted. Running it again moves
 * nothing twice. It scans the table, which no function may: an operator's command.
 */

export interface LimitRecordMove {
  moved: number;
  expired: number;
}

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

/** One record moved (or, expired, deleted), read again and tried again (RETRY.operator) when a create got in between. */
async function moveOne(
  doc: DynamoDBDocumentClient,
  tableName: string,
  legacy: TableKey,
  nowSeconds: number,
): Promise<keyof LimitRecordMove> {
  const contractId = legacy.pk.replace(/^CONTRACT#/, '');
  const customerId = legacy.sk.slice(LEGACY_LIMIT_SORT_PREFIX.length);
  const read = async (key: TableKey) =>
    (await doc.send(new GetCommand({ TableName: tableName, Key: { ...key }, ConsistentRead: true }))).Item;
  const attempt = async (): Promise<{ done: keyof LimitRecordMove } | Again<string>> => {
    const [old, current] = await Promise.all([read(legacy), read(limitKeyOf(contractId, customerId))]);
    if (old === undefined) return { done: 'moved' };
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
    const times = [...everyCreatedAtSecondsOf(old), ...everyCreatedAtSecondsOf(current)].sort((a, b) => b - a);
    const merged = limitRecordPut(
      tableName,
      contractId,
      customerId,
      { times, expiresAt: Math.max(expiryOf(old), expiryOf(current)) },
      current,
    );
    const write = namedTransaction<'merged' | 'earlier'>([
      ...(expired ? [] : [{ name: 'merged' as const, item: { Put: merged } }]),
      { name: 'earlier', item: deleteOld },
    ]);
    try {
      await doc.send(new TransactWriteCommand(write.input));
      return { done: expired ? 'expired' : 'moved' };
    } catch (error) {
      const refusal = refusalOf(write, error);
      if (refusal === undefined) throw error;
      return againFor(refusal);
    }
  };
  const { done } = await retrying(triesBy(RETRY.operator, undefined), attempt, {
    exhausted: (refusal) => {
      throw new Error(`The limit record ${legacy.sk} on ${legacy.pk} kept changing while it moved (${refusal}): run the command again`);
    },
  });
  return done;
}
