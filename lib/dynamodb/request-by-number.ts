import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MalformedItemError } from '../termination/ports/errors';
import { isRequestItem, requestIdsOf, type RequestItem } from './request-item';
import type { RequestIds } from './request-reads';

/*
 * A request found by its number, the one id a customer quotes and the back office's records use
 * (docs/decisions/0026-a-request-by-its-number.md): one Query of the requests table's index by
 * number, never a scan. The number item (NUMBER#<requestNumber>) holds the number alone, so that
 * nothing pointing to a person outlives its request; the index is the request item's own
 * attributes, and DynamoDB deletes its entry with the item (its expiry, an erasure). The slot
 * carries the number too, so the index holds it while the request is active: only the request
 * item answers.
 */

/** The index by number as resources/tables.yml defines it (tests/integration/request-by-number.test.ts holds them together). */
export const NUMBER_INDEX = {
  name: 'RequestsByNumber',
  partitionKey: 'requestNumber',
} as const satisfies { name: string; partitionKey: keyof RequestItem };

/** What the index copies besides the keys: what names the request, none of it ever changed after the create. */
export const NUMBER_INDEX_ATTRIBUTES = ['kind', 'requestId', 'contractId'] as const satisfies readonly (keyof RequestItem)[];

/**
 * The request a number names, or undefined when no request carries it (never made, expired,
 * erased). Eventually consistent, as every index: a request made a moment ago may not be found yet.
 * Asks for the index's attributes by name, as on-call's policy requires of every read.
 */
export async function findRequestByNumber(
  client: DynamoDBDocumentClient,
  tableName: string,
  requestNumber: string,
): Promise<RequestIds | undefined> {
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: NUMBER_INDEX.name,
      KeyConditionExpression: '#number = :number',
      ProjectionExpression: NUMBER_INDEX_ATTRIBUTES.map((_, n) => `#a${String(n)}`).join(', '),
      ExpressionAttributeNames: {
        '#number': NUMBER_INDEX.partitionKey,
        ...Object.fromEntries(NUMBER_INDEX_ATTRIBUTES.map((name, n) => [`#a${String(n)}`, name])),
      },
      ExpressionAttributeValues: { ':number': requestNumber },
    }),
  );
  const requests = Items.filter(isRequestItem);
  const [request, ...more] = requests;
  if (request === undefined) return undefined;
  const ids = requestIdsOf(request);
  // Numbers are unique (the number item's condition): two requests with one number is a bug of ours, never guessed about.
  if (more.length > 0 || ids === undefined)
    throw new MalformedItemError(`request number ${requestNumber}: ${String(requests.length)} request items carry it`);
  return ids;
}
