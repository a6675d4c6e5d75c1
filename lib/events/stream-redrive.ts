import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { validateStreamRedriveCommand } from '../api-model/validator';
import type { ReadStreamRange } from '../aws/dynamodb-streams';
import type { Tries } from '../retry';

/*
 * npm run redrive -- --queue publisher (docs/operations.md, Redrive): on-call hands the publisher
 * the stream positions of a batch the stream mapping gave up on, as the mapping's on-failure
 * record names them, and the publisher reads those records itself, with its own role, and
 * publishes them as the mapping would have handed them: each confirmed against the table as
 * always. On-call never reads the stream, whose records hold whole items. A command that is not
 * exactly such positions, or names a stream that is not one the publisher consumes, is refused
 * and nothing is read or published.
 */

/** A stream batch handed again: its records read, and the record the publisher handed back, if any. */
export type StreamRedriveResult =
  | { outcome: 'redriven'; records: number; handedBack: string | undefined }
  /** The stream no longer holds the range (kept 24 h), or the shard ended before it. */
  | { outcome: 'gone'; detail: string };

export class StreamRedriveRefusedError extends Error {
  constructor(reason: string) {
    super(`Redrive refused, nothing read or published: ${reason}`);
    this.name = 'StreamRedriveRefusedError';
  }
}

export interface StreamRedriveDeps {
  /** The tables whose streams the publisher consumes: a redrive names one of their streams. */
  tables: readonly string[];
  /** The streams DynamoDB lists for a table. */
  listStreams: (tableName: string) => Promise<string[]>;
  readRange: ReadStreamRange;
  /** The invocation's tries (the publisher's): what has an iterator that expired had again. */
  tries: Tries;
  /** What the stream mapping invokes with a batch: the publisher's own handling of it. */
  publish: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
}

/** An invocation that asks for a redrive, valid or not: it is never a stream batch. */
export function isStreamRedriveCommand(value: unknown): value is { redrive: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'redrive' in value;
}

export async function redriveStreamBatch(command: unknown, deps: StreamRedriveDeps): Promise<StreamRedriveResult> {
  const valid = validateStreamRedriveCommand(command);
  if (!valid.ok) throw new StreamRedriveRefusedError(`not a batch's stream positions (${valid.problems.join('; ')})`);
  const positions = valid.command.redrive;
  if (BigInt(positions.startSequenceNumber) > BigInt(positions.endSequenceNumber))
    throw new StreamRedriveRefusedError('startSequenceNumber is after endSequenceNumber');
  const consumed = (await Promise.all(deps.tables.map((table) => deps.listStreams(table)))).flat();
  if (!consumed.includes(positions.streamArn))
    throw new StreamRedriveRefusedError(`${positions.streamArn} is not a stream the publisher consumes (${deps.tables.join(', ')})`);
  const range = await deps.readRange(positions, deps.tries);
  if (range.kind === 'gone') return { outcome: 'gone', detail: range.detail };
  if (range.records.length === 0) return { outcome: 'redriven', records: 0, handedBack: undefined };
  const answer = await deps.publish({ Records: range.records });
  return { outcome: 'redriven', records: range.records.length, handedBack: answer.batchItemFailures[0]?.itemIdentifier };
}
