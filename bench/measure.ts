import { spawn } from 'node:child_process';
import { verify, type KeyObject } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { authorizerEvent } from '../scripts/local/api-event';

/** What the bench started, stopped in reverse order on the way out: success, error or Ctrl-C. */
export const stops: (() => unknown)[] = [];

let stopping: Promise<void> | undefined;
export function stopAll(): Promise<void> {
  stopping ??= (async () => {
    for (const stop of stops.splice(0).reverse()) {
      await Promise.resolve()
        .then(stop)
        .catch((error: unknown) => console.error('bench: while stopping:', error));
    }
  })();
  return stopping;
}

export const percentile = (values: number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)] ?? Number.NaN;

export function statusOf(result: unknown): number {
  return typeof result === 'object' && result !== null && 'statusCode' in result && typeof result.statusCode === 'number'
    ? result.statusCode
    : 0;
}

/**
 * An HTTP proxy in front of DynamoDB Local: records the operation (X-Amz-Target) of every round
 * trip, retries included, whatever client or bundle sent it; sums the time each spends at the
 * DynamoDB end; and can hold each one delayMs first, standing in for the distance to a region.
 */
export async function startProxy(target: string) {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const proxy = { endpoint: '', operations: new Array<string>(), busyMs: 0, delayMs: 0 };
  const server = createServer((req, res) => {
    const arrived = performance.now();
    res.once('finish', () => (proxy.busyMs += performance.now() - arrived));
    proxy.operations.push(String(req.headers['x-amz-target']).replace(/^DynamoDB_\d+\./, ''));
    // No timer at all without a delay: even a 0 ms one would add about a millisecond.
    if (proxy.delayMs > 0) void sleep(proxy.delayMs).then(() => forwardTo(req, res));
    else forwardTo(req, res);
  });
  const forwardTo = (req: IncomingMessage, res: ServerResponse) => {
    const options = { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent };
    const forward = request(options, (answer) => answer.pipe(res.writeHead(answer.statusCode ?? 502, answer.headers)));
    forward.on('error', (error) => res.destroy(error));
    req.pipe(forward);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  proxy.endpoint = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  stops.push(() => {
    server.closeAllConnections();
    server.close();
    agent.destroy();
  });
  return proxy;
}

export type Impl = 'floor' | 'service' | 'peer';

export interface Row {
  path: string;
  impl: Impl;
  /** Expected HTTP status; 0 for the floor, which is no handler. */
  expect: number;
  /** Makes one call (event, keys, contract) outside the timed part. */
  prepare: () => () => Promise<unknown>;
}

export interface Counters {
  http: () => number;
  dynamoDbMs: () => number;
  sdk: () => number;
  stdoutBytes: () => number;
  operationsSince: (httpMark: number) => string[];
}

export interface Result {
  row: Row;
  p50: number;
  p99: number;
  /** p50 of the part of a call not spent at the DynamoDB end. */
  outsideP50: number;
  http: number[];
  sdk: number[] | undefined;
  stdoutBytes: number;
  operations: string;
}

/**
 * Every row once per round, round after round, so drift hits all rows alike. Calls never
 * overlap: each is timed alone and its DynamoDB calls are the counters' difference around it.
 */
export async function measureLatency(rows: Row[], counters: Counters, warmup: number, iterations: number): Promise<Result[]> {
  const samples = rows.map(() => ({
    ms: new Array<number>(),
    outside: new Array<number>(),
    http: new Array<number>(),
    sdk: new Array<number>(),
    stdout: 0,
    operations: '',
  }));
  for (let round = 0; round < warmup + iterations; round++) {
    for (const [i, row] of rows.entries()) {
      const call = row.prepare();
      const [http, dynamoDbMs, sdk, stdout] = [counters.http(), counters.dynamoDbMs(), counters.sdk(), counters.stdoutBytes()];
      const started = performance.now();
      const result = await call();
      const ms = performance.now() - started;
      if (statusOf(result) !== row.expect)
        throw new Error(`${row.impl} ${row.path} answered ${JSON.stringify(result)}, expected ${row.expect}`);
      const sample = samples[i];
      if (round < warmup || !sample) continue;
      sample.ms.push(ms);
      sample.outside.push(ms - (counters.dynamoDbMs() - dynamoDbMs));
      sample.http.push(counters.http() - http);
      sample.sdk.push(counters.sdk() - sdk);
      sample.stdout += (counters.stdoutBytes() - stdout) / iterations;
      if (round === warmup) sample.operations = counters.operationsSince(http).join('+');
    }
  }
  return rows.map((row, i) => {
    const s = samples[i] ?? { ms: [], outside: [], http: [], sdk: [], stdout: 0, operations: '' };
    return {
      row,
      p50: percentile(s.ms, 50),
      p99: percentile(s.ms, 99),
      outsideP50: percentile(s.outside, 50),
      http: s.http,
      sdk: s.sdk,
      stdoutBytes: s.stdout,
      operations: s.operations,
    };
  });
}

async function timed(iterations: number, call: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await call();
    ms.push(performance.now() - started);
  }
  return ms;
}

/**
 * functions/authorize-customer.ts in this process (its env set by the caller), every fetch
 * counted; its floor is the RS256 signature check alone, with a ready key.
 */
export async function measureAuthorizer(token: string, publicKey: KeyObject, principal: string, iterations: number) {
  let fetches = 0;
  const originalFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    fetches++;
    return originalFetch(input, init);
  };
  try {
    const { handler } = await import('../functions/authorize-customer');
    const atImport = fetches;
    const event = authorizerEvent(`Bearer ${token}`);
    const [firstMs = Number.NaN] = await timed(1, async () => {
      if ((await handler(event)).principalId !== principal) throw new Error('the authorizer refused the bench token');
    });
    const onFirstCall = fetches - atImport;
    const warm = await timed(iterations, () => handler(event));
    const [header = '', payload = '', signature = ''] = token.split('.');
    const [signed, signatureBytes] = [Buffer.from(`${header}.${payload}`), Buffer.from(signature, 'base64url')];
    const bare: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const started = performance.now();
      if (!verify('sha256', signed, publicKey, signatureBytes)) throw new Error('bare RS256 verify failed');
      bare.push(performance.now() - started);
    }
    return { atImport, firstMs, onFirstCall, warm, warmFetches: fetches - atImport - onFirstCall, bare };
  } finally {
    globalThis.fetch = originalFetch;
  }
}

/** Runs bench/child-runner.ts (bundled) in a fresh plain `node`, returning its "BENCH {json}" lines. */
export function runChild(runner: string, env: Record<string, string>, nodeFlags: string[] = []) {
  return new Promise<{ lines: Record<string, number>[]; wallMs: number }>((resolve, reject) => {
    const started = performance.now();
    let wallMs = Number.NaN;
    const child = spawn(process.execPath, [...nodeFlags, runner], {
      // No loader hooks in the child: it runs plain bundles.
      env: { ...process.env, ...env, NODE_OPTIONS: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20 * 60_000,
      killSignal: 'SIGKILL',
    });
    stops.push(() => child.kill('SIGKILL'));
    const lines: Record<string, number>[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('BENCH ')) return;
      const parsed: unknown = JSON.parse(line.slice(6));
      if (typeof parsed !== 'object' || parsed === null) return;
      lines.push(Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number')));
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', () => (wallMs = performance.now() - started));
    child.once('close', (code, signal) => {
      if (code === 0) resolve({ lines, wallMs });
      else reject(new Error(`child ${env['BENCH_MODE']} ${env['BENCH_BUNDLE']} ended with ${signal ?? code}:\n${stderr}`));
    });
  });
}
