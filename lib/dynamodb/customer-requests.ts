import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RequestHistory } from '../termination/ports/request-history';
import type { CustomerRequest, CustomerRequestPage } from '../termination/ports/store';
import type { Item } from './items';
import { requestKeyOf } from './keys';
import { asStoredRequest, requestHistoryOf, requestIdsOf, type RequestItem } from './request-item';

/*
 * The reads a customer's own view of their requests needs (docs/decisions/0022-what-a-customer-sees-of-a-request.md,
 * 0023-a-customers-requests-by-index.md): one request item whole, and a page of their requests on
 * every contract from the table's sparse index by customer. Only request items carry the index's
 * partition key (`requestedBy`, written by the create), so no slot, number, limit or key record is
 * ever in the index; it holds their keys and CUSTOMER_INDEX_ATTRIBUTES, never bank details.
 */

/** The index by customer as resources/tables.yml defines it (tests/integration/customer-requests.test.ts holds them together). */
export const CUSTOMER_INDEX = {
  name: 'RequestsByCustomer',
  partitionKey: 'requestedBy',
  sortKey: 'requestId',
} as const satisfies { name: string; partitionKey: keyof RequestItem; sortKey: keyof RequestItem };

/** What the index copies of each request besides the keys: what the list shows of it, and no more. */
export const CUSTOMER_INDEX_ATTRIBUTES = [
  'contractId',
  'requestNumber',
  'status',
  'createdAt',
  'statusReason',
] as const satisfies readonly (keyof RequestItem)[];

/** The request item whole, read as its history; undefined when there is none. */
export async function readRequestHistory(
  client: DynamoDBDocumentClient,
  tableName: string,
  contractId: string,
  requestId: string,
  abortSignal?: AbortSignal,
): Promise<RequestHistory | undefined> {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { ...requestKeyOf(contractId, requestId) } }), {
    abortSignal,
  });
  return Item === undefined ? undefined : requestHistoryOf(Item);
}

/** An item of the index as the domain's CustomerRequest: the customer is the index's partition key. */
function asCustomerRequest(item: Item): CustomerRequest {
  const stored = asStoredRequest({ ...item, customerId: item[CUSTOMER_INDEX.partitionKey] });
  const ids = requestIdsOf(item);
  if (ids === undefined) throw new Error(`The index item of request ${stored.requestId} names no contract`);
  return { ...stored, contractId: ids.contractId };
}

/**
 * One page of a customer's requests on every contract, newest first (request ids are UUIDv7),
 * after the request id `after`: one Query of the index, eventually consistent as every index read.
 */
export async function queryCustomerRequests(
  client: DynamoDBDocumentClient,
  tableName: string,
  customerId: string,
  limit: number,
  after: string | undefined,
  abortSignal?: AbortSignal,
): Promise<CustomerRequestPage> {
  const { Items = [], LastEvaluatedKey } = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: CUSTOMER_INDEX.name,
      KeyConditionExpression: after === undefined ? '#customer = :customer' : '#customer = :customer AND #request < :after',
      ExpressionAttributeNames: {
        '#customer': CUSTOMER_INDEX.partitionKey,
        ...(after === undefined ? {} : { '#request': CUSTOMER_INDEX.sortKey }),
      },
      ExpressionAttributeValues: { ':customer': customerId, ...(after === undefined ? {} : { ':after': after }) },
      ScanIndexForward: false,
      Limit: limit,
    }),
    { abortSignal },
  );
  const items = Items.map(asCustomerRequest);
  const last = items.at(-1);
  return LastEvaluatedKey !== undefined && items.length === limit && last !== undefined
    ? { items, lastRequestId: last.requestId }
    : { items };
}
