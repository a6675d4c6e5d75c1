import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storeFor } from '../../lib/dynamodb/termination-table';
import { eventIdOf } from '../../lib/events/request-events';
import { moveTo } from '../../lib/termination/lifecycle';
import { RESERVE_MS } from '../../lib/retry';
import type { TerminationStore } from '../../lib/termination/ports/store';
import type { Decision } from '../../lib/termination/ports/decision';
import type { StreamPoller } from '../../scripts/local/stream-poller';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf } from '../support/handler';
import { keepJsonLines } from '../support/json-lines';
import { lambdaContext } from '../support/lambda-context';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { publishFromStream, type PublisherHandler } from '../support/publisher-stream';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';
import { verifiedEvents } from '../support/signed-events';

/*
 * The publisher speaks for the service, so it publishes only what the requests table confirms,
 * whoever hands it the records: the stream, a redrive, or anyone allowed to invoke it. Genuine
 * records come from DynamoDB Local's stream (read as Lambda's mapping reads it, into the real
 * publisher); forged ones are those records changed by hand, as an insider with the runbook's
 * lambda:InvokeFunction would. What the table does not confirm publishes nothing, is logged by
 * ids only and is counted in UnconfirmedRecords, which the unconfirmed-records alarm watches.
 */

let stack: LifecycleStack;
let poller: StreamPoller;
let store: TerminationStore;
let uninstall: () => void;
let restoreOutput: () => void;
/** Every record the stream handed the publisher, in order. */
const streamed: DynamoDBRecord[] = [];
let handler: PublisherHandler;

beforeAll(async () => {
  restoreOutput = keepJsonLines(jsonLines);
  stack = await useLifecycleStack();
  ({ handler, poller } = await publishFromStream(stack, 'requests', streamed));
  store = storeFor({
    requestsTableName: stack.tables.names.requests,
    dynamodb: { region: 'eu-central-1', endpoint: stack.tables.endpoint, requestTimeoutMs: 2000, connectTimeoutMs: 1000, maxAttempts: 3 },
  });
  uninstall = installSdkRecorder();
});
afterAll(async () => {
  uninstall();
  await poller.stop();
  await stack.stop();
  restoreOutput();
});
beforeEach(async () => {
  await poller.drain();
  stack.standIn.clear();
});

/** The JSON lines (log lines, EMF metric lines) this process writes, kept out of the test output (the create handler counts its answers too). */
const jsonLines: Record<string, unknown>[] = [];

/** What `run` answered, and the JSON lines written while it ran. */
async function output<T>(run: () => Promise<T>): Promise<{ answer: T; lines: Record<string, unknown>[] }> {
  const mark = jsonLines.length;
  const answer = await run();
  return { answer, lines: jsonLines.slice(mark) };
}

/** The UnconfirmedRecords counted in EMF lines. */
const unconfirmedCount = (lines: Record<string, unknown>[]) =>
  lines.reduce((sum, line) => sum + (typeof line['UnconfirmedRecords'] === 'number' ? line['UnconfirmedRecords'] : 0), 0);

/** A request of a contract of its own, as the create handler makes it. */
async function created(): Promise<{ contractId: string; requestId: string }> {
  const contractId = await newContract(stack.tables);
  const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return { contractId, requestId: String(answer.body['requestId']) };
}

/** A back-office decision, applied by the service's own write (the consumer's path is tests/integration/lifecycle.test.ts). */
async function decided(request: { contractId: string; requestId: string }, status: Decision['status'], reason?: string): Promise<string> {
  const eventId = `bo-${randomUUID()}`;
  const decision: Decision = { ...request, eventId, status, reason, occurredAt: new Date().toISOString() };
  expect(await store.applyDecision(decision, moveTo(status), new Date().toISOString())).toEqual({ kind: 'applied' });
  return eventId;
}

/** The genuine records the stream carried for a request, once it has caught up. */
async function recordsOf(requestId: string): Promise<DynamoDBRecord[]> {
  await poller.drain();
  return streamed.filter((record) => record.dynamodb?.NewImage?.['requestId']?.S === requestId);
}

const byName = (record: DynamoDBRecord | undefined, eventName: string): DynamoDBRecord => {
  if (record?.eventName !== eventName) throw new Error(`Not the ${eventName} record the test expected`);
  return structuredClone(record);
};

/** A copy of the record with its new image changed. */
function forged(record: DynamoDBRecord, change: (image: Record<string, AttributeValue>) => void): DynamoDBRecord {
  const copy = structuredClone(record);
  const image = copy.dynamodb?.NewImage;
  if (image === undefined) throw new Error('The record has no new image');
  change(image);
  return copy;
}

const publish = (...records: DynamoDBRecord[]) => handler({ Records: records });

describe('a record the table does not confirm publishes nothing', () => {
  it('a hand-made INSERT for a request that does not exist: nothing on the bus, counted in UnconfirmedRecords, logged by ids only', async () => {
    const request = await created();
    const [insert] = await recordsOf(request.requestId);
    const requestId = randomUUID();
    const madeUp = forged(byName(insert, 'INSERT'), (image) => {
      image['requestId'] = { S: requestId };
      image['sk'] = { S: `REQUEST#${requestId}` };
    });
    stack.standIn.clear();
    const { answer, lines } = await output(() => publish(madeUp));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toEqual([]);
    expect(stack.standIn.putEventsCalls).toEqual([]);
    expect(unconfirmedCount(lines)).toBe(1);
    const logged = lines.filter((line) => line['message'] === 'Stream record not confirmed by the tables: nothing published');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        requestId,
        contractId: request.contractId,
        detailType: 'TerminationRequestSubmitted',
        status: 'SUBMITTED',
        why: 'no-such-request',
        fields: [],
        sequenceNumber: madeUp.dynamodb?.SequenceNumber,
      }),
    ]);
    // Ids only: no customer, account, recipient or comment.
    const text = JSON.stringify(logged);
    for (const personal of ['customer-anna', '40817810700000000001', 'Anna Ivanova', 'Moving abroad']) expect(text).not.toContain(personal);
  });

  const bankDetail = (name: string, value: string) => (image: Record<string, AttributeValue>) => {
    const details = image['bankDetails']?.M;
    if (details === undefined) throw new Error('The request item has no bankDetails');
    details[name] = { S: value };
  };

  it.each([
    ['another recipient', bankDetail('recipientName', 'Mallory')],
    ['another account', bankDetail('accountNumber', '40817810099910004312')],
  ])("a real request's INSERT with %s: nothing published, the field named (not its value)", async (_, change) => {
    const request = await created();
    const [insert] = await recordsOf(request.requestId);
    stack.standIn.clear();
    const { answer, lines } = await output(() => publish(forged(byName(insert, 'INSERT'), change)));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toEqual([]);
    expect(unconfirmedCount(lines)).toBe(1);
    expect(lines).toContainEqual(expect.objectContaining({ requestId: request.requestId, why: 'other-content', fields: ['bankDetails'] }));
    expect(JSON.stringify(lines)).not.toMatch(/Mallory|40817810099910004312/);
  });

  it('a StatusChanged for a transition the request never made: nothing published', async () => {
    const request = await created();
    await decided(request, 'IN_REVIEW');
    const [, toReview] = await recordsOf(request.requestId);
    const genuine = byName(toReview, 'MODIFY');
    // The request is IN_REVIEW: a record saying the back office rejected it, with words for the customer.
    const rejected = forged(genuine, (image) => {
      image['status'] = { S: 'REJECTED' };
      image['statusReason'] = { S: 'Refused' };
      image['statusHistory']?.L?.push({
        M: {
          status: { S: 'REJECTED' },
          eventId: { S: 'bo-forged' },
          occurredAt: { S: new Date().toISOString() },
          reason: { S: 'Refused' },
        },
      });
    });
    rejected.dynamodb = { ...rejected.dynamodb, OldImage: genuine.dynamodb?.NewImage };
    // And the real move to IN_REVIEW, told as if it came from APPROVED.
    const fromApproved = byName(toReview, 'MODIFY');
    const approvedBefore = structuredClone(genuine.dynamodb?.NewImage ?? {});
    approvedBefore['status'] = { S: 'APPROVED' };
    approvedBefore['statusHistory'] = {
      L: [{ M: { status: { S: 'APPROVED' }, eventId: { S: 'bo-forged' }, occurredAt: { S: '2026-11-23T10:00:00.000Z' } } }],
    };
    fromApproved.dynamodb = { ...fromApproved.dynamodb, OldImage: approvedBefore };
    stack.standIn.clear();
    const { answer, lines } = await output(() => publish(rejected, fromApproved));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toEqual([]);
    expect(unconfirmedCount(lines)).toBe(2);
    expect(lines.filter((line) => line['why'] === 'no-such-transition').map((line) => line['status'])).toEqual(['REJECTED', 'IN_REVIEW']);
  });

  it('publishes what the table confirms and only that, in one batch with forgeries', async () => {
    const request = await created();
    const [insert] = await recordsOf(request.requestId);
    const genuine = byName(insert, 'INSERT');
    stack.standIn.clear();
    const { answer, lines } = await output(() =>
      publish(
        forged(genuine, (image) => {
          image['comment'] = { S: 'Pay me instead' };
        }),
        genuine,
      ),
    );
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(verifiedEvents(stack.standIn).map((event) => event.detail)).toEqual([
      expect.objectContaining({ requestId: request.requestId, comment: 'Moving abroad' }),
    ]);
    expect(unconfirmedCount(lines)).toBe(1);
  });
});

describe('a genuine record handed again', () => {
  it('is published again with the same event, eventId included, after the request moved on to its end', async () => {
    const request = await created();
    const decisionId = await decided(request, 'IN_REVIEW', 'Documents are being checked');
    await poller.drain();
    const first = verifiedEvents(stack.standIn);
    expect(first.map((event) => event.detailType)).toEqual(['TerminationRequestSubmitted', 'TerminationRequestStatusChanged']);
    const [insert, toReview] = await recordsOf(request.requestId);
    await decided(request, 'APPROVED');
    await decided(request, 'COMPLETED');
    await poller.drain();
    stack.standIn.clear();

    // A redrive, a stream retry: the records as the stream carried them, long after.
    expect(await publish(byName(insert, 'INSERT'), byName(toReview, 'MODIFY'))).toEqual({ batchItemFailures: [] });
    // Signed again: a new signature over the same event.
    expect(verifiedEvents(stack.standIn)).toEqual(first);
    expect(verifiedEvents(stack.standIn).map((event) => event.detail)).toEqual([
      expect.objectContaining({ eventId: eventIdOf(request.requestId, 'SUBMITTED'), status: 'SUBMITTED' }),
      expect.objectContaining({
        eventId: eventIdOf(request.requestId, 'IN_REVIEW'),
        previousStatus: 'SUBMITTED',
        status: 'IN_REVIEW',
        reason: 'Documents are being checked',
        decisionEventId: decisionId,
      }),
    ]);
  });

  it("a customer's withdrawal, handed again after the fact: the same StatusChanged, changed by the customer", async () => {
    const request = await created();
    expect((await callHandler(withdrawalOf(request, 'customer-anna'))).status).toBe(200);
    await poller.drain();
    const first = verifiedEvents(stack.standIn).filter((event) => event.detailType === 'TerminationRequestStatusChanged');
    expect(first.map((event) => event.detail)).toEqual([expect.objectContaining({ status: 'WITHDRAWN', changedBy: 'CUSTOMER' })]);
    const withdrawn = (await recordsOf(request.requestId)).find((record) => record.eventName === 'MODIFY');
    stack.standIn.clear();
    await publish(byName(withdrawn, 'MODIFY'));
    // Signed again: a new signature over the same event.
    expect(verifiedEvents(stack.standIn)).toEqual(first);
  });
});

describe('a record repeated within one invocation', () => {
  it('50 copies of one genuine creation record publish one event; the 49 copies are counted in DuplicateRecords and logged by ids', async () => {
    const request = await created();
    const [insert] = await recordsOf(request.requestId);
    stack.standIn.clear();
    const copies = Array.from({ length: 50 }, () => byName(insert, 'INSERT'));
    const { answer, lines } = await output(() => publish(...copies));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events.map((event) => event.detail)).toEqual([
      expect.objectContaining({ eventId: eventIdOf(request.requestId, 'SUBMITTED') }),
    ]);
    const counted = lines.reduce((sum, line) => sum + (typeof line['DuplicateRecords'] === 'number' ? line['DuplicateRecords'] : 0), 0);
    expect(counted).toBe(49);
    const logged = lines.find((line) => line['message'] === 'Stream records handed more than once in one batch: each published once');
    const sequenceNumber = insert?.dynamodb?.SequenceNumber;
    expect(logged?.['copies']).toEqual(Array.from({ length: 49 }, () => ({ sequenceNumber, eventId: insert?.eventID })));
  });

  it('a record under another sequence number but the same event id is a copy too, and so is one with the same sequence number and another event id', async () => {
    const request = await created();
    const [insert] = await recordsOf(request.requestId);
    stack.standIn.clear();
    const sameEventId = byName(insert, 'INSERT');
    if (sameEventId.dynamodb === undefined) throw new Error('The record has no dynamodb part');
    sameEventId.dynamodb.SequenceNumber = `${sameEventId.dynamodb.SequenceNumber ?? ''}9`;
    const sameSequenceNumber = { ...byName(insert, 'INSERT'), eventID: randomUUID() };
    const { lines } = await output(() => publish(byName(insert, 'INSERT'), sameEventId, sameSequenceNumber));
    expect(stack.standIn.events).toHaveLength(1);
    expect(lines.reduce((sum, line) => sum + (typeof line['DuplicateRecords'] === 'number' ? line['DuplicateRecords'] : 0), 0)).toBe(2);
  });

  it("a forgery that borrows a genuine record's ids, handed first, publishes nothing and hides nothing: the genuine one after it is published", async () => {
    const request = await created();
    const [insert] = await recordsOf(request.requestId);
    stack.standIn.clear();
    const forgery = forged(byName(insert, 'INSERT'), (image) => {
      image['comment'] = { S: 'Pay someone else' };
    });
    const { lines } = await output(() => publish(forgery, byName(insert, 'INSERT')));
    expect(stack.standIn.events.map((event) => event.detail)).toEqual([
      expect.objectContaining({ eventId: eventIdOf(request.requestId, 'SUBMITTED') }),
    ]);
    expect(unconfirmedCount(lines)).toBe(1);
  });
});

describe("the publisher's DynamoDB calls per batch", () => {
  it('one BatchGetItem for a whole batch of records about many requests; none for a batch that claims no event', async () => {
    const requests = [await created(), await created(), await created()];
    for (const request of requests) await decided(request, 'IN_REVIEW');
    const records = (await Promise.all(requests.map((request) => recordsOf(request.requestId)))).flat();
    expect(records).toHaveLength(6);
    stack.standIn.clear();
    const { answer, calls } = await callsDuring('publish-request-events', () => publish(...records));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toHaveLength(6);
    expect(calls.filter((call) => call.operation.startsWith('dynamodb:')).map((call) => call.operation)).toEqual(['dynamodb:BatchGetItem']);
    // One key per request, however many of its records the batch holds.
    expect(calls.find((call) => call.operation === 'dynamodb:BatchGetItem')?.accesses).toHaveLength(3);

    // A change that keeps the status (a touched item) claims no event: nothing read, nothing sent.
    const [first] = records;
    const touched = byName(first, 'INSERT');
    touched.eventName = 'MODIFY';
    touched.dynamodb = { ...touched.dynamodb, OldImage: touched.dynamodb?.NewImage };
    const none = await callsDuring('publish-request-events', () => publish(touched));
    expect(none.answer).toEqual({ batchItemFailures: [] });
    expect(none.calls).toEqual([]);
  });
});

describe("the publisher's tries within the invocation's time", () => {
  const HANDED_BACK = 'Events not published: records handed back to the stream';
  /** EventBridge failing the second entry of a call, then the one entry of each call after it, as many times as the publisher tries (PUBLISH_MAX_ATTEMPTS=3). */
  const failingTheSecond = () =>
    stack.standIn.failNextPutEvents(
      { kind: 'entries', failing: [1] },
      { kind: 'entries', failing: [0] },
      { kind: 'entries', failing: [0] },
    );

  /** The creation records of two requests: the second one's entry is the one EventBridge fails. */
  async function twoCreations(): Promise<DynamoDBRecord[]> {
    const [first, second] = [await created(), await created()];
    const [firstInsert] = await recordsOf(first.requestId);
    const [secondInsert] = await recordsOf(second.requestId);
    stack.standIn.clear();
    return [byName(firstInsert, 'INSERT'), byName(secondInsert, 'INSERT')];
  }

  it('with time to spare, the entry EventBridge keeps failing is tried PUBLISH_MAX_ATTEMPTS times, then its record is handed back', async () => {
    const records = await twoCreations();
    failingTheSecond();
    const { answer, lines } = await output(() => handler({ Records: records }, lambdaContext('publish-request-events', 60_000)));
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]?.dynamodb?.SequenceNumber }] });
    expect(stack.standIn.putEventsCalls).toEqual([2, 1, 1]);
    expect(lines.find((line) => line['message'] === HANDED_BACK)?.['failed']).toEqual({
      sequenceNumber: records[1]?.dynamodb?.SequenceNumber,
      reason: 'InternalFailure: Injected by the stand-in',
    });
  });

  it('with only the reserve left, the publisher does not pause: the record is handed back after one call, the log line saying why', async () => {
    const records = await twoCreations();
    failingTheSecond();
    const { answer, lines } = await output(() => handler({ Records: records }, lambdaContext('publish-request-events', RESERVE_MS)));
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]?.dynamodb?.SequenceNumber }] });
    expect(stack.standIn.putEventsCalls).toEqual([2]);
    expect(verifiedEvents(stack.standIn).map((event) => event.detail)).toEqual([
      expect.objectContaining({ requestId: records[0]?.dynamodb?.NewImage?.['requestId']?.S }),
    ]);
    expect(lines.find((line) => line['message'] === HANDED_BACK)).toMatchObject({
      published: 1,
      failed: {
        sequenceNumber: records[1]?.dynamodb?.SequenceNumber,
        reason: 'InternalFailure: Injected by the stand-in (no time left for another try)',
      },
    });
  });
});

describe('republishing from the table (npm run republish)', () => {
  it("sends a request's events as its item records them: the very events the stream published", async () => {
    const request = await created();
    await decided(request, 'IN_REVIEW');
    await decided(request, 'REJECTED', 'The contract is pledged');
    await poller.drain();
    const published = verifiedEvents(stack.standIn);
    expect(published).toHaveLength(3);
    stack.standIn.clear();
    const answer = await handler({ republish: request });
    // The same events, eventIds included, each with a new signature (ECDSA signs differently every time).
    expect(verifiedEvents(stack.standIn)).toEqual(published);
    expect(answer).toEqual({
      events: ['SUBMITTED', 'IN_REVIEW', 'REJECTED'].map((status, i) => ({
        detailType: i === 0 ? 'TerminationRequestSubmitted' : 'TerminationRequestStatusChanged',
        status,
        eventId: eventIdOf(request.requestId, status),
      })),
      reads: 1,
      calls: 1,
    });
    stack.standIn.clear();
    await handler({ republish: { ...request, status: 'IN_REVIEW' } });
    expect(verifiedEvents(stack.standIn)).toEqual([published[1]]);
  });

  it('refuses a request that does not exist, a status it never reached, and anything that is not a command', async () => {
    const request = await created();
    await poller.drain();
    stack.standIn.clear();
    await expect(handler({ republish: { ...request, requestId: randomUUID() } })).rejects.toThrow(/^No request .* on contract /);
    await expect(handler({ republish: { ...request, status: 'COMPLETED' } })).rejects.toThrow(/never reached COMPLETED/);
    // Not ids of a request: not a command, and no stream batch either.
    await expect(handler({ republish: { ...request, contractId: 'CONTRACT#x' } })).rejects.toThrow(
      'Neither a stream batch, a republish command nor a redrive',
    );
    expect(stack.standIn.events).toEqual([]);
  });
});
