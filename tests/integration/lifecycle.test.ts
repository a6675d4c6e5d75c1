import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventIdOf } from '../../lib/events/request-events';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { requestKeyOf, slotKeyOf } from '../../lib/dynamodb/keys';
import { decisionEvent, LOCAL_BACK_OFFICE_KEY, signatureOver, type DecisionOptions } from '../../scripts/local/decision-event';
import { makeSigningKey } from '../../scripts/local/signing-key';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import type { StreamPoller } from '../../scripts/local/stream-poller';
import { headersWithKey, validBody } from '../support/bodies';
import { callHandler, type HandlerAnswer } from '../support/handler';
import { ofKind } from '../support/local-tables';
import { TEST_BUS, useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';

/*
 * The whole lifecycle against DynamoDB Local with its stream: the real create handler writes,
 * the stream (read as Lambda's mapping would) feeds the real publisher into the EventBridge
 * stand-in, the real consumer applies decisions, and the GET handlers show the outcome.
 */

let stack: LifecycleStack;
let poller: StreamPoller;
const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;

beforeAll(async () => {
  stack = await useLifecycleStack();
  poller = await stack.startPublishing();
});
afterAll(() => stack.stop());
beforeEach(async () => {
  await poller.drain();
  stack.standIn.clear();
});

/** One body for every test: a replay must send the body of the first call. */
const BODY = validBody();

async function create(contractId: string, customerId: string, key: string = randomUUID()): Promise<HandlerAnswer> {
  return callHandler({ contractId, customerId, body: BODY, headers: headersWithKey(key) });
}

async function createdOn(contractId: string, customerId: string): Promise<{ requestId: string; requestNumber: string; key: string }> {
  const key = randomUUID();
  const answer = await create(contractId, customerId, key);
  expect(answer.status).toBe(201);
  return { requestId: String(answer.body['requestId']), requestNumber: String(answer.body['requestNumber']), key };
}

async function decide(options: DecisionOptions): Promise<string> {
  return (await stack.decide(decisionEvent(options))).outcome;
}

/** The events published since the last clear, after the stream has caught up. */
async function published() {
  await poller.drain();
  return stack.standIn.events;
}

const read = (contractId: string, customerId: string, requestId: string, language = 'en') =>
  callHandler({ method: 'GET', contractId, customerId, requestId, headers: { 'Accept-Language': language } });

describe('a creation', () => {
  it('publishes exactly one TerminationRequestSubmitted, with what the back office needs', async () => {
    const { requestId, requestNumber } = await createdOn(anna.contracts.active, anna.customerId);
    const events = await published();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      source: 'bank.contract-termination',
      detailType: 'TerminationRequestSubmitted',
      eventBusName: TEST_BUS,
      detail: {
        eventId: eventIdOf(requestId, 'SUBMITTED'),
        requestId,
        requestNumber,
        contractId: anna.contracts.active,
        customerId: anna.customerId,
        status: 'SUBMITTED',
        reasonCode: 'RELOCATION',
        bankDetails: { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Анна Иванова' },
        comment: 'Moving abroad',
      },
    });
    // Nothing of the table's own bookkeeping leaks into the event.
    expect(Object.keys(events[0]?.detail ?? {})).not.toContain('idempotencyKey');
  });

  it('publishes nothing for a replay, a refusal or a 409', async () => {
    const { key } = await createdOn(boris.contracts.active, boris.customerId);
    await poller.drain();
    stack.standIn.clear();
    expect((await create(boris.contracts.active, boris.customerId, key)).status).toBe(200);
    expect((await create(boris.contracts.active, boris.customerId)).status).toBe(409);
    expect((await create(anna.contracts.closed, anna.customerId)).status).toBe(422);
    expect(await published()).toEqual([]);
  });
});

describe('decisions', () => {
  it('moves a request through IN_REVIEW and APPROVED to COMPLETED: one StatusChanged each, the slot released at the end', async () => {
    const contractId = randomUUID();
    await stack.tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
    const { requestId, requestNumber } = await createdOn(contractId, anna.customerId);
    await poller.drain();
    stack.standIn.clear();

    expect(await decide({ requestId, contractId, status: 'IN_REVIEW' })).toBe('applied');
    expect(await decide({ requestId, contractId, status: 'APPROVED', reason: 'Documents checked' })).toBe('applied');
    expect((await read(contractId, anna.customerId, requestId)).body).toMatchObject({
      status: 'APPROVED',
      statusReason: 'Documents checked',
      message: expect.stringContaining('Documents checked'),
    });
    expect((await create(contractId, anna.customerId)).status).toBe(409);
    expect(await decide({ requestId, contractId, status: 'COMPLETED' })).toBe('applied');

    const events = await published();
    expect(events.map((e) => [e.detailType, e.detail])).toEqual([
      ['TerminationRequestStatusChanged', expect.objectContaining({ previousStatus: 'SUBMITTED', status: 'IN_REVIEW', requestNumber })],
      [
        'TerminationRequestStatusChanged',
        expect.objectContaining({ previousStatus: 'IN_REVIEW', status: 'APPROVED', reason: 'Documents checked' }),
      ],
      [
        'TerminationRequestStatusChanged',
        expect.objectContaining({ previousStatus: 'APPROVED', status: 'COMPLETED', eventId: eventIdOf(requestId, 'COMPLETED') }),
      ],
    ]);
    const slot = (await stack.tables.contractItems(contractId)).filter((item) => item['sk'] === slotKeyOf(contractId).sk);
    expect(slot).toEqual([]);
    const [request] = ofKind(await stack.tables.contractItems(contractId), 'REQUEST');
    expect(request?.['statusHistory']).toHaveLength(3);
  });

  it('REJECTED with a reason: GET shows it in both languages, the old key replays, a new key gets 201', async () => {
    const contractId = randomUUID();
    await stack.tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
    const first = await createdOn(contractId, anna.customerId);
    await poller.drain();
    stack.standIn.clear();

    expect(await decide({ requestId: first.requestId, contractId, status: 'REJECTED', reason: 'Переплата по договору' })).toBe('applied');
    const en = await read(contractId, anna.customerId, first.requestId);
    expect(en.body).toMatchObject({ status: 'REJECTED', statusReason: 'Переплата по договору' });
    expect(en.body['message']).toBe(
      `Your early termination request No. ${first.requestNumber} has been rejected. Reason: Переплата по договору`,
    );
    const ru = await read(contractId, anna.customerId, first.requestId, 'ru');
    expect(ru.body['message']).toBe(
      `Ваша заявка на досрочное расторжение договора № ${first.requestNumber} отклонена. Причина: Переплата по договору`,
    );

    const replay = await create(contractId, anna.customerId, first.key);
    expect(replay.status).toBe(200);
    expect(replay.body['requestId']).toBe(first.requestId);
    const second = await create(contractId, anna.customerId);
    expect(second.status).toBe(201);

    const list = await callHandler({ method: 'GET', contractId, customerId: anna.customerId });
    expect(list.body['items']).toEqual([
      expect.objectContaining({ requestId: second.body['requestId'], status: 'SUBMITTED' }),
      expect.objectContaining({ requestId: first.requestId, status: 'REJECTED' }),
    ]);
    const events = await published();
    expect(events.map((e) => e.detailType)).toEqual(['TerminationRequestStatusChanged', 'TerminationRequestSubmitted']);
  });

  it('the same decision twice changes nothing and publishes nothing more', async () => {
    const contractId = randomUUID();
    await stack.tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
    const { requestId } = await createdOn(contractId, anna.customerId);
    const event = decisionEvent({ requestId, contractId, status: 'IN_REVIEW' });
    expect((await stack.decide(event)).outcome).toBe('applied');
    const before = await stack.tables.contractItems(contractId);
    await poller.drain();
    stack.standIn.clear();

    expect((await stack.decide(event)).outcome).toBe('duplicate');
    // The back office resending the decision under a new id is the same decision.
    expect(await decide({ requestId, contractId, status: 'IN_REVIEW' })).toBe('duplicate');
    expect(await stack.tables.contractItems(contractId)).toEqual(before);
    expect(await published()).toEqual([]);
    expect(stack.standIn.messages).toEqual([]);
  });

  it('a decision that arrives after a later one moved the request on is a duplicate when it was applied, forbidden when not', async () => {
    const contractId = randomUUID();
    await stack.tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
    const { requestId } = await createdOn(contractId, anna.customerId);
    const review = decisionEvent({ requestId, contractId, status: 'IN_REVIEW' });
    expect((await stack.decide(review)).outcome).toBe('applied');
    expect(await decide({ requestId, contractId, status: 'APPROVED' })).toBe('applied');
    stack.standIn.clear();
    expect((await stack.decide(review)).outcome).toBe('duplicate');
    expect(await decide({ requestId, contractId, status: 'IN_REVIEW' })).toBe('forbidden-transition');
    expect(stack.standIn.messages).toHaveLength(1);
  });
});

describe('decisions that can never apply go to the dead-letter queue, and block nothing', () => {
  it.each([
    ['a final request moved again', 'forbidden-transition', 'REJECTED', 'COMPLETED'],
    ['APPROVED rejected', 'forbidden-transition', 'APPROVED', 'REJECTED'],
  ] as const)('%s', async (_title, refusal, first, then) => {
    const contractId = randomUUID();
    await stack.tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
    const { requestId } = await createdOn(contractId, anna.customerId);
    expect(await decide({ requestId, contractId, status: first })).toBe('applied');
    const before = await stack.tables.contractItems(contractId);
    await poller.drain();
    stack.standIn.clear();

    const event = decisionEvent({ requestId, contractId, status: then });
    expect((await stack.decide(event)).outcome).toBe(refusal);
    expect(stack.standIn.messages).toEqual([
      { queueUrl: stack.deadLetterQueueUrl, body: { reason: refusal, problems: [`${first} may not move to ${then}`], event } },
    ]);
    expect(await stack.tables.contractItems(contractId)).toEqual(before);
    expect(await published()).toEqual([]);
  });

  it('an unknown request, or a request under another contract', async () => {
    const { requestId } = await createdOn(anna.contracts.withEndDate, anna.customerId);
    expect(await decide({ requestId: randomUUID(), contractId: anna.contracts.active, status: 'REJECTED' })).toBe('unknown-request');
    expect(await decide({ requestId, contractId: boris.contracts.active, status: 'IN_REVIEW' })).toBe('unknown-request');
    expect(stack.standIn.messages.map((m) => m.queueUrl)).toEqual([stack.deadLetterQueueUrl, stack.deadLetterQueueUrl]);
  });

  it.each([
    [
      'another source',
      { ...decisionEvent({ requestId: randomUUID(), contractId: randomUUID(), status: 'REJECTED' }, 'bank.contract-termination') },
      'unexpected-event',
    ],
    [
      'no detail',
      { ...decisionEvent({ requestId: randomUUID(), contractId: randomUUID(), status: 'REJECTED' }), detail: null },
      'unauthenticated',
    ],
    ['a status the back office may not set', withDetail({ status: 'SUBMITTED' }), 'malformed-detail'],
    ["the customer's own status, which only a withdrawal sets", withDetail({ status: 'WITHDRAWN' }), 'malformed-detail'],
    ['no contractId', withDetail({ contractId: undefined }), 'malformed-detail'],
    ['an id that is no UUID', withDetail({ requestId: 'R-1' }), 'malformed-detail'],
    ['a reason with a bidi override', withDetail({ reason: 'ok\u202e' }), 'malformed-detail'],
    [
      'a detail that is a string',
      { ...decisionEvent({ requestId: randomUUID(), contractId: randomUUID(), status: 'REJECTED' }), detail: 'REJECTED' },
      'unauthenticated',
    ],
  ])('%s', async (_title, event, refusal) => {
    expect((await stack.decide(event)).outcome).toBe(refusal);
    expect(stack.standIn.messages).toEqual([
      { queueUrl: stack.deadLetterQueueUrl, body: expect.objectContaining({ reason: refusal, event }) },
    ]);
  });
});

describe("only the back office's signature moves a request, whatever path brought the decision", () => {
  it.each([
    [
      'an unsigned decision',
      (genuine: Detail) => ({ ...genuine, signature: undefined }),
      'no signature: the back office signs every decision',
    ],
    [
      'a decision signed with another key under the back office key id',
      (genuine: Detail) => ({ ...genuine, signature: signatureOver(genuine, { key: makeSigningKey(LOCAL_BACK_OFFICE_KEY.kid) }) }),
      'signature: Invalid signature',
    ],
    [
      "a genuine signature over another request's decision",
      (genuine: Detail) => ({ ...genuine, signature: signatureOver({ ...genuine, requestId: randomUUID() }) }),
      "the signature does not cover this decision's requestId",
    ],
    [
      'a genuine decision whose reason was changed on the way',
      (genuine: Detail) => ({ ...genuine, reason: 'Call +7 495 000 00 00 to pay the penalty' }),
      "the signature does not cover this decision's reason",
    ],
  ])('%s: refused to the dead-letter queue with its reason, nothing moved, nothing published', async (_title, forge, problem) => {
    const contractId = await freshContract();
    const { requestId } = await createdOn(contractId, anna.customerId);
    await poller.drain();
    stack.standIn.clear();
    const before = await stack.tables.contractItems(contractId);
    const genuine = decisionEvent({ requestId, contractId, status: 'REJECTED', reason: 'The contract is pledged' });
    const forged = { ...genuine, detail: forge(genuine.detail) };

    expect((await stack.decide(forged)).outcome).toBe('unauthenticated');
    expect(stack.standIn.messages).toEqual([
      { queueUrl: stack.deadLetterQueueUrl, body: { reason: 'unauthenticated', problems: [problem], event: forged } },
    ]);
    expect(await stack.tables.contractItems(contractId)).toEqual(before);
    expect(await published()).toEqual([]);
    // The back office's own decision, as it signed it, still applies.
    expect((await stack.decide(genuine)).outcome).toBe('applied');
  });
});

describe('publishing when EventBridge fails', () => {
  it('a request item that can never be an event goes to the dead-letter path alone; the requests around it are published once', async () => {
    const before = await createdOn(await freshContract(), anna.customerId);
    const broken = randomUUID();
    // A request item without its number: nothing a create writes, but the stream carries it.
    await stack.tables.doc.send(
      new PutCommand({
        TableName: stack.tables.names.requests,
        Item: { ...requestKeyOf(randomUUID(), broken), kind: 'REQUEST', requestId: broken, status: 'SUBMITTED' },
      }),
    );
    const after = await createdOn(await freshContract(), anna.customerId);
    const ids = (await published()).map((e) =>
      e.detail !== null && typeof e.detail === 'object' && 'requestId' in e.detail ? e.detail.requestId : '',
    );
    expect(ids).toEqual([before.requestId, after.requestId]);
    expect(stack.unpublished.map((r) => r.dynamodb?.NewImage?.['requestId']?.S)).toEqual([broken]);
    stack.unpublished.length = 0;
  });

  it('retries a throttled call and failed entries: every event arrives, none twice', async () => {
    stack.standIn.failNextPutEvents({ kind: 'call', errorType: 'ThrottlingException', status: 400 }, { kind: 'entries', failing: [0] });
    const { requestId } = await createdOn(boris.contracts.withEndDate, boris.customerId);
    const events = await published();
    expect(events.map((e) => e.detail)).toEqual([expect.objectContaining({ requestId })]);
    // Throttled, then the entry failed, then through: three calls of the one entry.
    expect(stack.standIn.putEventsCalls).toEqual([1, 1, 1]);
    expect(stack.unpublished).toEqual([]);
  });
});

type Detail = ReturnType<typeof decisionEvent>['detail'];

/** A decision with its detail changed, then signed by the back office: refused for what it says, not who said it. */
function withDetail(change: Record<string, unknown>) {
  const event = decisionEvent({ requestId: randomUUID(), contractId: randomUUID(), status: 'REJECTED' });
  const detail = { ...event.detail, ...change };
  return { ...event, detail: { ...detail, signature: signatureOver(detail) } };
}

/** A fresh active contract of Anna's. */
async function freshContract(): Promise<string> {
  const contractId = randomUUID();
  await stack.tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
  return contractId;
}
