import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { localEndpoint } from '../../lib/aws/local-endpoint';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A sample stream event of events/ checked as one: JSON imports type `eventName` as any string,
 * so the literal types Lambda's event has are checked here, at run time, instead of cast.
 */
export function isStreamEvent(value: unknown): value is DynamoDBStreamEvent {
  if (!isObject(value) || !Array.isArray(value['Records'])) return false;
  const records: unknown[] = value['Records'];
  return records.every(
    (record) =>
      isObject(record) &&
      ['INSERT', 'MODIFY', 'REMOVE'].includes(String(record['eventName'])) &&
      record['eventSource'] === 'aws:dynamodb' &&
      isObject(record['dynamodb']) &&
      typeof record['dynamodb']['SequenceNumber'] === 'string' &&
      // The requests table's stream, or the erasure ledger's (new images only).
      ['NEW_AND_OLD_IMAGES', 'NEW_IMAGE'].includes(String(record['dynamodb']['StreamViewType'])),
  );
}

export function streamEvent(value: unknown): DynamoDBStreamEvent {
  if (!isStreamEvent(value)) throw new Error('Not a DynamoDB stream event of the requests table or the erasure ledger');
  return value;
}

/**
 * Where a contract's records are in a table's stream on DynamoDB Local: the positions a dead
 * letter of the publisher names (its first and last record, in the shard that holds them).
 */
export async function streamPositionsOf(
  endpoint: string,
  tableName: string,
  contractId: string,
): Promise<{ streamArn: string; shardId: string; startSequenceNumber: string; endSequenceNumber: string }> {
  const tables = new DynamoDBClient({ region: 'eu-central-1', ...localEndpoint(endpoint) });
  const streams = new DynamoDBStreamsClient({ region: 'eu-central-1', ...localEndpoint(endpoint) });
  try {
    const { Table } = await tables.send(new DescribeTableCommand({ TableName: tableName }));
    const streamArn = Table?.LatestStreamArn ?? '';
    const { Shards = [] } = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription ?? {};
    for (const shard of Shards) {
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      const { Records = [] } = await streams.send(new GetRecordsCommand({ ShardIterator, Limit: 1000 }));
      const mine = Records.filter((r) => r.dynamodb?.Keys?.['pk']?.S === `CONTRACT#${contractId}`);
      const first = mine[0]?.dynamodb?.SequenceNumber;
      const last = mine.at(-1)?.dynamodb?.SequenceNumber;
      if (first !== undefined && last !== undefined)
        return { streamArn, shardId: shard.ShardId ?? '', startSequenceNumber: first, endSequenceNumber: last };
    }
    throw new Error(`No record of contract ${contractId} in ${streamArn}`);
  } finally {
    tables.destroy();
    streams.destroy();
  }
}
