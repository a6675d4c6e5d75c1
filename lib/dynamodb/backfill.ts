import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isRequestItem, LACKS_REQUESTED_BY, NUMBER_KIND, requestedByRepair } from './request-item';
import type { TableKey } from './keys';
import { scannedItems } from './scanned-items';

/*
 * The one-off migration of items written before two indexes (docs/decisions/0026-a-request-by-its-number.md),
 * one of the migrations `npm run migrate` runs after a deploy (migrations.ts, docs/deploy.md):
 *   - a request item without `requestedBy` (made before the index by customer,
 *     0023-a-customers-requests-by-index.md) gets it, copied from its own `customerId` inside the
 *     update, so the customer's list and the erasure commands find it;
 *   - a number item that still records `requestId` and `contractId` (written before the number
 *     item held the number alone) loses them.
 * Nothing else has a way to reach these items, so this is a Scan of the whole table, once, reading
 * keys and `kind` only (never a personal field). Every write is conditional on what it repairs
 * still being there, so a run is idempotent and safe beside live traffic: a request erased or
 * expired meanwhile is not made again, one that has `requestedBy` already is not touched.
 */

export interface BackfillReport {
  /** Items the scan read (those of the two kinds that still need the migration). */
  found: number;
  requestsGivenCustomer: number;
  numbersStripped: number;
  /** Items that no longer needed it when written (repaired, erased or expired meanwhile). */
  alreadyDone: number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The write that repairs one item, or undefined for an item this migration has nothing to do with. */
function repairOf(table: string, item: Record<string, unknown>) {
  const key: TableKey = { pk: text(item['pk']), sk: text(item['sk']) };
  if (isRequestItem(item)) return { what: 'request' as const, update: requestedByRepair(table, key) };
  if (item['kind'] === NUMBER_KIND)
    return {
      what: 'number' as const,
      update: {
        TableName: table,
        Key: { ...key },
        UpdateExpression: 'REMOVE requestId, contractId',
        ConditionExpression: 'kind = :kind AND (attribute_exists(requestId) OR attribute_exists(contractId))',
        ExpressionAttributeValues: { ':kind': NUMBER_KIND },
      },
    };
  return undefined;
}

export async function backfill(doc: DynamoDBDocumentClient, table: string): Promise<BackfillReport> {
  const report: BackfillReport = { found: 0, requestsGivenCustomer: 0, numbersStripped: 0, alreadyDone: 0 };
  const items = scannedItems(doc, {
    TableName: table,
    ProjectionExpression: 'pk, sk, kind',
    FilterExpression: `(${LACKS_REQUESTED_BY.expression}) OR (kind = :number AND (attribute_exists(requestId) OR attribute_exists(contractId)))`,
    ExpressionAttributeNames: LACKS_REQUESTED_BY.names,
    ExpressionAttributeValues: { ...LACKS_REQUESTED_BY.values, ':number': NUMBER_KIND },
  });
  for await (const item of items) {
    const repair = repairOf(table, item);
    if (repair === undefined) continue;
    report.found++;
    try {
      await doc.send(new UpdateCommand(repair.update));
      if (repair.what === 'request') report.requestsGivenCustomer++;
      else report.numbersStripped++;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      report.alreadyDone++;
    }
  }
  return report;
}
