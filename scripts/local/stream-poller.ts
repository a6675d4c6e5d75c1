import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { matchesPattern } from './event-pattern';
import { lambdaRecord } from '../../lib/aws/dynamodb-streams';
import { streamFailureRecord, type StreamFailureRecord } from '../operations/stream-mapping';
import { localEndpoint } from '../../lib/aws/local-endpoint';

/*
 * What Lambda's event source mapping does for the requests table's stream, on a laptop: reads
 * every shard of DynamoDB Local's stream, hands records in order to the publisher as Lambda
 * would (a DynamoDBStreamEvent), retries from a record it hands back, and after `maxRetries`
 * gives that record to `onDeadLetter` and moves on, as the mapping's on-failure destination; with
 * `onFailureDestination` it also sends the queue there what Lambda sends (the batch's stream
 * positions: scripts/operations/stream-mapping.ts), for npm run redrive to read back.
 */

export interface StreamPollerOptions {
  client: DynamoDBClient;
  endpoint: string;
  tableName: string;
  deliver: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  onDeadLetter?: (records: DynamoDBRecord[], reason: string, failure: StreamFailureRecord) => void;
  /** An SQS queue (the stand-in's) that gets Lambda's invocation record of each batch given up on. */
  onFailureDestination?: { queueUrl: string; functionArn?: string };
  onError?: (error: unknown) => void;
  maxRetries?: number;
  batchSize?: number;
  intervalMs?: number;
  /** TRIM_HORIZON: every record the stream still has; LATEST: only what comes after the start. */
  startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /** The mapping's FilterCriteria patterns (scripts/local/template-patterns.ts); none: every record. */
  filters?: unknown[];
}

export interface StreamPoller {
  /** Resolves once every record written before the call has been delivered (or dead-lettered). */
  drain: () => Promise<void>;
  stop: () => Promise<void>;
}

export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const streams = new DynamoDBStreamsClient({
    region: 'eu-central-1',
    ...localEndpoint(options.endpoint),
  });
  const { Table } = await options.client.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream`);
  const maxRetries = options.maxRetries ?? 3;
  const destination = options.onFailureDestination;
  const sqs =
    destination && new SQSClient({ region: 'eu-central-1', maxAttempts: 3, ...localEndpoint(new URL(destination.queueUrl).origin) });
  const intervalMs = options.intervalMs ?? 250;
  const iterators = new Map<string, string | undefined>();
  /** The last record delivered per shard: where a lost iterator starts again. */
  const lastDelivered = new Map<string, string>();
  let stopped = false;
  let idleRounds = 0;
  const waiters: (() => void)[] = [];

  async function openShard(shardId: string, position: 'TRIM_HORIZON' | 'LATEST'): Promise<void> {
    const after = lastDelivered.get(shardId);
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after === undefined ? { ShardIteratorType: position } : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
      }),
    );
    iterators.set(shardId, ShardIterator);
  }

  async function openNewShards(position: 'TRIM_HORIZON' | 'LATEST'): Promise<void> {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (shard.ShardId && !iterators.has(shard.ShardId)) await openShard(shard.ShardId, position);
    }
  }

  async function readShard(shardId: string, iterator: string) {
    try {
      return await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: options.batchSize ?? 100 }));
    } catch (error) {
      // DynamoDB Local lets an iterator lapse now and then: take a new one after the last record delivered.
      if (!(error instanceof Error) || !['TrimmedDataAccessException', 'ExpiredIteratorException'].includes(error.name)) throw error;
      await openShard(shardId, 'TRIM_HORIZON');
      return { Records: [], NextShardIterator: iterators.get(shardId) };
    }
  }

  /**
   * As the mapping does with ReportBatchItemFailures and BisectBatchOnFunctionError: a record
   * handed back is retried from, with the records after it; a failed invocation splits its batch
   * in halves (a one-record batch is retried); past maxRetries the batch goes to onDeadLetter, as
   * to the mapping's on-failure destination, and the stream moves on.
   */
  async function deliverInOrder(records: DynamoDBRecord[], shardId: string): Promise<void> {
    const batches: { records: DynamoDBRecord[]; retries: number }[] = [{ records, retries: 0 }];
    for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) {
      let failedFrom: string | undefined;
      let reason: string;
      let thrown = false;
      try {
        const response = await options.deliver({ Records: batch.records });
        failedFrom = response?.batchItemFailures[0]?.itemIdentifier;
        reason = 'handed back by the function';
        if (failedFrom === undefined) continue;
        const from = batch.records.findIndex((r) => r.dynamodb?.SequenceNumber === failedFrom);
        batch = { records: batch.records.slice(Math.max(0, from)), retries: batch.retries + 1 };
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
        thrown = true;
        if (batch.records.length > 1) {
          const middle = Math.ceil(batch.records.length / 2);
          const retries = batch.retries + 1;
          batches.unshift({ records: batch.records.slice(0, middle), retries }, { records: batch.records.slice(middle), retries });
          continue;
        }
        batch = { ...batch, retries: batch.retries + 1 };
      }
      if (batch.retries <= maxRetries) batches.unshift(batch);
      else await giveUp(batch.records, batch.retries, reason, thrown, shardId);
    }
  }

  /** As the mapping's on-failure destination: the batch's positions, not its records, and the stream moves on. */
  async function giveUp(records: DynamoDBRecord[], invokeCount: number, reason: string, thrown: boolean, shardId: string): Promise<void> {
    const failure = streamFailureRecord({
      records,
      shardId,
      streamArn: streamArn ?? '',
      invokeCount,
      functionError: thrown,
      ...(destination?.functionArn === undefined ? {} : { functionArn: destination.functionArn }),
    });
    options.onDeadLetter?.(records, reason, failure);
    if (destination === undefined || sqs === undefined) return;
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: destination.queueUrl, MessageBody: JSON.stringify(failure) }));
    } catch (error) {
      options.onError?.(error);
    }
  }

  async function pollOnce(): Promise<number> {
    await openNewShards('TRIM_HORIZON');
    let delivered = 0;
    for (const [shardId, iterator] of iterators) {
      if (iterator === undefined) continue;
      const { Records = [], NextShardIterator } = await readShard(shardId, iterator);
      iterators.set(shardId, NextShardIterator);
      if (Records.length === 0) continue;
      delivered += Records.length;
      // Records no filter matches are dropped, as the mapping's FilterCriteria drop them.
      const passing = Records.map((record) => lambdaRecord(record, streamArn ?? '')).filter(
        (record) => options.filters === undefined || options.filters.some((pattern) => matchesPattern(pattern, record)),
      );
      if (passing.length > 0) await deliverInOrder(passing, shardId);
      const last = Records.at(-1)?.dynamodb?.SequenceNumber;
      if (last !== undefined) lastDelivered.set(shardId, last);
    }
    return delivered;
  }

  await openNewShards(options.startingPosition ?? 'TRIM_HORIZON');
  const loop = (async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it, in another turn
    while (!stopped) {
      let delivered = 0;
      try {
        delivered = await pollOnce();
      } catch (error) {
        options.onError?.(error);
      }
      idleRounds = delivered === 0 ? idleRounds + 1 : 0;
      // Two empty rounds in a row: everything written before has been read.
      if (idleRounds >= 2) waiters.splice(0).forEach((resolve) => resolve());
      await sleep(delivered === 0 ? intervalMs : 0);
    }
  })();

  return {
    drain: () =>
      new Promise<void>((resolve) => {
        idleRounds = 0;
        waiters.push(resolve);
      }),
    stop: async () => {
      stopped = true;
      await loop;
      streams.destroy();
      sqs?.destroy();
      waiters.splice(0).forEach((resolve) => resolve());
    },
  };
}
