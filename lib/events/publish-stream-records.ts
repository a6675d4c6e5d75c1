import type { DynamoDBRecord } from 'aws-lambda';
import { isLedgerKey } from '../dynamodb/erasure-ledger';
import { publishErasureEvents } from './publish-erasure-events';
import { publishRequestEvents, type PublisherDeps, type StreamPublishResult } from './publish-request-events';
import type { EntryConfig } from './signed-entries';

/*
 * The publisher's streams (docs/decisions/0017-lifecycle.md): the requests table's, whose
 * records become Submitted and StatusChanged events (publish-request-events.ts), and the erasure
 * ledger's, whose records become Erased events (publish-erasure-events.ts). Whatever hands the
 * publisher records of any of them (a stream mapping, a redrive, a direct invoke), this takes
 * them in order, each to the module of its stream, and answers as one batch. A record is told
 * by its key, not by the stream ARN it claims: a sample or a redrive may name another stage's
 * stream, and each module trusts only its tables anyway, so a record sent to the wrong one
 * publishes nothing. Lambda's batches come from one stream; a batch handed by hand may mix them,
 * and its runs of one stream go in order, the first failure ending the batch as a stream's would.
 */

/** The streams the publisher reads, by the table they are of. */
export const PUBLISHER_STREAMS = {
  requests: publishRequestEvents,
  erasures: publishErasureEvents,
} as const;

export type PublisherStream = keyof typeof PUBLISHER_STREAMS;

/** Which of the publisher's streams a record is of. */
export const streamOf = (record: DynamoDBRecord): PublisherStream =>
  isLedgerKey({ pk: record.dynamodb?.Keys?.['pk']?.S }) ? 'erasures' : 'requests';

/** Consecutive records of one stream, in order. */
function runsOf(records: DynamoDBRecord[]): { stream: PublisherStream; records: DynamoDBRecord[] }[] {
  const runs: { stream: PublisherStream; records: DynamoDBRecord[] }[] = [];
  for (const record of records) {
    const stream = streamOf(record);
    const last = runs.at(-1);
    if (last?.stream === stream) last.records.push(record);
    else runs.push({ stream, records: [record] });
  }
  return runs;
}

export async function publishStreamRecords(
  records: DynamoDBRecord[],
  config: EntryConfig,
  deps: PublisherDeps,
): Promise<StreamPublishResult> {
  const total: StreamPublishResult = { published: 0, calls: 0, skipped: 0, unconfirmed: [], reads: 0, copies: [] };
  for (const run of runsOf(records)) {
    const result = await PUBLISHER_STREAMS[run.stream](run.records, config, deps);
    total.published += result.published;
    total.calls += result.calls;
    total.skipped += result.skipped;
    total.reads += result.reads;
    total.unconfirmed.push(...result.unconfirmed);
    total.copies.push(...result.copies);
    if (result.failed !== undefined) return { ...total, failed: result.failed };
  }
  return total;
}
