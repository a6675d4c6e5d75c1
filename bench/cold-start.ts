import { childEnv, lastJsonLine, runNode } from './child';
import { median } from './latency';

/*
 * Cold start: a fresh `node` process per run imports a bundle and calls its handler once. The
 * figure is the time from the process's start (its performance time origin) to the handler's
 * first answer, as the runner measures it; also split into import (module load: SDK, config,
 * validators) and the first call. Targets run in turns, so machine noise hits all alike.
 */

export interface ColdTarget {
  name: string;
  bundle: string;
  /** Event of each run (a fresh contract for a create, say). */
  event: (run: number) => unknown;
  expectStatus: number | undefined;
  env: Record<string, string>;
}

export interface ColdRun {
  firstAnswerMs: number;
  importMs: number;
  firstCallMs: number;
  /** From spawn to exit, as the parent saw it (includes node's own start and exit). */
  wallMs: number;
  dynamoDbCalls: number;
}

export interface ColdResult {
  target: ColdTarget;
  runs: ColdRun[];
  median: ColdRun;
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : Number.NaN;
}

export async function measureColdStarts(
  runner: string,
  targets: ColdTarget[],
  runs: number,
  dynamoDbCalls: () => number,
): Promise<ColdResult[]> {
  const results = targets.map((target) => ({ target, runs: new Array<ColdRun>() }));
  for (let run = 0; run < runs; run++) {
    for (const result of results) {
      const { target } = result;
      const before = dynamoDbCalls();
      const output = await runNode([runner], {
        env: childEnv({ ...target.env, BENCH_BUNDLE: target.bundle, BENCH_EVENT: JSON.stringify(target.event(run)) }),
        timeoutMs: 30_000,
      });
      const line = lastJsonLine(output.stdout);
      if (target.expectStatus !== undefined && line['statusCode'] !== target.expectStatus) {
        throw new Error(`cold start of ${target.name} answered ${String(line['statusCode'])}, expected ${target.expectStatus}`);
      }
      result.runs.push({
        firstAnswerMs: num(line['firstAnswerMs']),
        importMs: num(line['importMs']),
        firstCallMs: num(line['firstCallMs']),
        wallMs: output.wallMs,
        dynamoDbCalls: dynamoDbCalls() - before,
      });
    }
  }
  return results.map(({ target, runs: all }) => ({
    target,
    runs: all,
    median: {
      firstAnswerMs: median(all.map((r) => r.firstAnswerMs)),
      importMs: median(all.map((r) => r.importMs)),
      firstCallMs: median(all.map((r) => r.firstCallMs)),
      wallMs: median(all.map((r) => r.wallMs)),
      dynamoDbCalls: median(all.map((r) => r.dynamoDbCalls)),
    },
  }));
}
