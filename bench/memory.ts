import { childEnv, lastJsonLine, runNode } from './child';
import type { MemoryPlan, MemorySample } from './memory-runner';

/* Memory: the create bundle invoked N times in one `node --expose-gc` process (bench/memory-runner.ts). */

export interface MemoryResult {
  samples: MemorySample[];
  statuses: Record<string, number>;
  wallMs: number;
}

function sampleOf(value: unknown): MemorySample {
  const get = (key: string) => {
    const found: unknown = value !== null && typeof value === 'object' ? Reflect.get(value, key) : undefined;
    if (typeof found !== 'number') throw new Error(`memory run: sample without ${key}`);
    return found;
  };
  return {
    invocations: get('invocations'),
    rssBytes: get('rssBytes'),
    heapUsedBytes: get('heapUsedBytes'),
    externalBytes: get('externalBytes'),
    oldSpaceUsedBytes: get('oldSpaceUsedBytes'),
    newSpaceBytes: get('newSpaceBytes'),
    codeSpaceBytes: get('codeSpaceBytes'),
  };
}

export function checkpointsFor(invocations: number): number[] {
  return [
    ...new Set(
      [100, 1000, Math.round(invocations / 4), Math.round(invocations / 2), invocations].filter((n) => n >= 100 && n <= invocations),
    ),
  ].sort((a, b) => a - b);
}

export async function measureMemory(runner: string, plan: MemoryPlan, env: Record<string, string>): Promise<MemoryResult> {
  const output = await runNode(['--expose-gc', runner], {
    env: childEnv({ ...env, BENCH_MEMORY_PLAN: JSON.stringify(plan) }),
    timeoutMs: 15 * 60_000,
  });
  const line = lastJsonLine(output.stdout);
  const samples = line['samples'];
  const statuses = line['statuses'];
  if (!Array.isArray(samples)) throw new Error('memory run printed no samples');
  return {
    samples: samples.map(sampleOf),
    statuses:
      statuses !== null && typeof statuses === 'object' ? Object.fromEntries(Object.entries(statuses).map(([k, v]) => [k, Number(v)])) : {},
    wallMs: output.wallMs,
  };
}
