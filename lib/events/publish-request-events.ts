import type { DynamoDBRecord } from 'aws-lambda';
import { backoff } from '../backoff';
import type { PublisherConfig } from '../config';
import { isTransientAwsError } from '../aws/transient-errors';
import { publishInOrder, type PendingEntry, type PublishDeps, type PublishResult } from './publish-batches';
import { eventOfRecord, MalformedRecordError } from './request-events';
import { UnreadableImageError } from './stream-image';

/*
 * The stream's records out as events (docs/decisions/0017-lifecycle.md): each record that means an event becomes one
 * PutEvents entry on the configured bus, in stream order. An event exists if and only if its
 * write committed, because the stream only carries committed writes.
 */

/** The batch's first record could not be published: the stream must bisect the batch. */
export class PublishFailedError extends Error {
  constructor(reason: string) {
    super(`The batch's first record could not be published: ${reason}`);
    this.name = 'PublishFailedError';
  }
}

export interface StreamPublishResult extends PublishResult {
  /** Records that mean no event (slots, keys, numbers, removals). */
  skipped: number;
}

export function publisherDeps(config: PublisherConfig, putEvents: PublishDeps['putEvents']): PublishDeps {
  return {
    putEvents,
    maxAttempts: config.maxAttempts,
    pause: (attempt) => backoff(attempt, 100),
    isTransient: isTransientAwsError,
  };
}

export async function publishRequestEvents(
  records: DynamoDBRecord[],
  config: Pick<PublisherConfig, 'eventBusName' | 'eventSource'>,
  deps: PublishDeps,
): Promise<StreamPublishResult> {
  const pending: PendingEntry[] = [];
  let skipped = 0;
  let malformed: { sequenceNumber: string; reason: string } | undefined;
  for (const record of records) {
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    let event;
    try {
      event = eventOfRecord(record);
    } catch (error) {
      if (!(error instanceof MalformedRecordError) && !(error instanceof UnreadableImageError)) throw error;
      // Everything before it is published; it and what follows go back to the stream.
      malformed = { sequenceNumber, reason: error.message };
      break;
    }
    if (event === undefined) {
      skipped++;
      continue;
    }
    pending.push({
      sequenceNumber,
      entry: {
        EventBusName: config.eventBusName,
        Source: config.eventSource,
        DetailType: event.detailType,
        Detail: JSON.stringify(event.detail),
        Time: new Date(event.time),
      },
    });
  }
  const result = await publishInOrder(pending, deps);
  return { ...result, skipped, ...(result.failed === undefined && malformed ? { failed: malformed } : {}) };
}
