import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf } from '../../lib/events/request-events';
import { isFinal } from '../../lib/termination/lifecycle';
import { isStatus } from '../../lib/api-model/schemas';
import { requestKeyOf } from '../../lib/dynamodb/keys';
import { decisionEvent, type DecisionOptions } from '../../scripts/local/decision-event';
import type { StreamPoller } from '../../scripts/local/stream-poller';
import { headersWithKey, validBody } from '../support/bodies';
import { callHandler, withdrawalOf } from '../support/handler';
import { ofKind } from '../support/local-tables';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { scale } from './scale';

/*
 * Races of the lifecycle (docs/reliability.md): a final decision racing new creations on the
 * same contract, decisions sent several times at once, decisions that arrive out of order, and
 * (every other REJECTED round) the customer's withdrawal racing the final decision.
 * A sampler reads each contract's partition all along; after each round the stream is drained
 * and the events compared with what committed. Through the real handlers, on DynamoDB Local
 * with its stream.
 */

const customerId = 'lifecycle-race-customer';
const CREATIONS_PER_ROUND = 6;
const DUPLICATES_PER_DECISION = 3;

const figures = {
  rounds: 0,
  creationsTried: 0,
  created: 0,
  refused409: 0,
  decisionsSent: 0,
  applied: 0,
  duplicates: 0,
  deadLettered: 0,
  samples: 0,
  maxActiveSeen: 0,
  invariantViolations: 0,
  submittedEvents: 0,
  statusChangedEvents: 0,
  eventsLost: 0,
  eventsDoubled: 0,
  fiveHundreds: 0,
  withdrawalsSent: 0,
  withdrawn: 0,
  withdrawalsRefused409: 0,
};

/** Every decision's outcome by the status it asked for, e.g. `REJECTED:duplicate`. */
const outcomes = new Map<string, number>();
let stack: LifecycleStack;
let poller: StreamPoller;
const started = Date.now();

beforeAll(async () => {
  stack = await useLifecycleStack();
  poller = await stack.startPublishing();
  // Loaded before the races, so that its first call does not lose them by its import alone.
  await import('../../functions/withdraw-termination-request');
});

afterAll(async () => {
  await stack.stop();
  mkdirSync('.local', { recursive: true });
  writeFileSync(
    `.local/reliability-lifecycle-${scale.name}.json`,
    JSON.stringify(
      { ...figures, outcomes: Object.fromEntries(outcomes), scale: scale.name, seconds: (Date.now() - started) / 1000 },
      null,
      2,
    ),
  );
});

/** The contract's requests and slot, read consistently in one Query of its partition. */
async function partition(contractId: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await stack.tables.doc.send(
    new QueryCommand({
      TableName: stack.tables.names.requests,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': requestKeyOf(contractId, '').pk },
      ConsistentRead: true,
    }),
  );
  return Items;
}

/** At most one active request, and the slot names it; no slot when none is active. */
function partitionViolations(items: Record<string, unknown>[]): string[] {
  const requests = ofKind(items, 'REQUEST');
  const active = requests.filter((r) => isStatus(r['status']) && !isFinal(r['status']));
  const slot = ofKind(items, 'ACTIVE_SLOT')[0];
  figures.maxActiveSeen = Math.max(figures.maxActiveSeen, active.length);
  const violations: string[] = [];
  if (active.length > 1) violations.push(`${active.length} active requests`);
  if (active.length === 1 && slot?.['requestId'] !== active[0]?.['requestId']) violations.push('the slot does not name the active request');
  if (active.length === 0 && slot !== undefined) violations.push('a slot without an active request');
  return violations;
}

async function create(contractId: string): Promise<{ status: number; requestId?: string }> {
  figures.creationsTried++;
  const answer = await callHandler({ contractId, customerId, body: validBody(), headers: headersWithKey() });
  if (answer.status >= 500) figures.fiveHundreds++;
  if (answer.status === 201) figures.created++;
  if (answer.status === 409) figures.refused409++;
  return answer.status === 201 ? { status: 201, requestId: String(answer.body['requestId']) } : { status: answer.status };
}

async function decide(options: DecisionOptions, eventId?: string): Promise<string> {
  figures.decisionsSent++;
  const { outcome } = await stack.decide(decisionEvent({ ...options, ...(eventId === undefined ? {} : { eventId }) }));
  if (outcome === 'applied') figures.applied++;
  else if (outcome === 'duplicate') figures.duplicates++;
  else figures.deadLettered++;
  const tally = `${options.status}:${outcome}`;
  outcomes.set(tally, (outcomes.get(tally) ?? 0) + 1);
  return outcome;
}

/** The customer withdraws (0018-withdrawal.md): the answer's status and body. */
async function withdraw(contractId: string, requestId: string, key: string): Promise<{ status: number; raw: string }> {
  figures.withdrawalsSent++;
  const answer = await callHandler(withdrawalOf({ contractId, requestId }, customerId, key));
  if (answer.status >= 500) figures.fiveHundreds++;
  if (answer.status === 409) figures.withdrawalsRefused409++;
  return { status: answer.status, raw: answer.raw };
}

/** Reads the partition again and again until `until` settles, counting what it sees. */
async function sample(contractId: string, until: Promise<unknown>): Promise<string[]> {
  let done = false;
  void until.finally(() => (done = true));
  const violations: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set when `until` settles, in another turn
  while (!done) {
    figures.samples++;
    violations.push(...partitionViolations(await partition(contractId)));
  }
  return violations;
}

/** One round on a fresh contract; returns what went wrong. */
async function round(index: number): Promise<string[]> {
  figures.rounds++;
  const contractId = randomUUID();
  await stack.tables.addContracts([{ contractId, customerId, status: 'ACTIVE' }]);
  const first = await create(contractId);
  if (first.requestId === undefined) return [`round ${index}: the first creation answered ${first.status}`];
  const requestId = first.requestId;
  const final = index % 2 === 0 ? 'REJECTED' : 'COMPLETED';
  // Every other REJECTED round the customer withdraws while the final decision lands: one key
  // sent several times at once, and a second key, racing the back office and the creations.
  const withdrawing = index % 4 === 2;
  const key = randomUUID();
  const otherKey = randomUUID();

  // The back office's history: IN_REVIEW (racing APPROVED, on COMPLETED rounds: out of order),
  // then the final status; each sent several times at once with one id, and IN_REVIEW again late.
  const review = randomUUID();
  const approve = randomUUID();
  const finish = randomUUID();
  const race = Promise.all([
    ...Array.from({ length: DUPLICATES_PER_DECISION }, () => decide({ requestId, contractId, status: 'IN_REVIEW' }, review)),
    ...(final === 'COMPLETED'
      ? Array.from({ length: DUPLICATES_PER_DECISION }, () => decide({ requestId, contractId, status: 'APPROVED' }, approve))
      : []),
  ]).then(async () => {
    const withdrawals = withdrawing
      ? [
          ...Array.from({ length: DUPLICATES_PER_DECISION }, () => withdraw(contractId, requestId, key)),
          withdraw(contractId, requestId, otherKey),
        ]
      : [];
    // Half the withdrawing rounds give the customer a head start, so that the withdrawal wins
    // there and the decision meets a final status; in the others both start at once.
    if (withdrawing && index % 8 === 2) await sleep(30);
    const finals = Array.from({ length: DUPLICATES_PER_DECISION }, () => decide({ requestId, contractId, status: final }, finish));
    const creations = Array.from({ length: CREATIONS_PER_ROUND }, () => create(contractId));
    // Out of order: IN_REVIEW again under a new id, while the final status lands.
    const late = decide({ requestId, contractId, status: 'IN_REVIEW' });
    return {
      finals: await Promise.all(finals),
      withdrawals: await Promise.all(withdrawals),
      creations: await Promise.all(creations),
      late: await late,
    };
  });
  const violations = await sample(contractId, race);
  const { finals, withdrawals, creations } = await race;

  // One final move wins: the back office's, or one withdrawal key's; the same key answers alike.
  const appliedFinals = finals.filter((o) => o === 'applied').length;
  const withdrawnKeys = new Set(withdrawals.filter((w) => w.status === 200).map((w) => w.raw)).size;
  figures.withdrawn += withdrawnKeys;
  if (appliedFinals + withdrawnKeys !== 1) violations.push(`final applied ${appliedFinals} times, withdrawn ${withdrawnKeys} times`);
  const sameKey = withdrawals.slice(0, DUPLICATES_PER_DECISION);
  // A 200 is the same bytes every time; a 409 carries each call's own correlation id.
  if (new Set(sameKey.map((w) => (w.status === 200 ? w.raw : String(w.status)))).size > 1)
    violations.push(`one withdrawal key answered differently: ${sameKey.map((w) => w.status).join(',')}`);
  if (withdrawals.some((w) => w.status !== 200 && w.status !== 409))
    violations.push(`withdrawals answered ${withdrawals.map((w) => w.status).join(',')}`);
  if (creations.filter((c) => c.status === 201).length > 1) violations.push('two creations succeeded after one release');
  if (creations.some((c) => c.status !== 201 && c.status !== 409))
    violations.push(`creations answered ${creations.map((c) => c.status).join(',')}`);

  // Events: exactly one per committed write.
  await poller.drain();
  const items = await partition(contractId);
  violations.push(...partitionViolations(items));
  const requests = ofKind(items, 'REQUEST');
  const expectedIds = requests.flatMap((r) => {
    const id = String(r['requestId']);
    const history = Array.isArray(r['statusHistory']) ? r['statusHistory'] : [];
    return [
      eventIdOf(id, 'SUBMITTED'),
      ...history.map((h: unknown) => eventIdOf(id, h !== null && typeof h === 'object' && 'status' in h ? String(h.status) : '')),
    ];
  });
  const publishedIds = stack.standIn.events
    .map((e) => e.detail)
    .filter(
      (d): d is { eventId: string; contractId: string } =>
        d !== null && typeof d === 'object' && 'contractId' in d && d.contractId === contractId,
    )
    .flatMap((d) => ('eventId' in d ? [d.eventId] : []));
  for (const id of expectedIds) {
    const count = publishedIds.filter((p) => p === id).length;
    if (count === 0) figures.eventsLost++;
    if (count > 1) figures.eventsDoubled += count - 1;
  }
  const unexpected = publishedIds.filter((id) => !expectedIds.includes(id));
  if (unexpected.length > 0) violations.push(`${unexpected.length} events for writes that did not commit`);
  figures.submittedEvents += requests.length;
  figures.statusChangedEvents += expectedIds.length - requests.length;
  return violations.map((v) => `round ${index}: ${v}`);
}

describe('lifecycle races', () => {
  const rounds = scale.name === 'heavy' ? 120 : 8;
  it(`final statuses and withdrawals racing new creations, duplicated and late decisions (${rounds} rounds): one active request at every moment, every event once`, async () => {
    const violations: string[] = [];
    for (let i = 0; i < rounds; i++) violations.push(...(await round(i)));
    figures.invariantViolations = violations.length;
    expect(violations).toEqual([]);
    expect(figures.eventsLost).toBe(0);
    expect(figures.eventsDoubled).toBe(0);
    expect(figures.fiveHundreds).toBe(0);
    // The races really raced: releases let creations through, and duplicates were met.
    expect(figures.created).toBeGreaterThan(rounds);
    expect(figures.duplicates).toBeGreaterThan(0);
    expect(figures.samples).toBeGreaterThan(rounds);
    expect(stack.unpublished).toEqual([]);
    // Only decisions that would move a request back are refused: IN_REVIEW after APPROVED or a
    // final status, and a final decision that lost to the customer's withdrawal.
    const refused = [...outcomes.keys()].filter((key) => !/:(applied|duplicate)$/.test(key)).sort();
    expect(
      refused.filter(
        (key) =>
          key !== 'IN_REVIEW:forbidden-transition' && key !== 'REJECTED:forbidden-transition' && key !== 'COMPLETED:forbidden-transition',
      ),
    ).toEqual([]);
    expect(figures.withdrawalsSent).toBeGreaterThan(0);
    expect(figures.withdrawn).toBeGreaterThan(0);
  }, 600_000);
});
