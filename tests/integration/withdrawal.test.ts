import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decisionEvent } from '../../scripts/local/decision-event';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import type { StreamPoller } from '../../scripts/local/stream-poller';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf, type HandlerAnswer } from '../support/handler';
import { ofKind } from '../support/local-tables';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';

/*
 * A customer withdraws a request (docs/decisions/0018-withdrawal.md): the real
 * handlers against DynamoDB Local with its stream, the real publisher into the EventBridge
 * stand-in and the real decision consumer.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;
let stack: LifecycleStack;
let poller: StreamPoller;

beforeAll(async () => {
  stack = await useLifecycleStack();
  poller = await stack.startPublishing();
});
afterAll(() => stack.stop());
beforeEach(async () => {
  await poller.drain();
  stack.standIn.clear();
});

async function submitted(customerId: string = anna.customerId): Promise<{ contractId: string; requestId: string }> {
  const contractId = await newContract(stack.tables, { customerId });
  const answer = await callHandler({ contractId, customerId, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return { contractId, requestId: String(answer.body['requestId']) };
}

const withdraw = (
  request: { contractId: string; requestId: string },
  key: string = randomUUID(),
  customerId: string = anna.customerId,
  language = 'en',
) => callHandler(withdrawalOf(request, customerId, key, { 'Accept-Language': language }));

const read = (request: { contractId: string; requestId: string }): Promise<HandlerAnswer> =>
  callHandler({ method: 'GET', contractId: request.contractId, requestId: request.requestId });

describe('POST .../withdrawal', () => {
  it('withdraws a SUBMITTED request in one write: WITHDRAWN, the slot free, one StatusChanged event', async () => {
    const request = await submitted();
    const answer = await withdraw(request);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      requestId: request.requestId,
      status: 'WITHDRAWN',
      withdrawnAt: expect.stringMatching(/Z$/),
      message: 'Your early termination request has been withdrawn.',
    });
    expect((await read(request)).body).toMatchObject({ status: 'WITHDRAWN', message: expect.stringContaining('withdrawn') });
    expect(ofKind(await stack.tables.contractItems(request.contractId), 'ACTIVE_SLOT')).toEqual([]);
    await poller.drain();
    const changes = stack.standIn.events.filter((e) => e.detailType === 'TerminationRequestStatusChanged');
    expect(changes).toHaveLength(1);
    expect(changes[0]?.detail).toMatchObject({ requestId: request.requestId, status: 'WITHDRAWN', previousStatus: 'SUBMITTED' });
    // The contract takes a new request at once.
    const again = await callHandler({ contractId: request.contractId, body: validBody(), headers: headersWithKey() });
    expect(again.status).toBe(201);
  });

  it('withdraws an IN_REVIEW request too', async () => {
    const request = await submitted();
    expect((await stack.decide(decisionEvent({ ...request, status: 'IN_REVIEW' }))).outcome).toBe('applied');
    expect((await withdraw(request)).status).toBe(200);
  });

  it('replays with the same key: 200, the same bytes, Idempotent-Replayed, and nothing written or published again', async () => {
    const request = await submitted();
    const key = randomUUID();
    const first = await withdraw(request, key);
    await poller.drain();
    const published = stack.standIn.events.length;
    const again = await withdraw(request, key.toUpperCase(), anna.customerId, 'ru');
    expect(again.status).toBe(200);
    expect(again.raw).toBe(first.raw);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    await poller.drain();
    expect(stack.standIn.events).toHaveLength(published);
  });

  it('answers 409 with the current status for a request already withdrawn with another key, or APPROVED, or final', async () => {
    const withdrawn = await submitted();
    await withdraw(withdrawn);
    const twice = await withdraw(withdrawn);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({
      errorCode: 'REQUEST_NOT_WITHDRAWABLE',
      details: [{ field: 'status', reason: expect.stringContaining('WITHDRAWN') }],
    });

    const approved = await submitted();
    await stack.decide(decisionEvent({ ...approved, status: 'APPROVED' }));
    const late = await withdraw(approved, randomUUID(), anna.customerId, 'ru');
    expect(late.status).toBe(409);
    expect(late.body['details']).toEqual([{ field: 'status', reason: expect.stringContaining('APPROVED') }]);
    expect(late.body['message']).toBe('Эту заявку на расторжение уже нельзя отозвать.');

    const rejected = await submitted();
    await stack.decide(decisionEvent({ ...rejected, status: 'REJECTED', reason: 'No' }));
    expect((await withdraw(rejected)).body).toMatchObject({ errorCode: 'REQUEST_NOT_WITHDRAWABLE' });
  });

  it("answers 403 for another customer's request and 404 for an unknown one, and changes nothing", async () => {
    const request = await submitted();
    const stranger = await withdraw(request, randomUUID(), boris.customerId);
    expect(stranger.status).toBe(403);
    expect(stranger.body['errorCode']).toBe('CONTRACT_ACCESS_DENIED');
    expect((await withdraw({ contractId: request.contractId, requestId: randomUUID() })).body).toMatchObject({
      errorCode: 'TERMINATION_REQUEST_NOT_FOUND',
    });
    expect((await withdraw({ contractId: randomUUID(), requestId: request.requestId })).body).toMatchObject({
      errorCode: 'CONTRACT_NOT_FOUND',
    });
    expect((await read(request)).body['status']).toBe('SUBMITTED');
  });

  it('answers 400 for a missing key or ids that are not UUIDs, listing every problem', async () => {
    const request = await submitted();
    const noKey = await callHandler({ method: 'POST', withdrawal: true, contractId: request.contractId, requestId: request.requestId });
    expect(noKey.body).toMatchObject({ errorCode: 'IDEMPOTENCY_KEY_MISSING' });
    const bad = await withdraw({ contractId: 'nope', requestId: 'also-nope' }, 'not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body['details']).toEqual([
      { field: 'contractId', reason: 'must be a UUID' },
      { field: 'requestId', reason: 'must be a UUID' },
      { field: 'Idempotency-Key', reason: 'must be a UUID' },
    ]);
  });

  it('refuses a back-office decision that arrives after the withdrawal, to the dead-letter queue', async () => {
    const request = await submitted();
    await withdraw(request);
    const outcome = await stack.decide(decisionEvent({ ...request, status: 'APPROVED' }));
    expect(outcome.outcome).toBe('forbidden-transition');
    expect(stack.standIn.messages).toEqual([
      expect.objectContaining({ queueUrl: stack.deadLetterQueueUrl, body: expect.objectContaining({ reason: 'forbidden-transition' }) }),
    ]);
    expect((await read(request)).body['status']).toBe('WITHDRAWN');
  });

  it('lets exactly one of a withdrawal and a racing final decision win, and publishes exactly its event', async () => {
    for (let round = 0; round < 5; round++) {
      const request = await submitted();
      const [withdrawal, decision] = await Promise.all([
        withdraw(request),
        stack.decide(decisionEvent({ ...request, status: 'REJECTED', reason: 'Race' })),
      ]);
      const wins = [withdrawal.status === 200, decision.outcome === 'applied'].filter(Boolean);
      expect(wins).toHaveLength(1);
      await poller.drain();
      const changes = stack.standIn.events.filter(
        (e) => e.detailType === 'TerminationRequestStatusChanged' && JSON.stringify(e.detail).includes(request.requestId),
      );
      expect(changes).toHaveLength(1);
      expect(ofKind(await stack.tables.contractItems(request.contractId), 'ACTIVE_SLOT')).toEqual([]);
    }
  });
});
