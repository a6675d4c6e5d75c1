import type { DynamoDBStreamEvent } from 'aws-lambda';

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
