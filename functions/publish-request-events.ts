import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { publisherDependencies, type Publisher, type PublisherInvocation } from '../lib/dependencies/publisher';
import {
  isRepublishCommand,
  PublishFailedError,
  republishRequest,
  UNCONFIRMED_RECORDS_METRIC,
  type RepublishCommand,
  type RepublishResult,
} from '../lib/events/publish-request-events';
import { publishStreamRecords } from '../lib/events/publish-stream-records';
import { DUPLICATE_RECORDS_METRIC } from '../lib/events/record-copies';
import { isStreamRedriveCommand, type StreamRedriveResult } from '../lib/events/stream-redrive';
import { logger } from '../lib/observability/logger';
import { recordCount } from '../lib/observability/metrics';
import { withLambdaContext } from '../lib/observability/lambda-context';

/**
 * The requests table's and the erasure ledger's streams -> EventBridge (docs/events.md). Each
 * record is checked against the tables before its event goes out; a record they do not confirm
 * publishes nothing, is logged by ids and counted in UnconfirmedRecords, which raises an alarm. A
 * record that cannot be published after the records before it were is handed back
 * (ReportBatchItemFailures): the stream retries from it. When it is the batch's first record, the invocation fails instead: the
 * event source mapping then bisects the batch until that record stands alone, and only it reaches
 * the dead-letter queue (a partial failure at the first record would never shrink the batch).
 * A record handed twice in one batch publishes once; the copies are logged by ids and counted in
 * DuplicateRecords, which raises an alarm.
 */
async function publishBatch(event: DynamoDBStreamEvent, { config, deps }: ForInvocation): Promise<DynamoDBBatchResponse> {
  const result = await publishStreamRecords(event.Records, config, deps);
  for (const record of result.unconfirmed) logger.error('Stream record not confirmed by the tables: nothing published', { ...record });
  if (result.unconfirmed.length > 0) recordCount(UNCONFIRMED_RECORDS_METRIC, result.unconfirmed.length);
  if (result.copies.length > 0) {
    logger.error('Stream records handed more than once in one batch: each published once', { copies: result.copies });
    recordCount(DUPLICATE_RECORDS_METRIC, result.copies.length);
  }
  const summary = {
    records: event.Records.length,
    published: result.published,
    skipped: result.skipped,
    unconfirmed: result.unconfirmed.length,
    copies: result.copies.length,
    reads: result.reads,
    calls: result.calls,
  };
  if (result.failed === undefined) {
    logger.info('Events published', summary);
    return { batchItemFailures: [] };
  }
  logger.error('Events not published: records handed back to the stream', { ...summary, failed: result.failed });
  if (result.failed.sequenceNumber === event.Records[0]?.dynamodb?.SequenceNumber) throw new PublishFailedError(result.failed.reason);
  return { batchItemFailures: [{ itemIdentifier: result.failed.sequenceNumber }] };
}

/** npm run republish (docs/operations.md): a request's events again, rebuilt from its item. */
async function republish(command: RepublishCommand, { config, deps }: ForInvocation): Promise<RepublishResult> {
  const result = await republishRequest(command, config, deps);
  logger.info('Events republished from the requests table', { ...command.republish, ...result });
  return result;
}

/** npm run redrive -- --queue publisher (docs/operations.md): a batch the mapping gave up on, read again from its stream positions. */
async function redrive(command: { redrive: unknown }, within: ForInvocation): Promise<StreamRedriveResult> {
  const result = await within.redriveBatch(command, (event) => publishBatch(event, within));
  logger.info('Stream batch redriven', { ...result });
  return result;
}

/** One invocation's: the configuration, what it publishes with (its tries end with the invocation's time), the redrive. */
type ForInvocation = Pick<Publisher, 'config'> & PublisherInvocation;

/** Every trigger, behind the one entry-point wrapper. */
const handle = withLambdaContext(
  publisherDependencies,
  (
    event: DynamoDBStreamEvent | RepublishCommand | { redrive: unknown },
    publisher,
    invocation,
  ): Promise<DynamoDBBatchResponse | RepublishResult | StreamRedriveResult> => {
    const within = { config: publisher.config, ...publisher.forInvocation(invocation) };
    if (isRepublishCommand(event)) return republish(event, within);
    if (isStreamRedriveCommand(event)) return redrive(event, within);
    if (!Array.isArray(event.Records)) return Promise.reject(new Error('Neither a stream batch, a republish command nor a redrive'));
    return publishBatch(event, within);
  },
);

export function handler(event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse>;
export function handler(event: RepublishCommand, context?: Context): Promise<RepublishResult>;
export function handler(event: { redrive: unknown }, context?: Context): Promise<StreamRedriveResult>;
export function handler(
  event: DynamoDBStreamEvent | RepublishCommand | { redrive: unknown },
  context?: Context,
): Promise<DynamoDBBatchResponse | RepublishResult | StreamRedriveResult> {
  return handle(event, context);
}
