import type { BatchGetCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import streamRequestCreated from '../../events/stream-request-created.json' with { type: 'json' };
import streamStatusChanged from '../../events/stream-status-changed.json' with { type: 'json' };
import type { Item } from '../../lib/dynamodb/items';
import { requestKeyOf } from '../../lib/dynamodb/keys';
import { MAX_KEYS_PER_READ, requestReader, type BatchGet, type ReadRequests, type StoredRequests } from '../../lib/dynamodb/request-reads';
import { publishRequestEvents } from '../../lib/events/publish-request-events';
import { imageValues } from '../../lib/events/stream-image';
import { streamEvent } from '../../scripts/local/stream-events';
import { timeRunsOutAt } from '../support/tries';
import { recordingPublisher } from '../support/publisher-fakes';

/*
 * The publisher's one read per batch, with the faults DynamoDB Local never shows: keys left
 * unprocessed (throttling, an answer over 16 MB), and a read that fails. The confirmation itself,
 * against DynamoDB Local, is tests/integration/publisher-confirms.test.ts.
 */

const TABLE = 'requests';
const ids = (n: number) => ({ contractId: `c${n}`, requestId: `r${n}` });
const itemOf = (n: number): Item => ({ ...requestKeyOf(`c${n}`, `r${n}`), kind: 'REQUEST', n });

/** DynamoDB as a script: each call's keys are recorded; `unprocessed` says which keys of a call it leaves, by call number. */
function fakeTable(present: number[], unprocessed: (call: number, keys: Item[]) => Item[] = () => []) {
  const calls: BatchGetCommandInput[] = [];
  const stored = new Map(present.map((n) => [JSON.stringify(requestKeyOf(`c${n}`, `r${n}`)), itemOf(n)]));
  const batchGet: BatchGet = (input) => {
    calls.push(input);
    const keys = input.RequestItems?.[TABLE]?.Keys ?? [];
    const left = unprocessed(calls.length, keys);
    const done = keys.filter((key) => !left.includes(key));
    const found = done.map((key) => stored.get(JSON.stringify({ pk: key['pk'], sk: key['sk'] }))).filter((item) => item !== undefined);
    return Promise.resolve({ Responses: { [TABLE]: found }, ...(left.length > 0 ? { UnprocessedKeys: { [TABLE]: { Keys: left } } } : {}) });
  };
  return { batchGet, calls };
}

const pauses: number[] = [];
const retry = { maxAttempts: 3, pause: (attempt: number) => Promise.resolve(void pauses.push(attempt)) };

describe('requestReader: one consistent BatchGetItem per batch', () => {
  it('reads each request once, consistently, in one call, and tells a missing one from a found one', async () => {
    const table = fakeTable([1, 2]);
    const read = await requestReader(table.batchGet, TABLE, retry)([ids(1), ids(2), ids(1), ids(3)]);
    expect(read.calls).toBe(1);
    expect(table.calls).toEqual([
      { RequestItems: { [TABLE]: { Keys: [1, 2, 3].map((n) => requestKeyOf(`c${n}`, `r${n}`)), ConsistentRead: true } } },
    ]);
    expect([read.itemOf(ids(1)), read.itemOf(ids(2)), read.itemOf(ids(3))]).toEqual([itemOf(1), itemOf(2), undefined]);
  });

  it('asks again, after a pause, for the keys DynamoDB left unprocessed, and finds them', async () => {
    pauses.length = 0;
    const table = fakeTable([1, 2, 3], (call, keys) => (call === 1 ? keys.slice(1) : []));
    const read = await requestReader(table.batchGet, TABLE, retry)([ids(1), ids(2), ids(3)]);
    expect(table.calls.map((call) => call.RequestItems?.[TABLE]?.Keys?.length)).toEqual([3, 2]);
    expect(pauses).toEqual([1]);
    expect([read.itemOf(ids(1)), read.itemOf(ids(2)), read.itemOf(ids(3))]).toEqual([itemOf(1), itemOf(2), itemOf(3)]);
    expect(read.calls).toBe(2);
  });

  it('reports a key still unprocessed after every attempt as unread, never as missing', async () => {
    const table = fakeTable([1, 2], (_, keys) => keys.filter((key) => key['sk'] === 'REQUEST#r2'));
    const read = await requestReader(table.batchGet, TABLE, retry)([ids(1), ids(2)]);
    expect(read.calls).toBe(retry.maxAttempts);
    expect([read.itemOf(ids(1)), read.itemOf(ids(2))]).toEqual([itemOf(1), 'unread']);
  });

  it("reports a key still unprocessed when the invocation's time ends a pause as unread, with tries to spare", async () => {
    const table = fakeTable([1, 2], (_, keys) => keys.filter((key) => key['sk'] === 'REQUEST#r2'));
    const time = timeRunsOutAt(1);
    const read = await requestReader(table.batchGet, TABLE, { maxAttempts: 10, ...time })([ids(1), ids(2)]);
    expect(read.calls).toBe(1);
    expect(time.pauses).toEqual([1]);
    expect([read.itemOf(ids(1)), read.itemOf(ids(2))]).toEqual([itemOf(1), 'unread']);
  });

  it(`takes ${MAX_KEYS_PER_READ} keys a call, BatchGetItem's limit (the stream mapping's batches are no larger)`, async () => {
    const table = fakeTable([]);
    const read = await requestReader(table.batchGet, TABLE, retry)(Array.from({ length: MAX_KEYS_PER_READ + 1 }, (_, n) => ids(n)));
    expect(table.calls.map((call) => call.RequestItems?.[TABLE]?.Keys?.length)).toEqual([MAX_KEYS_PER_READ, 1]);
    expect(read.calls).toBe(2);
  });
});

describe('publishRequestEvents when the read does not answer for a request', () => {
  const records = [...streamEvent(streamRequestCreated).Records, ...streamEvent(streamStatusChanged).Records];
  const claims = records.filter(
    (record) => imageValues(record.dynamodb?.NewImage ?? {})['kind'] === 'REQUEST' && record.eventName !== 'REMOVE',
  );

  /** The sample request, as its item stands after both decisions. */
  const rejected = imageValues(streamEvent(streamStatusChanged).Records[1]?.dynamodb?.NewImage ?? {});

  const deps = (readRequests: ReadRequests) =>
    recordingPublisher({ readRequests, readLedger: () => Promise.reject(new Error('no ledger read expected')) });
  const config = { eventBusName: 'bus', eventSource: 'bank.contract-termination' };
  const seq = (record: DynamoDBRecord | undefined) => record?.dynamodb?.SequenceNumber;

  it('hands back the first record whose request was left unread, and everything after it; those before go out', async () => {
    let reads = 0;
    const { publisher, sent } = deps(() => {
      reads++;
      let answered = 0;
      const stored: StoredRequests = { calls: 1, itemOf: () => (answered++ === 0 ? rejected : 'unread') };
      return Promise.resolve(stored);
    });
    const result = await publishRequestEvents(records, config, publisher);
    expect(reads).toBe(1);
    expect(sent.map((entry) => entry.DetailType)).toEqual(['TerminationRequestSubmitted']);
    expect(result.failed).toEqual({ sequenceNumber: seq(claims[1]), reason: expect.stringContaining('left request') });
    expect(result.unconfirmed).toEqual([]);
  });

  it('hands back from the first record that claims an event when the read fails: nothing is published unconfirmed', async () => {
    const { publisher, sent } = deps(() => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })));
    const result = await publishRequestEvents(records, config, publisher);
    expect(sent).toEqual([]);
    expect(result.failed).toEqual({
      sequenceNumber: seq(claims[0]),
      reason: 'the requests table could not be read: ThrottlingException: Rate exceeded',
    });
  });

  it('reads nothing for a batch in which no record claims an event', async () => {
    let reads = 0;
    const { publisher } = deps(() => {
      reads++;
      return Promise.resolve({ calls: 1, itemOf: () => undefined });
    });
    const others = records.filter((record) => !claims.includes(record));
    const result = await publishRequestEvents(others, config, publisher);
    expect([reads, result.reads, result.skipped, result.published]).toEqual([0, 0, others.length, 0]);
  });
});
