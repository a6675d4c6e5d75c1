import { LOCAL_ACCOUNT_ID } from '../scripts/local/template-patterns';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, DynamoDBRecord, DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import { buildDecisionWrite } from '../lib/dynamodb/decision-write';
import { buildWithdrawalTransaction } from '../lib/dynamodb/withdrawal-write';
import { apiEvent } from '../scripts/local/api-event';
import { moveTo } from '../lib/termination/lifecycle';
import type { Decision } from '../lib/termination/ports/decision';
import { startAwsStandIn } from '../scripts/local/aws-stand-in';
import { startJwksServer } from '../scripts/local/jwks-server';
import { decisionEvent } from '../scripts/local/decision-event';
import { startStreamPoller } from '../scripts/local/stream-poller';
import { percentile, stops } from './measure';
import { table } from './report';

/*
 * The lifecycle's rows (docs/performance.md): applying a back-office decision (one DynamoDB
 * call, against the floor of the bare client sending the same write), and publishing the
 * stream (one BatchGetItem per batch that confirms its events against the table, one PutEvents
 * per batch of up to 10 events), through the functions' own code.
 */

export interface LifecycleBench {
  /** DynamoDB Local itself, for the stream. */
  directEndpoint: string;
  directClient: DynamoDBClient;
  floorClient: DynamoDBClient;
  requestsTable: string;
  /** The customer createRequest makes requests for: the one who withdraws them. */
  customerId: string;
  /** One new request made by the service's create handler, on a fresh contract. */
  createRequest: () => Promise<{ requestId: string; contractId: string }>;
  operations: () => string[];
  iterations: number;
  warmup: number;
}

type DecisionHandler = (event: EventBridgeEvent<string, unknown>) => Promise<{ outcome: string }>;
type PublishHandler = (event: DynamoDBStreamEvent) => Promise<unknown>;
type ApiHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

interface Timed {
  ms: number[];
  operations: string[][];
}

async function timed(times: number, warmup: number, run: (i: number) => Promise<void>, operations: () => string[]): Promise<Timed> {
  const result: Timed = { ms: [], operations: [] };
  for (let i = 0; i < warmup + times; i++) {
    const mark = operations().length;
    const began = performance.now();
    await run(i);
    if (i < warmup) continue;
    result.ms.push(performance.now() - began);
    result.operations.push(operations().slice(mark));
  }
  return result;
}

const describeOps = (t: Timed) => [...new Set(t.operations.map((ops) => ops.join('+')))].join(', ');
const callsPer = (t: Timed) => (t.operations.reduce((sum, ops) => sum + ops.length, 0) / t.operations.length).toFixed(2);
const ms = (values: number[], p: number) => percentile(values, p).toFixed(2);

export async function benchLifecycle(bench: LifecycleBench): Promise<string[]> {
  const standIn = await startAwsStandIn();
  stops.push(standIn.stop);
  // The local back office's keys: every decision is signed, and the consumer checks it.
  const jwks = await startJwksServer({ keys: [] }, 0);
  stops.push(jwks.stop);
  Object.assign(process.env, {
    DECISION_JWKS_URI: jwks.backOfficeUri,
    EVENT_BUS_NAME: 'bench-events',
    EVENTBRIDGE_ENDPOINT: standIn.endpoint,
    KMS_ENDPOINT: standIn.endpoint,
    EVENT_SIGNING_KEY_ID: standIn.kms.key.keyId,
    SQS_ENDPOINT: standIn.endpoint,
    DECISION_DEAD_LETTER_QUEUE_URL: `${standIn.endpoint}/000000000000/bench-dead-letters`,
    DECISION_ACCOUNT_ID: LOCAL_ACCOUNT_ID,
  });
  const decide: DecisionHandler = (await import('../functions/apply-status-decision')).handler;
  const publish: PublishHandler = (await import('../functions/publish-request-events')).handler;
  const withdraw: ApiHandler = (await import('../functions/withdraw-termination-request')).handler;

  // Everything the table's stream says from here on, for the publishing rows.
  const records: DynamoDBRecord[] = [];
  const poller = await startStreamPoller({
    client: bench.directClient,
    endpoint: bench.directEndpoint,
    tableName: bench.requestsTable,
    startingPosition: 'LATEST',
    deliver: (event) => {
      records.push(...event.Records);
      return Promise.resolve(undefined);
    },
    intervalMs: 20,
  });
  stops.push(poller.stop);

  const total = bench.warmup + bench.iterations;
  const requests = [];
  for (let i = 0; i < 4 * total; i++) requests.push(await bench.createRequest());
  const [serviceRequests, floorRequests] = [requests.slice(0, total), requests.slice(total, 2 * total)];
  const [withdrawnRequests, floorWithdrawn] = [requests.slice(2 * total, 3 * total), requests.slice(3 * total)];
  const outcomes: string[] = [];
  // Signed before the clock starts: signing is the back office's work; the consumer's check of the signature is timed.
  const decideOne = (status: Decision['status']) => {
    const events = serviceRequests.map((request) => decisionEvent({ ...request, status }));
    return async (i: number) => {
      const event = events[i];
      if (event === undefined) throw new Error('out of requests');
      outcomes.push((await decide(event)).outcome);
    };
  };
  const review = await timed(bench.iterations, bench.warmup, decideOne('IN_REVIEW'), bench.operations);
  const reject = await timed(bench.iterations, bench.warmup, decideOne('REJECTED'), bench.operations);
  if (outcomes.some((o) => o !== 'applied')) throw new Error(`decisions answered ${[...new Set(outcomes)].join(', ')}`);

  // The floor: the bare document client sending the very write the consumer builds.
  const floorDoc = DynamoDBDocumentClient.from(bench.floorClient, { marshallOptions: { removeUndefinedValues: true } });
  const consumed: Record<string, number> = {};
  const floorOne = (status: Decision['status']) => async (i: number) => {
    const request = floorRequests[i];
    if (request === undefined) throw new Error('out of requests');
    const decision: Decision = { ...request, eventId: randomUUID(), status, reason: undefined, occurredAt: new Date().toISOString() };
    const write = buildDecisionWrite({ requests: bench.requestsTable, contracts: '' }, decision, moveTo(status), new Date().toISOString());
    const answer =
      write.kind === 'update'
        ? await floorDoc.send(new UpdateCommand({ ...write.input, ReturnConsumedCapacity: 'TOTAL' }))
        : await floorDoc.send(new TransactWriteCommand({ ...write.input, ReturnConsumedCapacity: 'TOTAL' }));
    const capacity = [answer.ConsumedCapacity ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? c.WriteCapacityUnits ?? 0), 0);
    consumed[status] = capacity;
  };
  const floorReview = await timed(bench.iterations, bench.warmup, floorOne('IN_REVIEW'), bench.operations);
  const floorReject = await timed(bench.iterations, bench.warmup, floorOne('REJECTED'), bench.operations);

  // The customer's withdrawal (0018-withdrawal.md): the handler, against the bare client sending its transaction.
  const statuses: number[] = [];
  const withdrawal = await timed(
    bench.iterations,
    bench.warmup,
    async (i) => {
      const request = withdrawnRequests[i];
      if (request === undefined) throw new Error('out of requests');
      const event = apiEvent({
        method: 'POST',
        withdrawal: true,
        ...request,
        customerId: bench.customerId,
        headers: { 'Idempotency-Key': randomUUID() },
      });
      statuses.push((await withdraw(event)).statusCode);
    },
    bench.operations,
  );
  if (statuses.some((s) => s !== 200)) throw new Error(`withdrawals answered ${[...new Set(statuses)].join(', ')}`);
  const floorWithdrawal = await timed(
    bench.iterations,
    bench.warmup,
    async (i) => {
      const request = floorWithdrawn[i];
      if (request === undefined) throw new Error('out of requests');
      const withdrawnAt = new Date().toISOString();
      const { input } = buildWithdrawalTransaction(
        { requests: bench.requestsTable, contracts: '' },
        {
          ...request,
          customerId: bench.customerId,
          idempotencyKey: randomUUID(),
          fingerprint: 'bench',
          response: { requestId: request.requestId, status: 'WITHDRAWN', withdrawnAt, message: 'bench' },
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
          from: moveTo('WITHDRAWN').from,
          retainUntil: Math.floor(Date.now() / 1000) + 1827 * 86_400,
        },
        Math.floor(Date.now() / 1000),
      );
      const answer = await floorDoc.send(new TransactWriteCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
      consumed['WITHDRAWN'] = [answer.ConsumedCapacity ?? []]
        .flat()
        .reduce((sum, c) => sum + (c.CapacityUnits ?? c.WriteCapacityUnits ?? 0), 0);
    },
    bench.operations,
  );

  const decisionRows = [
    ['IN_REVIEW (not final)', review, floorReview, consumed['IN_REVIEW']],
    ['REJECTED (final: slot released)', reject, floorReject, consumed['REJECTED']],
    ['WITHDRAWN by the customer (final: slot released, key kept)', withdrawal, floorWithdrawal, consumed['WITHDRAWN']],
  ] as const;
  const decisions = table(
    'Applying a decision: the consumer (service code) against the bare client sending the same write',
    ['decision', 'DynamoDB operations per decision', 'calls', 'p50 ms', 'p99 ms', 'floor p50 ms', 'p50/floor', 'WRU'],
    decisionRows.map(([name, service, floor, wru]) => [
      name,
      describeOps(service),
      callsPer(service),
      ms(service.ms, 50),
      ms(service.ms, 99),
      ms(floor.ms, 50),
      `${(percentile(service.ms, 50) / percentile(floor.ms, 50)).toFixed(2)}x`,
      String(wru ?? '?'),
    ]),
  );

  // Publishing: the stream's records in Lambda's batches of 100, through the publisher.
  await poller.drain();
  const batches: DynamoDBRecord[][] = [];
  for (let i = 0; i < records.length; i += 100) batches.push(records.slice(i, i + 100));
  standIn.clear();
  const perBatch: { records: number; events: number; calls: number[]; reads: string[]; requests: number; ms: number; signingMs: number }[] =
    [];
  for (const batch of batches) {
    const [eventsBefore, callsBefore, readsBefore] = [standIn.events.length, standIn.putEventsCalls.length, bench.operations().length];
    const signsBefore = standIn.kms.signSpans.length;
    const began = performance.now();
    const answer = await publish({ Records: batch });
    const took = performance.now() - began;
    if (JSON.stringify(answer) !== JSON.stringify({ batchItemFailures: [] }))
      throw new Error(`publishing answered ${JSON.stringify(answer)}`);
    perBatch.push({
      records: batch.length,
      events: standIn.events.length - eventsBefore,
      calls: standIn.putEventsCalls.slice(callsBefore),
      // The DynamoDB calls that confirmed the batch, and the request items they read (1 RRU each up to 4 KB).
      reads: bench.operations().slice(readsBefore),
      requests: new Set(
        batch
          .filter((r) => r.eventName !== 'REMOVE' && r.dynamodb?.NewImage?.['kind']?.S === 'REQUEST')
          .map((r) => r.dynamodb?.NewImage?.['requestId']?.S),
      ).size,
      ms: took,
      // From the batch's first Sign to its last answer: its events are signed ten at a time.
      signingMs: (() => {
        const spans = standIn.kms.signSpans.slice(signsBefore);
        return spans.length === 0 ? 0 : Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
      })(),
    });
  }
  const events = perBatch.reduce((sum, b) => sum + b.events, 0);
  const calls = perBatch.flatMap((b) => b.calls);
  const expected = perBatch.reduce((sum, b) => sum + Math.ceil(b.events / 10), 0);
  const reads = perBatch.flatMap((b) => b.reads);
  const readsPerBatch = perBatch.map((b) => b.reads.length);
  const requestsPerBatch = perBatch.map((b) => b.requests);
  const publishing = table(
    "Publishing the stream: the requests table's records (creates and decisions) in batches of 100, through the publisher, each event confirmed against its request item",
    [
      'records',
      'batches',
      'events published',
      'DynamoDB calls per batch',
      'requests read per batch (RRU)',
      'PutEvents calls',
      'ceil(events/10) per batch, summed',
      'largest call',
      'p50 ms per batch',
      'p50 ms signing per batch (KMS stand-in)',
    ],
    [
      [
        String(records.length),
        String(batches.length),
        String(events),
        `${Math.min(...readsPerBatch)}-${Math.max(...readsPerBatch)} (${[...new Set(reads)].join(', ')})`,
        `${Math.min(...requestsPerBatch)}-${Math.max(...requestsPerBatch)}`,
        String(calls.length),
        String(expected),
        `${Math.max(...calls)} entries`,
        ms(
          perBatch.map((b) => b.ms),
          50,
        ),
        ms(
          perBatch.map((b) => b.signingMs),
          50,
        ),
      ],
    ],
  );
  const verdict = (met: boolean) => (met ? 'MET' : 'MISSED');
  const oneCall = [review, reject].every((t) => t.operations.every((ops) => ops.length === 1));
  const oneWithdrawalCall = withdrawal.operations.every((ops) => ops.length === 1);
  const targets = table(
    'Lifecycle targets',
    ['target', 'measured', 'result'],
    [
      ['a decision = 1 DynamoDB call', `IN_REVIEW ${callsPer(review)}, REJECTED ${callsPer(reject)}`, verdict(oneCall)],
      ['a withdrawal = 1 DynamoDB call', `WITHDRAWN ${callsPer(withdrawal)}`, verdict(oneWithdrawalCall)],
      [
        'confirming = at most 1 DynamoDB call per batch',
        `${reads.length} calls (${[...new Set(reads)].join(', ')}) for ${batches.length} batches, at most ${Math.max(...readsPerBatch)} per batch`,
        verdict(Math.max(...readsPerBatch) <= 1),
      ],
      [
        'publishing = 1 PutEvents per batch of up to 10 events',
        `${calls.length} calls for ${events} events (${expected} expected), largest ${Math.max(...calls)}`,
        verdict(calls.length === expected && Math.max(...calls) <= 10),
      ],
    ],
  );
  return [decisions, publishing, targets];
}
