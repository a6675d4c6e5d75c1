import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import streamErasureRecorded from '../../events/stream-erasure-recorded.json' with { type: 'json' };
import type { Item } from '../../lib/dynamodb/items';
import type { ReadLedger } from '../../lib/dynamodb/erasure-ledger';
import { publishStreamRecords } from '../../lib/events/publish-stream-records';
import { imageValues } from '../../lib/events/stream-image';
import { streamEvent } from '../../scripts/local/stream-events';
import { recordingPublisher } from '../support/publisher-fakes';

/*
 * The ledger's reads with the faults DynamoDB Local never shows: an entry that cannot be read
 * goes back to the stream with every record after it, never skipped, and never published
 * unconfirmed. The confirmation itself, against DynamoDB Local: tests/integration/erasure-events.test.ts.
 */

const [erasure, limitErasure] = streamEvent(streamErasureRecorded).Records;
if (erasure === undefined || limitErasure === undefined) throw new Error('The ledger sample has two records');
const entry: Item = imageValues(erasure.dynamodb?.NewImage ?? {});

/** The same entry under another sequence number and key: a second erasure in the batch. */
function another(record: DynamoDBRecord, n: number): DynamoDBRecord {
  const copy = structuredClone(record);
  if (copy.dynamodb === undefined) throw new Error('No dynamodb part');
  copy.eventID = `e-${String(n)}`;
  copy.dynamodb.SequenceNumber = `${String(copy.dynamodb.SequenceNumber)}${String(n)}`;
  return copy;
}

const deps = (readLedger: ReadLedger) =>
  // The request is gone: no item.
  recordingPublisher({ readRequests: () => Promise.resolve({ calls: 1, itemOf: () => undefined }), readLedger });

const config = { eventBusName: 'bus', eventSource: 'bank.contract-termination' };

describe('the erasure ledger, read back by the publisher', () => {
  it('publishes an entry the ledger holds, and skips the limit record’s entry, which names no request', async () => {
    const { publisher, sent } = deps((key) => Promise.resolve(key.sk === entry['sk'] ? entry : undefined));
    const result = await publishStreamRecords([erasure, limitErasure], config, publisher);
    expect(result).toMatchObject({ published: 1, skipped: 1, unconfirmed: [], reads: 2 });
    expect(result.failed).toBeUndefined();
    expect(sent.map((e) => e.DetailType)).toEqual(['TerminationRequestErased']);
  });

  it('hands back the first entry it could not read, and everything after it: the ones before go out', async () => {
    const second = another(erasure, 2);
    const third = another(erasure, 3);
    let reads = 0;
    const { publisher, sent } = deps(() => (++reads === 2 ? Promise.reject(new Error('throttled')) : Promise.resolve(entry)));
    const result = await publishStreamRecords([erasure, second, third], config, publisher);
    expect(result.failed).toEqual({
      sequenceNumber: second.dynamodb?.SequenceNumber,
      reason: 'the erasure ledger could not be read: Error: throttled',
    });
    // The first once; the third waits for the stream's retry from the second.
    expect(sent).toHaveLength(1);
  });

  it('an unreadable record later in the batch never hides an entry that could not be read before it', async () => {
    const second = another(erasure, 2);
    const garbage = another(erasure, 3);
    if (garbage.dynamodb?.NewImage !== undefined) garbage.dynamodb.NewImage['kind'] = { S: 'SOMETHING' };
    const { publisher, sent } = deps(() => Promise.reject(new Error('unreachable')));
    const result = await publishStreamRecords([second, garbage], config, publisher);
    expect(result.failed?.sequenceNumber).toBe(second.dynamodb?.SequenceNumber);
    expect(sent).toEqual([]);
  });
});
