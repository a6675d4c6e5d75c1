import {
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type AttributeValue as StreamAttributeValue,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { DynamoDbConfig } from '../config';
import { againFor, retrying, type Again, type Tries } from '../retry';
import { localEndpoint } from './local-endpoint';

/*
 * A DynamoDB stream read through its API (DynamoDB Streams), as Lambda's event source mapping
 * reads it: the records between two sequence numbers of one shard, each as Lambda hands it to a
 * function, and the streams DynamoDB lists for a table. The publisher reads a range again when it
 * is asked to redrive a batch the mapping gave up on (lib/events/stream-redrive.ts); the local
 * stream poller (scripts/local/stream-poller.ts) reads with the same record shape.
 * https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html
 */

function lambdaValue(value: StreamAttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.L !== undefined) return { L: value.L.map(lambdaValue) };
  if (value.M !== undefined) return { M: lambdaMap(value.M) };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b).toString('base64')) };
  throw new Error(`Stream attribute of an unknown type: ${Object.keys(value).join(',')}`);
}

const lambdaMap = (map: Record<string, StreamAttributeValue>): Record<string, AttributeValue> =>
  Object.fromEntries(Object.entries(map).map(([name, value]) => [name, lambdaValue(value)]));

const lambdaImage = (image: Record<string, StreamAttributeValue> | undefined) => (image === undefined ? undefined : lambdaMap(image));

function eventName(name: string | undefined): DynamoDBRecord['eventName'] {
  return name === 'INSERT' || name === 'MODIFY' || name === 'REMOVE' ? name : undefined;
}

/** A record as Lambda hands it to a function. */
export function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const data = record.dynamodb;
  const approximate = data?.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: eventName(record.eventName),
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? 'eu-central-1',
    eventSourceARN: streamArn,
    dynamodb: {
      ...(approximate ? { ApproximateCreationDateTime: Math.floor(approximate.getTime() / 1000) } : {}),
      Keys: lambdaImage(data?.Keys),
      NewImage: lambdaImage(data?.NewImage),
      OldImage: lambdaImage(data?.OldImage),
      SequenceNumber: data?.SequenceNumber,
      SizeBytes: data?.SizeBytes,
      StreamViewType: data?.StreamViewType,
    },
  };
}

/** One shard's records from one sequence number to another, both included. */
export interface StreamPositions {
  streamArn: string;
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
}

/** The stream's records of a range, or why they cannot be read. */
export type StreamRange = { kind: 'records'; records: DynamoDBRecord[] } | { kind: 'gone'; detail: string };

/** Reads a range; an iterator that expires is had again by `tries`. */
export type ReadStreamRange = (positions: StreamPositions, tries: Tries) => Promise<StreamRange>;

/** The stream's answers that mean its records are gone: trimmed (older than 24 h), or the shard or stream no longer exists. */
const GONE = new Set(['TrimmedDataAccessException', 'ResourceNotFoundException']);

function sequence(value: string | undefined): bigint | undefined {
  try {
    return value === undefined ? undefined : BigInt(value);
  } catch {
    return undefined;
  }
}

/**
 * Reads a range with GetShardIterator (AT_SEQUENCE_NUMBER its first) and GetRecords until its
 * last. An open shard answers empty pages at its end: after `maxEmptyReads` of them the range is
 * reported incomplete. An iterator that expires (15 minutes after it was had) is had again after
 * the last record read, by the invocation's tries (lib/retry.ts): when they run out, or the
 * invocation's time does, the read fails.
 */
export function streamRangeReader(client: DynamoDBStreamsClient, options: { maxEmptyReads?: number } = {}): ReadStreamRange {
  return async (positions, tries) => {
    const { streamArn, shardId, endSequenceNumber } = positions;
    const end = sequence(endSequenceNumber);
    if (end === undefined) return { kind: 'gone', detail: `endSequenceNumber ${endSequenceNumber} is no sequence number` };
    const records: DynamoDBRecord[] = [];
    let empty = 0;
    /** One iterator's reading, from the range's start or after the last record read: to the range's end, or until it expires. */
    const readFrom = async (after: string | undefined): Promise<StreamRange | Again<string | undefined>> => {
      let { ShardIterator: iterator } = await client.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(after === undefined
            ? { ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: positions.startSequenceNumber }
            : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
        }),
      );
      while (iterator !== undefined && empty < (options.maxEmptyReads ?? 5)) {
        let page;
        try {
          page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        } catch (error) {
          if (!(error instanceof Error) || error.name !== 'ExpiredIteratorException') throw error;
          return againFor(records.at(-1)?.dynamodb?.SequenceNumber);
        }
        const { Records = [], NextShardIterator } = page;
        empty = Records.length === 0 ? empty + 1 : 0;
        for (const record of Records) {
          const at = sequence(record.dynamodb?.SequenceNumber);
          if (at !== undefined && at > end) return { kind: 'records', records };
          records.push(lambdaRecord(record, streamArn));
          if (at === end) return { kind: 'records', records };
        }
        iterator = NextShardIterator;
      }
      return { kind: 'gone', detail: `the shard ended before ${endSequenceNumber} (${String(records.length)} records read)` };
    };
    try {
      return await retrying<StreamRange, string | undefined>(tries, readFrom);
    } catch (error) {
      if (error instanceof Error && GONE.has(error.name)) return { kind: 'gone', detail: `${error.name}: ${error.message}` };
      throw error;
    }
  };
}

/** The streams DynamoDB lists for a table: its current one, and those of the last 24 h still readable. */
export function tableStreamLister(client: DynamoDBStreamsClient): (tableName: string) => Promise<string[]> {
  return async (tableName) => {
    const arns: string[] = [];
    let from: string | undefined;
    do {
      const page = await client.send(new ListStreamsCommand({ TableName: tableName, ExclusiveStartStreamArn: from }));
      for (const stream of page.Streams ?? []) if (stream.StreamArn !== undefined) arns.push(stream.StreamArn);
      from = page.LastEvaluatedStreamArn;
    } while (from !== undefined);
    return arns;
  };
}

/** The streams client, made once per function as the table's is. */
export function createStreamsClient(config: DynamoDbConfig): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({
    region: config.region,
    maxAttempts: config.maxAttempts,
    requestHandler: { requestTimeout: config.requestTimeoutMs, connectionTimeout: config.connectTimeoutMs, throwOnRequestTimeout: true },
    ...localEndpoint(config.endpoint),
  });
}
