import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChild } from './measure';

/*
 * The bundle against its source, each alone in a fresh process, as one Lambda environment runs
 * one function. In the bench's own process the two cannot be compared: the bundle brings its own
 * copy of the SDK, the logger and the validators, which runs once in each round of some twenty
 * rows while every other row runs the copy the source shares with the floors, so the bundle pays
 * for code the CPU no longer holds warm (docs/performance.md, "The bundle against its source").
 * bench/child-runner.ts runs under tsx for both, so the harness is the same.
 */

export interface AloneRow {
  path: string;
  expect: number;
  /** functions/<name>.ts */
  source: string;
  /** Its bundle, as buildFunctions made it. */
  bundle: string;
  /** The events of one process, used in turn (a create needs a fresh contract each). */
  events: () => unknown[];
}

export interface AloneResult {
  path: string;
  /** p50 ms of each process, in the order they ran. */
  source: number[];
  bundle: number[];
  /** DynamoDB HTTP round trips per call, as the bench's proxy counted them. */
  httpPerCall: { source: number; bundle: number };
}

const ORDER = ['source', 'bundle', 'bundle', 'source', 'source', 'bundle', 'bundle', 'source'] as const;
/** Processes per row, each with its own events. */
export const ALONE_PROCESSES = ORDER.length;

export async function measureAlone(
  rows: AloneRow[],
  options: { dir: string; warmup: number; iterations: number; httpCount: () => number },
): Promise<AloneResult[]> {
  const results: AloneResult[] = [];
  for (const row of rows) {
    const result: AloneResult = { path: row.path, source: [], bundle: [], httpPerCall: { source: 0, bundle: 0 } };
    // Source, bundle, bundle, source, twice: a drift of the machine's load hits both alike.
    for (const [run, impl] of ORDER.entries()) {
      const eventsFile = join(options.dir, `alone-${row.path.replace(/\W+/g, '-')}-${String(run)}.json`);
      writeFileSync(eventsFile, JSON.stringify(row.events()));
      const before = options.httpCount();
      const env = {
        BENCH_MODE: 'latency',
        BENCH_BUNDLE: row[impl],
        BENCH_EVENTS_FILE: eventsFile,
        BENCH_WARMUP: String(options.warmup),
        BENCH_ITERATIONS: String(options.iterations),
        BENCH_EXPECT: String(row.expect),
      };
      const { lines } = await runChild('bench/child-runner.ts', env, ['--import', 'tsx']);
      const [line] = lines;
      if (line?.['calls'] !== options.iterations) throw new Error(`${impl} ${row.path} alone reported ${JSON.stringify(line)}`);
      result[impl].push(line['p50'] ?? Number.NaN);
      result.httpPerCall[impl] += (options.httpCount() - before) / ((options.warmup + options.iterations) * (ORDER.length / 2));
    }
    results.push(result);
  }
  return results;
}
