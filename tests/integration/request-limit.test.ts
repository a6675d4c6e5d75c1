import { randomUUID } from 'node:crypto';
import { directContext } from '../support/call-context';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { limitKeyOf } from '../../lib/dynamodb/keys';
import { DynamoDbTerminationStore } from '../../lib/dynamodb/termination-table';
import { createTerminationRequest, type CreateOutcome } from '../../lib/termination/create-termination-request';
import { withdrawTerminationRequest } from '../../lib/termination/withdraw-termination-request';
import { decisionEvent } from '../../scripts/local/decision-event';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { matchesPattern } from '../../scripts/local/event-pattern';
import type { StreamPoller } from '../../scripts/local/stream-poller';
import { streamFilterPatterns } from '../../scripts/local/template-patterns';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf, type HandlerAnswer } from '../support/handler';
import { ofKind } from '../support/local-tables';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';
import { localDocumentClient, useCaseCall, useCaseDeps } from '../support/use-case';

/*
 * One customer's requests on one contract within a rolling period (docs/decisions/0020-request-limit.md):
 * the real handlers against DynamoDB Local with its stream, the limit as deployed by default
 * (5 in 30 days), and the use case itself on a clock of its own for the period.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;
const DAY = 86_400;
let stack: LifecycleStack;
let poller: StreamPoller;
let uninstall: () => void;

beforeAll(async () => {
  stack = await useLifecycleStack();
  poller = await stack.startPublishing();
  uninstall = installSdkRecorder();
});
afterAll(async () => {
  uninstall();
  await stack.stop();
});
beforeEach(async () => {
  await poller.drain();
  stack.standIn.clear();
});

const create = (contractId: string, customerId: string = anna.customerId, key: string = randomUUID()) =>
  callHandler({ contractId, customerId, body: validBody(), headers: headersWithKey(key) });

/** A request made and withdrawn by its customer: the contract is free again, the request counts. */
async function madeAndWithdrawn(contractId: string, customerId: string = anna.customerId): Promise<HandlerAnswer> {
  const made = await create(contractId, customerId);
  expect(made.status).toBe(201);
  const withdrawn = await callHandler(withdrawalOf({ contractId, requestId: String(made.body['requestId']) }, customerId));
  expect(withdrawn.status).toBe(200);
  return made;
}

/** The second a request counts from: its creation, rounded up. */
const countedFrom = (iso: unknown) => Math.ceil(Date.parse(String(iso)) / 1000);

describe('the limit of requests per contract (5 in 30 days by default)', () => {
  it('lets a customer change their mind three times: four requests, each withdrawn, all created', async () => {
    const contractId = await newContract(stack.tables);
    for (let i = 0; i < 3; i++) await madeAndWithdrawn(contractId);
    expect((await create(contractId)).status).toBe(201);
  });

  it('refuses the sixth request in 30 days with 422 REQUEST_LIMIT_REACHED and the time a new one is possible, writing nothing', async () => {
    const contractId = await newContract(stack.tables);
    const first = await madeAndWithdrawn(contractId);
    for (let i = 0; i < 4; i++) await madeAndWithdrawn(contractId);
    const before = await stack.tables.contractItems(contractId);

    const refused = await callHandler({
      contractId,
      body: validBody(),
      headers: headersWithKey(randomUUID(), { 'Accept-Language': 'ru' }),
    });
    expect(refused.status).toBe(422);
    expect(refused.headers['Retry-After']).toBeUndefined();
    expect(refused.body).toMatchObject({
      errorCode: 'REQUEST_LIMIT_REACHED',
      details: [{ field: 'contractId', reason: expect.stringContaining('не более 5 заявок по договору за 30 дней') }],
    });
    // Thirty days after the first of the five, its creation rounded up to the second; the message names the same moment.
    const allowedAt = new Date((countedFrom(first.body['createdAt']) + 30 * DAY) * 1000);
    expect(refused.body['nextRequestAllowedAt']).toBe(allowedAt.toISOString());
    // ...as a customer reads it: the same second on the bank's business clock (Europe/Moscow by default).
    const businessTime = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Moscow', dateStyle: 'short', timeStyle: 'medium' }).format(
      allowedAt,
    );
    expect(refused.body['message']).toContain(businessTime);
    expect(await stack.tables.contractItems(contractId)).toEqual(before);
  });

  it('counts rejected requests too', async () => {
    const contractId = await newContract(stack.tables);
    for (let i = 0; i < 5; i++) {
      const made = await create(contractId);
      expect(made.status).toBe(201);
      const decided = await stack.decide(
        decisionEvent({ contractId, requestId: String(made.body['requestId']), status: 'REJECTED', reason: 'Not this time' }),
      );
      expect(decided.outcome).toBe('applied');
    }
    expect((await create(contractId)).body['errorCode']).toBe('REQUEST_LIMIT_REACHED');
  });

  it("does not count a previous owner's requests, nor the customer's on another contract", async () => {
    const contractId = await newContract(stack.tables);
    for (let i = 0; i < 5; i++) await madeAndWithdrawn(contractId);
    expect((await create(contractId)).body['errorCode']).toBe('REQUEST_LIMIT_REACHED');
    expect((await create(await newContract(stack.tables))).status).toBe(201);
    // The contract changes owner: Boris's first request is his first.
    await stack.tables.addContracts([{ contractId, customerId: boris.customerId, status: 'ACTIVE' }]);
    expect((await create(contractId, boris.customerId)).status).toBe(201);
  });

  it('still replays an accepted request with 200 once the limit is reached', async () => {
    const contractId = await newContract(stack.tables);
    for (let i = 0; i < 4; i++) await madeAndWithdrawn(contractId);
    const key = randomUUID();
    const last = await create(contractId, anna.customerId, key);
    expect(last.status).toBe(201);
    expect((await create(contractId)).status).toBe(409);
    await callHandler(withdrawalOf({ contractId, requestId: String(last.body['requestId']) }, anna.customerId));
    expect((await create(contractId)).body['errorCode']).toBe('REQUEST_LIMIT_REACHED');
    const again = await create(contractId, anna.customerId, key);
    expect(again.status).toBe(200);
    expect(again.raw).toBe(last.raw);
  });

  it('answers the refusal in one DynamoDB call: the transaction, refused with the limit record', async () => {
    const contractId = await newContract(stack.tables);
    for (let i = 0; i < 5; i++) await madeAndWithdrawn(contractId);
    const { answer, calls } = await callsDuring('create-termination-request', () => create(contractId));
    expect(answer.body['errorCode']).toBe('REQUEST_LIMIT_REACHED');
    expect(calls.map((call) => call.operation)).toEqual(['dynamodb:TransactWriteItems']);
  });

  it('keeps the record out of the contract list and the events: one item per customer and contract, expiring after the period', async () => {
    const contractId = await newContract(stack.tables);
    await madeAndWithdrawn(contractId);
    const made = await create(contractId);
    const listed = await callHandler({ method: 'GET', contractId });
    expect(listed.status).toBe(200);
    expect(listed.body['items']).toHaveLength(2);
    const [record, ...others] = ofKind(await stack.tables.contractItems(contractId), 'REQUEST_LIMIT');
    expect(others).toEqual([]);
    expect(record).toMatchObject({
      pk: `CONTRACT#${contractId}`,
      sk: `REQUEST_LIMIT#${anna.customerId}`,
      t0: countedFrom(made.body['createdAt']),
    });
    expect(record?.['expiresAt']).toBe(Number(record?.['t0']) + 30 * DAY);
    // The stream's filter, as deployed, lets none of its records through; the publisher sent one Submitted per request.
    for (const filter of streamFilterPatterns())
      expect(matchesPattern(filter, { dynamodb: { NewImage: marshall(record ?? {}) } })).toBe(false);
    await poller.drain();
    const kinds = stack.standIn.events.map((event) => event.detailType).sort();
    expect(kinds).toEqual(['TerminationRequestStatusChanged', 'TerminationRequestSubmitted', 'TerminationRequestSubmitted']);
  });
});

describe('the period, on a clock of its own (the use case on DynamoDB Local, 2 requests in 30 days)', () => {
  const at = (day: number) => new Date(Date.UTC(2030, 0, 1) + day * DAY * 1000);
  const deps = (time: number | Date) =>
    useCaseDeps(localDocumentClient(stack.tables.endpoint), stack.tables.names, {
      requestLimit: { count: 2, periodDays: 30 },
      now: () => (typeof time === 'number' ? at(time) : time),
    });
  const withdrawDeps = () => ({
    store: new DynamoDbTerminationStore(localDocumentClient(stack.tables.endpoint), stack.tables.names),
    idempotencyTtlSeconds: DAY,
    retention: { kind: 'days', days: 365 } as const,
    budgetMs: 2000,
  });

  /** A create on `time` (a day of the clock, or a moment), withdrawn at once when created, so that only the limit can refuse the next. */
  async function createOn(time: number | Date, contractId: string): Promise<CreateOutcome> {
    const outcome = await createTerminationRequest(deps(time), useCaseCall({ contractId }));
    if (outcome.kind === 'created') {
      const withdrawal = await withdrawTerminationRequest(withdrawDeps(), {
        customerId: anna.customerId,
        contractId,
        requestId: outcome.request.requestId,
        idempotencyKey: randomUUID(),
        context: { ...directContext(), messages: { created: String, withdrawn: () => 'withdrawn' } },
      });
      expect(withdrawal.kind).toBe('withdrawn');
    }
    return outcome;
  }

  it('refuses within the period until exactly the oldest counted request is a period old', async () => {
    const contractId = await newContract(stack.tables);
    expect((await createOn(0, contractId)).kind).toBe('created');
    expect((await createOn(10, contractId)).kind).toBe('created');
    const refused = await createOn(29.5, contractId);
    expect(refused).toMatchObject({
      kind: 'refused',
      refusal: { code: 'REQUEST_LIMIT_REACHED', nextRequestAllowedAt: at(30).toISOString() },
    });
    expect((await createOn(30, contractId)).kind).toBe('created');
    // Now days 10 and 30 count: the next is possible on day 40.
    expect(await createOn(39, contractId)).toMatchObject({ refusal: { nextRequestAllowedAt: at(40).toISOString() } });
    const { Item } = await stack.tables.doc.send(
      new GetCommand({ TableName: stack.tables.names.requests, Key: limitKeyOf(contractId, anna.customerId), ConsistentRead: true }),
    );
    expect([Item?.['t0'], Item?.['t1']]).toEqual([at(30).getTime() / 1000, at(10).getTime() / 1000]);
  });

  it('names as nextRequestAllowedAt the first moment a create is accepted, never before a period after the oldest request', async () => {
    const contractId = await newContract(stack.tables);
    const firstAt = new Date(at(0).getTime() + 149); // 149 ms past a whole second
    expect((await createOn(firstAt, contractId)).kind).toBe('created');
    expect((await createOn(1, contractId)).kind).toBe('created');
    const refused = await createOn(29, contractId);
    const allowedAt = refused.kind === 'refused' ? refused.refusal.nextRequestAllowedAt : undefined;
    // Rounded up: a period after the first request's second is over, not the second it began in.
    expect(allowedAt).toBe(new Date(at(30).getTime() + 1000).toISOString());
    const allowedMs = Date.parse(String(allowedAt));
    expect(allowedMs).toBeGreaterThanOrEqual(firstAt.getTime() + 30 * DAY * 1000);
    expect(await createOn(new Date(allowedMs - 1), contractId)).toMatchObject({
      kind: 'refused',
      refusal: { code: 'REQUEST_LIMIT_REACHED', nextRequestAllowedAt: allowedAt },
    });
    expect((await createOn(new Date(allowedMs), contractId)).kind).toBe('created');
  });
});
