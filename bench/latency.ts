import { performance } from 'node:perf_hooks';
import { statusOf, bodyOf } from './api-event';

/*
 * Runs every scenario once per round, round after round, so that drift (GC, JIT, DynamoDB Local
 * warming up, the machine's other load) hits all of them alike. Each call is timed on its own
 * and its DynamoDB calls are the difference of the counters around it: calls never overlap.
 */

export type Implementation = 'floor' | 'service' | 'bundle' | 'peer';

export interface Scenario {
  path: string;
  impl: Implementation;
  /** Expected HTTP status; 0 for the floor, which is no HTTP handler. */
  expect: number;
  /** Whether the SDK middleware sees this implementation's client (not the bundle's own SDK copy). */
  sdkVisible: boolean;
  /** Builds one call (event, keys, contract) outside the timed part. */
  prepare: () => () => Promise<unknown>;
}

export interface Counters {
  http: () => number;
  /** Time spent at the DynamoDB end (the counting proxy's view: DynamoDB Local plus any added delay). */
  dynamoDbMs: () => number;
  sdk: () => number;
  /** Bytes written to stdout (logs, EMF metrics) so far. */
  stdoutBytes: () => number;
  /** Operations of the round trips after the first `mark`, in order. */
  httpSince: (mark: number) => string[];
}

export interface ScenarioResult {
  scenario: Scenario;
  latenciesMs: number[];
  /** DynamoDB round trips per call (HTTP, counted by the proxy): min and max over the measured calls. */
  http: { min: number; max: number; mean: number };
  sdk: { min: number; max: number; mean: number } | undefined;
  /** Mean bytes of logs and metrics one call writes to stdout. */
  stdoutBytesPerCall: number;
  /** Operations of one measured call, e.g. "PutItem+GetItem+TransactWriteItems+UpdateItem". */
  operations: string;
  p50: number;
  p99: number;
  /** p50 of the time of a call spent outside DynamoDB: SDK, HTTP client, the implementation's own code. */
  outsideP50: number;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

const summary = (counts: number[]) => ({
  min: Math.min(...counts),
  max: Math.max(...counts),
  mean: counts.reduce((a, b) => a + b, 0) / Math.max(1, counts.length),
});

interface Sample {
  latencies: number[];
  outside: number[];
  stdout: number[];
  http: number[];
  sdk: number[];
  operations: string;
}

const newSample = (): Sample => ({ latencies: [], outside: [], stdout: [], http: [], sdk: [], operations: '' });

export async function measure(
  scenarios: Scenario[],
  counters: Counters,
  rounds: { warmup: number; iterations: number },
): Promise<ScenarioResult[]> {
  const samples = scenarios.map(newSample);
  for (let round = 0; round < rounds.warmup + rounds.iterations; round++) {
    for (const [i, scenario] of scenarios.entries()) {
      const call = scenario.prepare();
      const httpBefore = counters.http();
      const sdkBefore = counters.sdk();
      const dynamoDbBefore = counters.dynamoDbMs();
      const stdoutBefore = counters.stdoutBytes();
      const started = performance.now();
      const result = await call();
      const elapsed = performance.now() - started;
      const status = statusOf(result);
      if (status !== scenario.expect) {
        throw new Error(
          `bench: ${scenario.impl} ${scenario.path} answered ${status}, expected ${scenario.expect}: ${bodyOf(result).slice(0, 300)}`,
        );
      }
      if (round < rounds.warmup) continue;
      const sample = samples[i];
      if (!sample) continue;
      sample.latencies.push(elapsed);
      sample.outside.push(elapsed - (counters.dynamoDbMs() - dynamoDbBefore));
      sample.stdout.push(counters.stdoutBytes() - stdoutBefore);
      sample.http.push(counters.http() - httpBefore);
      sample.sdk.push(counters.sdk() - sdkBefore);
      if (round === rounds.warmup) sample.operations = counters.httpSince(httpBefore).join('+');
    }
  }
  return scenarios.map((scenario, i) => {
    const sample = samples[i] ?? newSample();
    return {
      scenario,
      latenciesMs: sample.latencies,
      http: summary(sample.http),
      sdk: scenario.sdkVisible ? summary(sample.sdk) : undefined,
      operations: sample.operations,
      stdoutBytesPerCall: summary(sample.stdout).mean,
      p50: percentile(sample.latencies, 50),
      p99: percentile(sample.latencies, 99),
      outsideP50: percentile(sample.outside, 50),
    };
  });
}
