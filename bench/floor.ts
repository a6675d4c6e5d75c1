import { randomUUID } from 'node:crypto';
import {
  TransactWriteItemsCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { DEMO_BANK_DETAILS } from '../scripts/local/demo-data';
import { DESIRED_DATE } from './fixtures';

/*
 * The floor: the very TransactWriteItems the service sends for a create (see
 * lib/termination/termination-store.ts), the same five items with the same conditions and item
 * sizes, built as plain AttributeValues and sent with the bare DynamoDBClient. No validation, no
 * hashing, no document-client marshalling: what is left is DynamoDB's own time.
 */

type Item = Record<string, AttributeValue>;

const s = (value: string): AttributeValue => ({ S: value });
const n = (value: number): AttributeValue => ({ N: String(value) });

export function floorTransaction(
  tables: { requests: string; contracts: string },
  contractId: string,
  customerId: string,
): TransactWriteItemsCommandInput {
  const requestId = randomUUID();
  const idempotencyKey = randomUUID();
  const requestNumber = `TR-${randomUUID().slice(0, 4).toUpperCase()}-${randomUUID().slice(0, 4).toUpperCase()}`;
  const createdAt = new Date().toISOString();
  const nowSeconds = Math.floor(Date.now() / 1000);
  const response = {
    requestId,
    requestNumber,
    status: 'SUBMITTED',
    createdAt,
    message: `Your early termination request No. ${requestNumber} has been submitted.`,
  };
  const input: Item = {
    reasonCode: s('RELOCATION'),
    desiredTerminationDate: s(DESIRED_DATE),
    bankDetails: {
      M: {
        bik: s(DEMO_BANK_DETAILS.bik),
        accountNumber: s(DEMO_BANK_DETAILS.accountNumber),
        recipientName: s(DEMO_BANK_DETAILS.recipientName),
      },
    },
    comment: s('Moving abroad for work; please close the contract early.'),
    documentIds: { L: [s(randomUUID()), s(randomUUID())] },
  };
  return {
    TransactItems: [
      {
        Put: {
          TableName: tables.requests,
          Item: {
            pk: s(`IDEMPOTENCY#${customerId}#${idempotencyKey}`),
            kind: s('IDEMPOTENCY'),
            fingerprint: s('0'.repeat(64)),
            requestId: s(requestId),
            contractId: s(contractId),
            responseJson: s(JSON.stringify(response)),
            createdAt: s(createdAt),
            expiresAt: n(nowSeconds + 86_400),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
          ExpressionAttributeValues: { ':now': n(nowSeconds) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        ConditionCheck: {
          TableName: tables.contracts,
          Key: { contractId: s(contractId) },
          ConditionExpression:
            'attribute_exists(contractId) AND customerId = :customerId AND #status = :active AND (attribute_not_exists(endDate) OR endDate >= :desired)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':customerId': s(customerId), ':active': s('ACTIVE'), ':desired': s(DESIRED_DATE) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Put: {
          TableName: tables.requests,
          Item: {
            pk: s(`ACTIVE#${contractId}`),
            kind: s('ACTIVE_SLOT'),
            requestId: s(requestId),
            requestNumber: s(requestNumber),
            customerId: s(customerId),
            createdAt: s(createdAt),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Put: {
          TableName: tables.requests,
          Item: { pk: s(`NUMBER#${requestNumber}`), kind: s('REQUEST_NUMBER'), requestId: s(requestId) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tables.requests,
          Item: {
            pk: s(`REQUEST#${requestId}`),
            kind: s('REQUEST'),
            requestId: s(requestId),
            requestNumber: s(requestNumber),
            status: s('SUBMITTED'),
            customerId: s(customerId),
            contractId: s(contractId),
            idempotencyKey: s(idempotencyKey),
            createdAt: s(createdAt),
            ...input,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  };
}

export async function sendFloor(client: DynamoDBClient, input: TransactWriteItemsCommandInput): Promise<void> {
  await client.send(new TransactWriteItemsCommand(input));
}

/** An item's size as DynamoDB bills it: attribute names plus values (UTF-8 bytes; numbers ~1 byte per 2 digits). */
export function itemSizeBytes(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|e.*$/gi, '').replace(/^0+/, '').length / 2) + 1;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + 1 + valueSize(v), 0);
  if (value.M !== undefined) return 3 + Object.entries(value.M).reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  return 0;
}

/**
 * Each item of the transaction with its size and the write units a transaction bills for it (2 per
 * started KB). A ConditionCheck is billed on the size of the item it checks: pass that item.
 */
export function transactionItemSizes(
  input: TransactWriteItemsCommandInput,
  checkedItem: Item,
): { action: string; item: string; bytes: number; wcu: number }[] {
  return (input.TransactItems ?? []).map((entry) => {
    const put = entry.Put;
    const item = put?.Item ?? checkedItem;
    const name = put ? (item['pk']?.S ?? '?').replace(/#.*$/, '#…') : 'contract (checked)';
    const bytes = itemSizeBytes(item);
    return { action: put ? 'Put' : 'ConditionCheck', item: name, bytes, wcu: 2 * Math.max(1, Math.ceil(bytes / 1024)) };
  });
}
