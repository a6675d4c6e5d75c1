import { BatchGetCommand, type BatchGetCommandInput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { againFor, retrying, type Tries } from '../retry';
import type { Item } from './items';
import { requestKeyOf, type TableKey } from './keys';

/*
 * The publisher's one read (docs/decisions/0017-lifecycle.md): the request items a stream batch
 * speaks of, read consistently in one BatchGetItem, so that it publishes only what the table
 * holds. Lambda's batches are at most 100 records, BatchGetItem's limit of keys; a larger list
 * takes a call per 100. Keys DynamoDB leaves unprocessed (throttling, or an answer over 16 MB)
 * are asked again by the caller's tries (lib/retry.ts); a key still unprocessed when they run
 * out, or when the invocation's time does, is reported unread, never guessed about.
 */

/** At most this many keys per BatchGetItem (DynamoDB's limit). */
export const MAX_KEYS_PER_READ = 100;

export interface RequestIds {
  contractId: string;
  requestId: string;
}

export interface StoredRequests {
  /** The request's item as a consistent read found it; undefined when there is none; 'unread' when DynamoDB never processed its key. */
  itemOf: (ids: RequestIds) => Item | undefined | 'unread';
  /** BatchGetItem calls made. */
  calls: number;
}

/** Reads the items of the requests named, each once, consistently. */
export type ReadRequests = (requests: RequestIds[]) => Promise<StoredRequests>;

/** One BatchGetItem: what it found, and the keys DynamoDB left unprocessed. */
export type BatchGet = (
  input: BatchGetCommandInput,
) => Promise<{ Responses?: Record<string, Item[]>; UnprocessedKeys?: Record<string, { Keys?: Item[] }> }>;

/** BatchGetItem through the function's one document client. */
export const batchGetFor =
  (client: DynamoDBDocumentClient): BatchGet =>
  (input) =>
    client.send(new BatchGetCommand(input));

const textOf = (key: Record<keyof TableKey, unknown>): string => `${String(key.pk)}\n${String(key.sk)}`;

function inChunks<T>(values: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < values.length; i += size) chunks.push(values.slice(i, i + size));
  return chunks;
}

/** `tries`: for keys left unprocessed, the first read included. */
export function requestReader(batchGet: BatchGet, tableName: string, tries: Tries): ReadRequests {
  return async (requests) => {
    const wanted = new Map(
      requests.map(({ contractId, requestId }) => requestKeyOf(contractId, requestId)).map((key) => [textOf(key), key]),
    );
    const found = new Map<string, Item>();
    let calls = 0;
    const leftUnread = (keys: TableKey[]) => ({ unread: keys });
    const { unread } = await retrying<{ unread: TableKey[] }, TableKey[]>(
      tries,
      async (left) => {
        const unprocessed: TableKey[] = [];
        for (const keys of inChunks(left ?? [...wanted.values()], MAX_KEYS_PER_READ)) {
          calls++;
          const answer = await batchGet({ RequestItems: { [tableName]: { Keys: keys.map((key) => ({ ...key })), ConsistentRead: true } } });
          for (const item of answer.Responses?.[tableName] ?? []) found.set(textOf({ pk: item['pk'], sk: item['sk'] }), item);
          for (const key of answer.UnprocessedKeys?.[tableName]?.Keys ?? []) {
            const known = wanted.get(textOf({ pk: key['pk'], sk: key['sk'] }));
            if (known !== undefined) unprocessed.push(known);
          }
        }
        return unprocessed.length === 0 ? { unread: [] } : againFor(unprocessed);
      },
      { exhausted: leftUnread, outOfTime: leftUnread },
    );
    const unreadKeys = new Set(unread.map(textOf));
    return {
      calls,
      itemOf: ({ contractId, requestId }) => {
        const key = textOf(requestKeyOf(contractId, requestId));
        return unreadKeys.has(key) ? 'unread' : found.get(key);
      },
    };
  };
}
