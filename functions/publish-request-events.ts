import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { loadPublisherConfig } from '../lib/config/config';
import { publisherDeps, publishRequestEvents, putEventsFor } from '../lib/events/publish-request-events';
import { logger } from '../lib/logging/logger';

const config = loadPublisherConfig();
const deps = publisherDeps(config, putEventsFor(config));

/**
 * The requests table's stream -> EventBridge (docs/events.md). A record that cannot be published
 * is handed back (ReportBatchItemFailures): the stream retries from it, splits the batch, and
 * finally sends it to the dead-letter queue.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const result = await publishRequestEvents(event.Records, config, deps);
  const summary = { records: event.Records.length, published: result.published, skipped: result.skipped, calls: result.calls };
  if (result.failed === undefined) {
    logger.info('Events published', summary);
    return { batchItemFailures: [] };
  }
  logger.error('Events not published: records handed back to the stream', { ...summary, failed: result.failed });
  return { batchItemFailures: [{ itemIdentifier: result.failed.sequenceNumber }] };
};
