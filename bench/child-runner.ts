import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { apiEvent } from '../scripts/local/api-event';

/*
 * Runs in a fresh `node` process and reports lines "BENCH {json}". Bundled by the bench for plain
 * node: BENCH_MODE=cold imports BENCH_BUNDLE and calls its handler once with BENCH_EVENT; times
 * count from the process's start (performance.now()'s origin). BENCH_MODE=memory invokes the
 * create bundle BENCH_INVOCATIONS times in a row, as one Lambda environment would, and after two
 * full GCs at each checkpoint reports RSS and V8's heap spaces. Run as is under tsx (so that
 * BENCH_BUNDLE may be a function's TypeScript source): BENCH_MODE=latency calls the handler alone,
 * as one Lambda environment runs one function, BENCH_WARMUP + BENCH_ITERATIONS times with the
 * events of BENCH_EVENTS_FILE in turn, each answer BENCH_EXPECT, its logs dropped, and reports the
 * timed calls' p50 and p99.
 */

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
const isHandler = (value: unknown): value is Handler => typeof value === 'function';
const env = (name: string) => process.env[name] ?? '';

/** The answer's HTTP status; an authorizer's policy counts as 200. */
function statusOf(result: unknown): number {
  if (typeof result !== 'object' || result === null) return 0;
  if ('statusCode' in result && typeof result.statusCode === 'number') return result.statusCode;
  return 'principalId' in result ? 200 : 0;
}

const write = process.stdout.write.bind(process.stdout);
const report = (values: Record<string, number>) => write(`BENCH ${JSON.stringify(values)}\n`);
if (env('BENCH_MODE') === 'latency') {
  // As in the bench's own process: the handler's log and EMF lines are dropped, not piped.
  process.stdout.write = (_chunk: unknown, ...rest: unknown[]): boolean => {
    const done = rest.find((arg) => typeof arg === 'function');
    if (typeof done === 'function')
      queueMicrotask(() => {
        Reflect.apply(done, undefined, [null]);
      });
    return true;
  };
}

const started = performance.now();
const mod: unknown = await import(pathToFileURL(env('BENCH_BUNDLE')).href);
const imported = performance.now();
if (typeof mod !== 'object' || mod === null || !('handler' in mod) || !isHandler(mod.handler)) throw new Error('no handler exported');
const handler = mod.handler;
const context = { functionName: 'bench', awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 };

if (env('BENCH_MODE') === 'latency') {
  const parsed: unknown = JSON.parse(readFileSync(env('BENCH_EVENTS_FILE'), 'utf8'));
  const events: unknown[] = Array.isArray(parsed) ? parsed : [];
  const [warmup, iterations, expected] = ['BENCH_WARMUP', 'BENCH_ITERATIONS', 'BENCH_EXPECT'].map((name) => Number(env(name)));
  const ms: number[] = [];
  for (let i = 0; i < (warmup ?? 0) + (iterations ?? 0); i++) {
    const event = events[i % events.length];
    const callStarted = performance.now();
    const status = statusOf(await handler(event, context));
    const took = performance.now() - callStarted;
    if (status !== expected) throw new Error(`call ${i} answered ${status}, expected ${expected}`);
    if (i >= (warmup ?? 0)) ms.push(took);
  }
  ms.sort((a, b) => a - b);
  const at = (p: number) => ms[Math.max(0, Math.ceil((p / 100) * ms.length) - 1)] ?? Number.NaN;
  report({ p50: at(50), p99: at(99), calls: ms.length });
} else if (env('BENCH_MODE') === 'cold') {
  const status = statusOf(await handler(JSON.parse(env('BENCH_EVENT')), context));
  const answered = performance.now();
  report({ importMs: imported - started, firstCallMs: answered - imported, firstAnswerMs: answered, status });
} else {
  const [replayContract = '', replayKey = ''] = env('BENCH_REPLAY').split(',');
  const fresh = env('BENCH_FRESH').split(',');
  const [valid, afterEnd, badAccount, badFields] = ['', '_AFTER_END', '_BAD_ACCOUNT', '_BAD_FIELDS'].map((s) => env(`BENCH_BODY${s}`));
  const call = (contractId: string, rawBody = valid, key: string = randomUUID()) =>
    apiEvent({
      customerId: env('BENCH_CUSTOMER'),
      contractId,
      rawBody,
      headers: { 'Idempotency-Key': key, 'X-Correlation-Id': randomUUID() },
    });
  // Calls cycle through the service's answers; every 50th is a create, so the table stays small.
  const next = (i: number): [unknown, number] => {
    if (i % 50 === 49) return [call(fresh[Math.floor(i / 50)] ?? ''), 201];
    switch (i % 6) {
      case 0:
        return [call(replayContract, valid, replayKey), 200];
      case 1:
        return [call(replayContract), 409];
      case 2:
        return [call(env('BENCH_CLOSED')), 422];
      case 3:
        return [call(replayContract, badFields), 400];
      case 4:
        return [call(env('BENCH_END_DATE'), afterEnd), 422];
      default:
        return [call(replayContract, badAccount), 422];
    }
  };
  const collect = globalThis.gc;
  if (!collect) throw new Error('run with --expose-gc');
  const invocations = Number(env('BENCH_INVOCATIONS'));
  const checkpoints = new Set([100, 1000, Math.round(invocations / 4), Math.round(invocations / 2), invocations]);
  const statuses: Record<string, number> = {};
  for (let i = 0; i < invocations; i++) {
    const [event, expected] = next(i);
    const status = statusOf(await handler(event, context));
    if (status !== expected) throw new Error(`call ${i} answered ${status}, expected ${expected}`);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (!checkpoints.has(i + 1) || i + 1 < 100) continue;
    collect();
    collect();
    const { rss, heapUsed, external } = process.memoryUsage();
    const space = (name: string) => getHeapSpaceStatistics().find((s) => s.space_name === name);
    const oldSpace = space('old_space')?.space_used_size ?? 0;
    report({
      invocations: i + 1,
      rss,
      heapUsed,
      oldSpace,
      newSpace: space('new_space')?.space_size ?? 0,
      codeSpace: space('code_space')?.space_size ?? 0,
      external,
    });
  }
  report(statuses);
}
process.exit(0);
