import { randomUUID } from 'node:crypto';
import type {
  AttributeValue,
  GetItemCommandInput,
  QueryCommandInput,
  TransactWriteItem,
  TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { textsFor } from '../lib/http/texts';
import { buildCreateTransaction } from '../lib/dynamodb/create-transaction';
import { contractConditionFor } from '../lib/termination/contract-rules';
import { documentConditionFor } from '../lib/termination/documents';
import { STATUS_SUBMITTED } from '../lib/api-model/schemas';
import type { NewRequest } from '../lib/termination/ports/store';
import { requestFingerprint } from '../lib/termination/fingerprint';
import { CUSTOMER_INDEX } from '../lib/dynamodb/customer-requests';
import { limitKeyOf, REQUEST_SORT_PREFIX, requestKeyOf, type CreateTables } from '../lib/dynamodb/keys';
import { newRequestNumber } from '../lib/termination/request-number';
import { limitConditionFor } from '../lib/termination/request-limit';
import { validateTerminationInput } from '../lib/api-model/validator';

/*
 * The floor: the service's own create transaction (buildCreateTransaction), marshalled to
 * AttributeValues here, before any timing, so that the timed part is a bare DynamoDBClient's
 * TransactWriteItems: no validation, no hashing, no document-client marshalling.
 */

type Item = Record<string, AttributeValue>;
type DocumentItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const attributes = (values: Record<string, unknown> | undefined): Item | undefined =>
  values && marshall(values, { removeUndefinedValues: true });

function marshallItem({ Put, ConditionCheck, Update, Delete }: DocumentItem): TransactWriteItem {
  if (Delete) throw new Error('floor: only Put, ConditionCheck and Update items are marshalled');
  return {
    Put: Put && { ...Put, Item: attributes(Put.Item), ExpressionAttributeValues: attributes(Put.ExpressionAttributeValues) },
    ConditionCheck: ConditionCheck && {
      ...ConditionCheck,
      Key: attributes(ConditionCheck.Key),
      ExpressionAttributeValues: attributes(ConditionCheck.ExpressionAttributeValues),
    },
    Update: Update && { ...Update, Key: attributes(Update.Key), ExpressionAttributeValues: attributes(Update.ExpressionAttributeValues) },
  };
}

export function floorTransaction(
  tables: CreateTables,
  contractId: string,
  customerId: string,
  body: unknown,
): TransactWriteItemsCommandInput {
  const validation = validateTerminationInput(body);
  if (!validation.ok) throw new Error(`floor: invalid body: ${JSON.stringify(validation.problems)}`);
  const requestId = randomUUID();
  const requestNumber = newRequestNumber();
  const nowSeconds = Math.floor(Date.now() / 1000);
  const request: NewRequest = {
    requestId,
    requestNumber,
    customerId,
    contractId,
    idempotencyKey: randomUUID(),
    fingerprint: requestFingerprint(contractId, body),
    input: validation.input,
    response: {
      requestId,
      requestNumber,
      status: STATUS_SUBMITTED,
      createdAt: new Date().toISOString(),
      message: textsFor('en').created(requestNumber),
    },
    expiresAt: nowSeconds + 86_400,
    contract: contractConditionFor(customerId, validation.input.desiredTerminationDate),
    documents: documentConditionFor(customerId),
    // The limit as deployed by default (lib/config.ts): one fresh contract per create never reaches it.
    limit: limitConditionFor({ count: 5, periodDays: 30 }, nowSeconds, nowSeconds),
  };
  const { input } = buildCreateTransaction(tables, request, nowSeconds);
  return { ...input, TransactItems: input.TransactItems?.map(marshallItem) };
}

/** The reads' floors: the GetItem and the Query the read routes send, as plain AttributeValues. */
export const floorGet = (table: string, contractId: string, requestId: string): GetItemCommandInput => ({
  TableName: table,
  Key: marshall(requestKeyOf(contractId, requestId)),
});
/**
 * The first page of a contract's list as the service asks it (lib/dynamodb/termination-table.ts):
 * from the customer's limit record down through the requests, one item more than the page for
 * the record, the customer's own.
 */
export const floorQuery = (table: string, contractId: string, customerId: string, limit: number): QueryCommandInput => ({
  TableName: table,
  KeyConditionExpression: 'pk = :pk AND sk BETWEEN :requests AND :limitRecord',
  FilterExpression: 'customerId = :customerId',
  ExpressionAttributeValues: marshall({
    ':pk': requestKeyOf(contractId, '').pk,
    ':requests': REQUEST_SORT_PREFIX,
    ':limitRecord': limitKeyOf(contractId, customerId).sk,
    ':customerId': customerId,
  }),
  ScanIndexForward: false,
  Limit: limit + 1,
});
/** The customer's own list, as the service asks it of the index by customer (lib/dynamodb/customer-requests.ts). */
export const floorCustomerQuery = (table: string, customerId: string, limit: number): QueryCommandInput => ({
  TableName: table,
  IndexName: CUSTOMER_INDEX.name,
  KeyConditionExpression: '#customer = :customer',
  ExpressionAttributeNames: { '#customer': CUSTOMER_INDEX.partitionKey },
  ExpressionAttributeValues: marshall({ ':customer': customerId }),
  ScanIndexForward: false,
  Limit: limit,
});

/** An item's size as DynamoDB bills it: names plus values (UTF-8; a number about 1 byte per 2 digits). */
function size(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|e.*$/gi, '').replace(/^0+/, '').length / 2) + 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + 1 + size(v), 0);
  if (value.M !== undefined) return 3 + itemSize(value.M) + Object.keys(value.M).length;
  return 1;
}
const itemSize = (item: Item) => Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + size(value), 0);

/** The items a transaction's checks and updates concern, as stored: what they are billed on. */
export interface StoredItems {
  /** The item a ConditionCheck reads, by its table. */
  checked: (tableName: string | undefined) => { name: string; item: Item };
  /** The item an Update leaves (billed on the larger of before and after: the after, for a record that only grows). */
  updated: Item;
}

/** Each item of the transaction with its size; a ConditionCheck is billed on the item it checks. */
export function transactionItems(
  input: TransactWriteItemsCommandInput,
  stored: StoredItems,
): { action: string; item: string; bytes: number }[] {
  return (input.TransactItems ?? []).map(({ Put, ConditionCheck }) => {
    // Named by sort key: the slot, the request and the limit record share their contract's partition.
    const named = (item: Item | undefined) => (item?.['sk']?.S ?? '?').replace(/#.*$/, '#…');
    if (Put) return { action: 'Put', item: named(Put.Item), bytes: itemSize(Put.Item ?? {}) };
    if (ConditionCheck) {
      const { name, item } = stored.checked(ConditionCheck.TableName);
      return { action: 'ConditionCheck', item: `${name} (checked)`, bytes: itemSize(item) };
    }
    return { action: 'Update', item: named(stored.updated), bytes: itemSize(stored.updated) };
  });
}
