import { randomUUID } from 'node:crypto';
import type { AttributeValue as StreamAttributeValue, _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';

/*
 * What Lambda's event source mapping of a DynamoDB stream hands a function and reads back, as AWS
 * documents it: the records (a stream record as the function receives it), the partial batch
 * response, and the invocation record it sends its on-failure destination when it gives up on a
 * batch, which names the batch's stream positions (shard, first and last sequence numbers), never
 * the records themselves. npm run redrive reads them in AWS and on a laptop; the local stream
 * poller (scripts/local/stream-poller.ts) writes the same documents where AWS would.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
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
