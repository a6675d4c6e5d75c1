import { randomUUID } from 'node:crypto';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';

/*
 * What Lambda's event source mapping of a DynamoDB stream reads back from a function and what it
 * sends when it gives up, as AWS documents it (the records it hands a function are
 * lib/aws/dynamodb-streams.ts's): the partial batch response, and the invocation record it sends
 * its on-failure destination when it gives up on a batch, which names the batch's stream
 * positions (shard, first and last sequence numbers), never the records themselves. npm run
 * redrive reads them in AWS and on a laptop; the local stream poller
 * (scripts/local/stream-poller.ts) writes the same documents where AWS would.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
 */

/** A function's answer read as a partial batch response: which record to start again from. */
export function asBatchResponse(payload: unknown): DynamoDBBatchResponse | undefined {
  if (payload === null || typeof payload !== 'object' || !('batchItemFailures' in payload) || !Array.isArray(payload.batchItemFailures))
    return undefined;
  const failures: unknown[] = payload.batchItemFailures;
  return {
    batchItemFailures: failures.flatMap((failure) =>
      failure !== null && typeof failure === 'object' && 'itemIdentifier' in failure && typeof failure.itemIdentifier === 'string'
        ? [{ itemIdentifier: failure.itemIdentifier }]
        : [],
    ),
  };
}

export interface StreamBatchInfo {
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  approximateArrivalOfFirstRecord: string;
  approximateArrivalOfLastRecord: string;
  batchSize: number;
  streamArn: string;
}

export interface StreamFailureRecord {
  requestContext: {
    requestId: string;
    functionArn: string;
    /** RetryAttemptsExhausted, or a record-age condition when MaximumRecordAgeInSeconds ran out first. */
    condition: string;
    approximateInvokeCount: number;
  };
  responseContext: { statusCode: number; executedVersion: string; functionError: string };
  version: '1.0';
  timestamp: string;
  DDBStreamBatchInfo: StreamBatchInfo;
}

/** The local stack's publisher, as an ARN (the function serverless offline serves). */
export const LOCAL_PUBLISHER_ARN = 'arn:aws:lambda:eu-central-1:000000000000:function:contract-termination-local-publishRequestEvents';

/** A time as Lambda writes them in the record: seconds, UTC. */
const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function arrival(record: DynamoDBRecord | undefined, fallback: Date): string {
  const seconds = record?.dynamodb?.ApproximateCreationDateTime;
  return isoSeconds(seconds === undefined ? fallback : new Date(seconds * 1000));
}

/** The record Lambda sends for a batch of one shard it gave up on after `invokeCount` invocations. */
export function streamFailureRecord(options: {
  records: DynamoDBRecord[];
  shardId: string;
  streamArn: string;
  invokeCount: number;
  /** The last invocation threw (Unhandled) rather than handing records back. */
  functionError: boolean;
  functionArn?: string;
  now?: Date;
}): StreamFailureRecord {
  const now = options.now ?? new Date();
  const first = options.records[0];
  const last = options.records.at(-1);
  return {
    requestContext: {
      requestId: randomUUID(),
      functionArn: options.functionArn ?? LOCAL_PUBLISHER_ARN,
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: options.invokeCount,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: options.functionError ? 'Unhandled' : '' },
    version: '1.0',
    timestamp: now.toISOString(),
    DDBStreamBatchInfo: {
      shardId: options.shardId,
      startSequenceNumber: first?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: last?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival(first, now),
      approximateArrivalOfLastRecord: arrival(last, now),
      batchSize: options.records.length,
      streamArn: options.streamArn,
    },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The batch a message of the publisher's dead-letter queue names; undefined when it is not such a record. */
export function streamBatchInfoOf(body: unknown): StreamBatchInfo | undefined {
  const info = isObject(body) ? body['DDBStreamBatchInfo'] : undefined;
  if (!isObject(info)) return undefined;
  const {
    shardId,
    startSequenceNumber,
    endSequenceNumber,
    approximateArrivalOfFirstRecord,
    approximateArrivalOfLastRecord,
    batchSize,
    streamArn,
  } = info;
  if (
    typeof shardId !== 'string' ||
    typeof startSequenceNumber !== 'string' ||
    typeof endSequenceNumber !== 'string' ||
    typeof streamArn !== 'string' ||
    startSequenceNumber === '' ||
    endSequenceNumber === ''
  )
    return undefined;
  return {
    shardId,
    startSequenceNumber,
    endSequenceNumber,
    approximateArrivalOfFirstRecord: typeof approximateArrivalOfFirstRecord === 'string' ? approximateArrivalOfFirstRecord : '',
    approximateArrivalOfLastRecord: typeof approximateArrivalOfLastRecord === 'string' ? approximateArrivalOfLastRecord : '',
    batchSize: typeof batchSize === 'number' ? batchSize : 0,
    streamArn,
  };
}
