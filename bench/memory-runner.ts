import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { apiEvent, bodyOf, lambdaContext, statusOf, type CallOptions } from './api-event';

/*
 * Runs in its own `node --expose-gc` process (bundled by the bench): imports the create bundle
 * and invokes it BENCH_INVOCATIONS times, one after the other as one Lambda environment would,
 * cycling through replay, 409, closed-contract 422, 400 validation, date-after-end 422 and 422
 * control key and, every 50th call, a create on a fresh contract, so the table stays small. After a full GC at each checkpoint it
 * records RSS and heap, and prints them as one JSON line.
 */

export interface MemoryPlan {
  bundle: string;
  invocations: number;
  checkpoints: number[];
  customerId: string;
  replay: CallOptions;
  closedContract: string;
  endDateContract: string;
  freshContracts: string[];
  bodies: { valid: unknown; afterEnd: unknown; badAccount: unknown; badFields: unknown };
}

export interface MemorySample {
  invocations: number;
  rssBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
  /** Live objects that survived into V8's old generation: where a leak would show. */
  oldSpaceUsedBytes: number;
  /** Size V8 gave its young generation (it grows with allocation rate, up to --max-semi-space-size). */
  newSpaceBytes: number;
  codeSpaceBytes: number;
}

function readPlan(): MemoryPlan {
  const raw: unknown = JSON.parse(process.env['BENCH_MEMORY_PLAN'] ?? 'null');
  if (raw === null || typeof raw !== 'object') throw new Error('BENCH_MEMORY_PLAN is missing');
  const get = (key: string): unknown => Reflect.get(raw, key);
  const strings = (key: string) => {
    const value = get(key);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  };
  const numbers = (key: string) => {
    const value = get(key);
    return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
  };
  const text = (key: string) => String(get(key));
  const replay: unknown = get('replay');
  const bodies: unknown = get('bodies');
  if (replay === null || typeof replay !== 'object' || bodies === null || typeof bodies !== 'object')
    throw new Error('BENCH_MEMORY_PLAN is incomplete');
  return {
    bundle: text('bundle'),
    invocations: Number(get('invocations')),
    checkpoints: numbers('checkpoints'),
    customerId: text('customerId'),
    replay: {
      customerId: String(Reflect.get(replay, 'customerId')),
      contractId: String(Reflect.get(replay, 'contractId')),
      idempotencyKey: String(Reflect.get(replay, 'idempotencyKey')),
      body: Reflect.get(replay, 'body'),
    },
    closedContract: text('closedContract'),
    endDateContract: text('endDateContract'),
    freshContracts: strings('freshContracts'),
    bodies: {
      valid: Reflect.get(bodies, 'valid'),
      afterEnd: Reflect.get(bodies, 'afterEnd'),
      badAccount: Reflect.get(bodies, 'badAccount'),
      badFields: Reflect.get(bodies, 'badFields'),
    },
  };
}

const plan = readPlan();
const mod: unknown = await import(pathToFileURL(plan.bundle).href);
const handler: unknown = mod !== null && typeof mod === 'object' ? Reflect.get(mod, 'handler') : undefined;
if (typeof handler !== 'function') throw new Error(`${plan.bundle} exports no handler`);
const collect = globalThis.gc;
if (!collect) throw new Error('run with --expose-gc');

const fresh = (contractId: string, body: unknown = plan.bodies.valid) => ({
  customerId: plan.customerId,
  contractId,
  idempotencyKey: randomUUID(),
  body,
});
let nextContract = 0;

/** Four of six calls go to DynamoDB; the other two are refused before it (400, 422 control key). */
function nextCall(i: number): { call: CallOptions; expect: number } {
  if (i % 50 === 49) {
    const contractId = plan.freshContracts[nextContract++];
    if (contractId === undefined) throw new Error('memory run: out of fresh contracts');
    return { call: fresh(contractId), expect: 201 };
  }
  switch (i % 6) {
    case 0:
      return { call: plan.replay, expect: 200 };
    case 1:
      return { call: fresh(plan.replay.contractId), expect: 409 };
    case 2:
      return { call: fresh(plan.closedContract), expect: 422 };
    case 3:
      return { call: fresh(plan.replay.contractId, plan.bodies.badFields), expect: 400 };
    case 4:
      return { call: fresh(plan.endDateContract, plan.bodies.afterEnd), expect: 422 };
    default:
      return { call: fresh(plan.replay.contractId, plan.bodies.badAccount), expect: 422 };
  }
}

const samples: MemorySample[] = [];
const statuses: Record<string, number> = {};
for (let i = 0; i < plan.invocations; i++) {
  const { call, expect } = nextCall(i);
  const result: unknown = await handler(apiEvent(call), lambdaContext('memory'));
  const status = statusOf(result);
  if (status !== expect) throw new Error(`memory run: call ${i} answered ${status}, expected ${expect}: ${bodyOf(result).slice(0, 200)}`);
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (plan.checkpoints.includes(i + 1)) {
    collect();
    collect();
    const usage = process.memoryUsage();
    const space = (name: string) => getHeapSpaceStatistics().find((s) => s.space_name === name);
    samples.push({
      invocations: i + 1,
      rssBytes: usage.rss,
      heapUsedBytes: usage.heapUsed,
      externalBytes: usage.external,
      oldSpaceUsedBytes: space('old_space')?.space_used_size ?? 0,
      newSpaceBytes: space('new_space')?.space_size ?? 0,
      codeSpaceBytes: space('code_space')?.space_size ?? 0,
    });
  }
}
process.stdout.write(`${JSON.stringify({ samples, statuses })}\n`);
process.exit(0);
