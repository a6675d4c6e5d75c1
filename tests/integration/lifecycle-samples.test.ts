import { readdirSync, readFileSync } from 'node:fs';
import type { EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import decisionCompletedAfterRejected from '../../events/decision-completed-after-rejected.json' with { type: 'json' };
import decisionInReview from '../../events/decision-in-review.json' with { type: 'json' };
import decisionMalformed from '../../events/decision-malformed.json' with { type: 'json' };
import decisionRejected from '../../events/decision-rejected.json' with { type: 'json' };
import decisionUnknownRequest from '../../events/decision-unknown-request.json' with { type: 'json' };
import streamIdempotencyExpired from '../../events/stream-idempotency-expired.json' with { type: 'json' };
import streamRequestCreated from '../../events/stream-request-created.json' with { type: 'json' };
import streamRequestExpired from '../../events/stream-request-expired.json' with { type: 'json' };
import streamStatusChanged from '../../events/stream-status-changed.json' with { type: 'json' };
import streamWithdrawn from '../../events/stream-withdrawn.json' with { type: 'json' };
import withdrawalSampleRequest from '../../events/withdrawal-sample-request.json' with { type: 'json' };
import { sendEvent } from '../support/handler';
import { DECISION_SIGNED_FIELDS, EVENT_TYPES } from '../../lib/api-model/event-schemas';
import { signatureCheckWith } from '../support/decision-signatures';
import { jsonObject } from '../support/json';
import { eventIdOf } from '../../lib/events/request-events';
import { publishRequestEvents } from '../../lib/events/publish-request-events';
import type { PutEventsFault } from '../../scripts/local/aws-stand-in';
import { matchesPattern } from '../../scripts/local/event-pattern';
import { streamFilterPatterns } from '../../scripts/local/template-patterns';
import { slotKeyOf } from '../../lib/dynamodb/keys';
import { isStatusChangedDetail, isSubmittedDetail } from '../../lib/api-model/validator';
import { ofKind } from '../support/local-tables';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import {
  SAMPLE_CONTRACT_ID,
  SAMPLE_REQUEST,
  SAMPLE_REQUEST_ID,
  WITHDRAWN_AT,
  WITHDRAWN_SAMPLE,
  writeSampleRequest,
  writeWithdrawnSample,
} from '../support/sample-request';
import { streamEvent } from '../support/stream-events';
import { verifiedEvents } from '../support/signed-events';
import { PUBLISHED_SAMPLES, SAMPLES_JWKS } from '../../scripts/local/published-samples';

/*
 * Replays the lifecycle's sample events (events/decision-*.json, signed with the local back
 * office's key; events/stream-*.json) through the real handlers, in the order of a request's
 * life: the samples are about the requests of tests/support/sample-request.ts, written by the
 * service's own writes. The publisher checks every stream record against the table, so each
 * stream sample says what the table holds.
 */

let stack: LifecycleStack;

// Declared with Lambda's type and no cast: tsc checks each file's shape.
const decisions: Record<string, EventBridgeEvent<string, unknown>> = {
  'decision-in-review.json': decisionInReview,
  'decision-rejected.json': decisionRejected,
  'decision-completed-after-rejected.json': decisionCompletedAfterRejected,
  'decision-unknown-request.json': decisionUnknownRequest,
  'decision-malformed.json': decisionMalformed,
};
const streams = {
  'stream-request-created.json': streamEvent(streamRequestCreated),
  'stream-status-changed.json': streamEvent(streamStatusChanged),
  'stream-idempotency-expired.json': streamEvent(streamIdempotencyExpired),
  'stream-request-expired.json': streamEvent(streamRequestExpired),
  'stream-withdrawn.json': streamEvent(streamWithdrawn),
};

beforeAll(async () => {
  stack = await useLifecycleStack();
  await writeSampleRequest(stack.tables.doc, stack.tables.names);
  await writeWithdrawnSample(stack.tables.doc, stack.tables.names);
});
afterAll(() => stack.stop());

async function publish(file: keyof typeof streams) {
  stack.standIn.clear();
  const { handler } = await import('../../functions/publish-request-events');
  const response = await handler(streams[file]);
  return { response, events: verifiedEvents(stack.standIn), calls: [...stack.standIn.putEventsCalls] };
}

async function decide(file: string) {
  stack.standIn.clear();
  const event = decisions[file];
  if (event === undefined) throw new Error(`No sample ${file}`);
  const { outcome } = await stack.decide(event);
  return { outcome, deadLetters: [...stack.standIn.messages] };
}

describe('the samples of events/', () => {
  it("carry the local back office's signature over exactly their fields (scripts/local/sign-samples.ts signs them again after an edit)", async () => {
    const check = signatureCheckWith();
    for (const [file, event] of Object.entries(decisions)) {
      const detail = jsonObject(event.detail);
      const verdict = await check(String(detail['signature']));
      expect(verdict.ok, file).toBe(true);
      const claims = verdict.ok ? verdict.claims : {};
      for (const field of DECISION_SIGNED_FIELDS) expect(claims[field], `${file}: ${field}`).toEqual(detail[field]);
    }
  });

  it('are all replayed here', () => {
    const files = readdirSync(new URL('../../events/', import.meta.url)).filter((file) =>
      /^(decision|stream|withdrawal|published)-/.test(file),
    );
    expect(files.sort()).toEqual(
      [
        ...Object.keys(decisions),
        ...Object.keys(streams),
        // The erasure ledger's record of an erasure of the withdrawn sample: tests/integration/erasure-events.test.ts.
        'stream-erasure-recorded.json',
        'withdrawal-sample-request.json',
        ...PUBLISHED_SAMPLES.map((sample) => sample.file.replace('events/', '')),
        SAMPLES_JWKS.replace('events/', ''),
      ].sort(),
    );
  });
});

describe('a request, from the stream records of its creation to its rejection', () => {
  it('stream-request-created.json: of four new items, the request is one TerminationRequestSubmitted, in one call', async () => {
    const { response, events, calls } = await publish('stream-request-created.json');
    expect(response).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual([1]);
    expect(events).toHaveLength(1);
    const detail = events[0]?.detail;
    expect(isSubmittedDetail(detail)).toBe(true);
    expect(detail).toEqual({
      eventId: eventIdOf(SAMPLE_REQUEST_ID, 'SUBMITTED'),
      requestId: SAMPLE_REQUEST_ID,
      contractId: SAMPLE_CONTRACT_ID,
      customerId: SAMPLE_REQUEST.customerId,
      requestNumber: SAMPLE_REQUEST.requestNumber,
      status: 'SUBMITTED',
      ...SAMPLE_REQUEST.input,
      createdAt: SAMPLE_REQUEST.response.createdAt,
    });
    expect(events[0]?.time).toBe(SAMPLE_REQUEST.response.createdAt);
  });

  it('stream-request-created.json again: the same event id (consumers drop the repeat)', async () => {
    const { events } = await publish('stream-request-created.json');
    expect(events.map((e) => e.detail)).toEqual([expect.objectContaining({ eventId: eventIdOf(SAMPLE_REQUEST_ID, 'SUBMITTED') })]);
  });

  it('decision-in-review.json: applied; sent again: a duplicate, nothing changes', async () => {
    expect(await decide('decision-in-review.json')).toEqual({ outcome: 'applied', deadLetters: [] });
    const before = await stack.tables.contractItems(SAMPLE_CONTRACT_ID);
    expect(await decide('decision-in-review.json')).toEqual({ outcome: 'duplicate', deadLetters: [] });
    expect(await stack.tables.contractItems(SAMPLE_CONTRACT_ID)).toEqual(before);
  });

  it('decision-rejected.json: applied with its reason, and the contract slot released', async () => {
    expect(await decide('decision-rejected.json')).toEqual({ outcome: 'applied', deadLetters: [] });
    const items = await stack.tables.contractItems(SAMPLE_CONTRACT_ID);
    expect(ofKind(items, 'REQUEST')[0]).toMatchObject({ status: 'REJECTED', statusReason: 'По договору есть просроченная задолженность.' });
    expect(items.filter((item) => item['sk'] === slotKeyOf(SAMPLE_CONTRACT_ID).sk)).toEqual([]);
  });

  it('decision-completed-after-rejected.json: forbidden, to the dead-letter queue with its reason, nothing changes', async () => {
    const before = await stack.tables.contractItems(SAMPLE_CONTRACT_ID);
    const { outcome, deadLetters } = await decide('decision-completed-after-rejected.json');
    expect(outcome).toBe('forbidden-transition');
    expect(deadLetters).toEqual([
      {
        queueUrl: stack.deadLetterQueueUrl,
        body: { reason: 'forbidden-transition', problems: ['REJECTED may not move to COMPLETED'], event: decisionCompletedAfterRejected },
      },
    ]);
    expect(await stack.tables.contractItems(SAMPLE_CONTRACT_ID)).toEqual(before);
  });

  it('withdrawal-sample-request.json after the rejection: 409 REQUEST_NOT_WITHDRAWABLE naming REJECTED, in Russian', async () => {
    const answer = await sendEvent(withdrawalSampleRequest);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      errorCode: 'REQUEST_NOT_WITHDRAWABLE',
      message: 'Эту заявку на расторжение уже нельзя отозвать.',
      details: [{ field: 'status', reason: expect.stringContaining('REJECTED') }],
    });
  });

  it('decision-unknown-request.json: to the dead-letter queue', async () => {
    expect(await decide('decision-unknown-request.json')).toMatchObject({
      outcome: 'unknown-request',
      deadLetters: [{ body: { reason: 'unknown-request' } }],
    });
  });

  it('decision-malformed.json: to the dead-letter queue, naming every problem', async () => {
    const { outcome, deadLetters } = await decide('decision-malformed.json');
    expect(outcome).toBe('malformed-detail');
    expect(deadLetters[0]?.body).toMatchObject({
      reason: 'malformed-detail',
      problems: expect.arrayContaining([
        expect.stringMatching(/^contractId/),
        expect.stringMatching(/^status/),
        expect.stringMatching(/^occurredAt/),
      ]),
    });
  });

  it('stream-status-changed.json: two status changes are two StatusChanged events; the slot removal is none', async () => {
    const { events, calls } = await publish('stream-status-changed.json');
    expect(calls).toEqual([2]);
    for (const event of events) expect(isStatusChangedDetail(event.detail)).toBe(true);
    expect(events.map((e) => e.detail)).toEqual([
      expect.objectContaining({ previousStatus: 'SUBMITTED', status: 'IN_REVIEW', decisionEventId: 'bo-2026-11-23-000187' }),
      expect.objectContaining({
        previousStatus: 'IN_REVIEW',
        status: 'REJECTED',
        reason: 'По договору есть просроченная задолженность.',
        eventId: eventIdOf(SAMPLE_REQUEST_ID, 'REJECTED'),
      }),
    ]);
  });

  it('stream-request-created.json while EventBridge keeps failing the entry: handed back from it; at the head of a batch, the invocation fails so the stream bisects', async () => {
    const { handler } = await import('../../functions/publish-request-events');
    const failing = Array.from({ length: 3 }, (): PutEventsFault => ({ kind: 'entries', failing: [0] }));
    const records = streams['stream-request-created.json'].Records;
    stack.standIn.clear();
    stack.standIn.failNextPutEvents(...failing);
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [{ itemIdentifier: records[3]?.dynamodb?.SequenceNumber }] });
    stack.standIn.failNextPutEvents(...failing);
    await expect(handler({ Records: records.slice(3) })).rejects.toThrow(/first record could not be published/);
    expect(stack.standIn.events).toEqual([]);
    expect(stack.standIn.putEventsCalls).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it("stream-withdrawn.json: the customer's withdrawal of another request is one StatusChanged, changed by the customer, with no decision", async () => {
    const { events, calls } = await publish('stream-withdrawn.json');
    expect(calls).toEqual([1]);
    expect(events.map((e) => e.detail)).toEqual([
      {
        eventId: eventIdOf(WITHDRAWN_SAMPLE.requestId, 'WITHDRAWN'),
        requestId: WITHDRAWN_SAMPLE.requestId,
        contractId: WITHDRAWN_SAMPLE.contractId,
        requestNumber: WITHDRAWN_SAMPLE.requestNumber,
        previousStatus: 'IN_REVIEW',
        status: 'WITHDRAWN',
        changedAt: WITHDRAWN_AT,
        changedBy: 'CUSTOMER',
      },
    ]);
  });

  it('stream-idempotency-expired.json: a key removed by TTL publishes nothing', async () => {
    const { response, events, calls } = await publish('stream-idempotency-expired.json');
    expect(response).toEqual({ batchItemFailures: [] });
    expect(events).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("stream-request-expired.json: a request removed by TTL publishes nothing, and the stream's filter drops it", async () => {
    const [record] = streams['stream-request-expired.json'].Records;
    // A final request at the end of its retention period (0024-retention-by-calendar-year.md), deleted by DynamoDB itself.
    expect(record).toMatchObject({
      eventName: 'REMOVE',
      userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
      dynamodb: { OldImage: { kind: { S: 'REQUEST' }, status: { S: 'WITHDRAWN' }, expiresAt: { N: expect.any(String) } } },
    });
    expect(streamFilterPatterns().some((pattern) => matchesPattern(pattern, record))).toBe(false);
    // Handed to the publisher all the same (a redrive, a hand-made invoke), it publishes nothing either.
    const { response, events, calls } = await publish('stream-request-expired.json');
    expect(response).toEqual({ batchItemFailures: [] });
    expect(events).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("January's burst: a year's requests expire together, and a batch of 100 TTL deletions costs the publisher no read and no PutEvents", async () => {
    // Every request made final in one year ends its retention at the same midnight (0024-retention-by-calendar-year.md).
    const [sample] = streams['stream-request-expired.json'].Records;
    if (sample === undefined) throw new Error('stream-request-expired.json holds no record');
    const burst = Array.from({ length: 100 }, (_, n) => ({
      ...sample,
      eventID: `expired-${String(n)}`,
      dynamodb: { ...sample.dynamodb, SequenceNumber: String(9_000_000 + n) },
    }));
    // The stream's filter drops each of them before any invocation...
    expect(burst.filter((record) => streamFilterPatterns().some((pattern) => matchesPattern(pattern, record)))).toEqual([]);
    // ...and handed over all the same, the publisher reads nothing and sends nothing.
    stack.standIn.clear();
    const { handler } = await import('../../functions/publish-request-events');
    expect(await handler({ Records: burst })).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.putEventsCalls).toEqual([]);
    const counted = { reads: 0, puts: 0 };
    const result = await publishRequestEvents(
      burst,
      { eventBusName: 'termination-events', eventSource: 'bank.contract-termination' },
      {
        readRequests: () => {
          counted.reads++;
          return Promise.reject(new Error('no read expected'));
        },
        putEvents: () => {
          counted.puts++;
          return Promise.reject(new Error('no PutEvents expected'));
        },
        readLedger: () => Promise.reject(new Error('no ledger read expected')),
        signer: { kid: 'unused', signDer: () => Promise.reject(new Error('no signature expected')) },
        maxAttempts: 1,
        pause: () => Promise.resolve(),
        isTransient: () => false,
      },
    );
    expect(result).toMatchObject({ skipped: 100, reads: 0, published: 0, unconfirmed: [] });
    expect(counted).toEqual({ reads: 0, puts: 0 });
  });
});

describe('the samples of the published events (events/published-*.json, docs/asyncapi.yaml shows them)', () => {
  // The erasure's sample needs its request erased, which these tables keep: tests/integration/erasure-events.test.ts replays it.
  it.each(PUBLISHED_SAMPLES.filter((sample) => sample.detailType !== EVENT_TYPES.erased).map((sample) => [sample.file, sample] as const))(
    '%s is what the publisher sends, signed, for its stream record once the table confirms it',
    async (file, sample) => {
      const received = jsonObject(JSON.parse(readFileSync(file, 'utf8')));
      const { signature: _signature, ...detail } = jsonObject(received['detail']);
      const isStreamFile = (name: string): name is keyof typeof streams => name in streams;
      const streamFile = Object.keys(streams)
        .filter(isStreamFile)
        .find((name) => sample.stream.endsWith(name));
      if (streamFile === undefined) throw new Error(`No stream sample ${sample.stream}`);
      const { events } = await publish(streamFile);
      const sent = events.find((event) => jsonObject(event.detail)['eventId'] === detail['eventId']);
      expect(sent).toMatchObject({ source: received['source'], detailType: received['detail-type'], detail });
      expect(new Date(String(sent?.time)).toISOString().replace(/\.\d{3}Z$/, 'Z')).toBe(received['time']);
    },
  );
});
