import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { loadPublisherConfig } from '../lib/config';
import { putEventsFor } from '../lib/aws/eventbridge-client';
import { PublishFailedError, publisherDeps, publishRequestEvents } from '../lib/events/publish-request-events';
import { logger } from '../lib/observability/logger';
import { withLambdaContext } from '../lib/observability/lambda-context';

const config = loadPublisherConfig();
const deps = publisherDeps(config, putEventsFor(config));

/**
 * The requests table's stream -> EventBridge (docs/events.md). A record that cannot be published
 * after the records before it were is handed back (ReportBatchItemFailures): the stream retries
 * from it. When it is the batch's first record, the invocation fails instead: the event source
 * mapping then bisects the batch until that record stands alone, and only it reaches the
 * dead-letter queue (a partial failure at the first record would never shrink the batch).
 */
export const handler = withLambdaContext(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const result = await publishRequestEvents(event.Records, config, deps);
  const summary = { records: event.Records.length, published: result.published, skipped: result.skipped, calls: result.calls };
  if (result.failed === undefined) {
    logger.info('Events published', summary);
    return { batchItemFailures: [] };
  }
  logger.error('Events not published: records handed back to the stream', { ...summary, failed: result.failed });
  if (result.failed.sequenceNumber === event.Records[0]?.dynamodb?.SequenceNumber) throw new PublishFailedError(result.failed.reason);
  return { batchItemFailures: [{ itemIdentifier: result.failed.sequenceNumber }] };
});
