import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/*
 * npm run bench runs to its end at its smallest sizes, and judges every target. Its timings are
 * not asserted here (a shared machine is noisy: docs/performance.md); the service's call counts
 * are, since they do not depend on the machine.
 */

const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const SMALLEST = [
  '--iterations',
  '10',
  '--warmup',
  '0',
  '--cold-runs',
  '1',
  '--memory-invocations',
  '200',
  '--authorizer-iterations',
  '10',
];

function runBench(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [tsx, 'bench/run.ts', ...SMALLEST],
      { timeout: 280_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

/** The rows of a table the bench printed under `title`: each target with its result. */
function targets(output: string, title: string): { target: string; result: string }[] {
  const lines = output.split('\n');
  const from = lines.indexOf(title);
  if (from < 0) return [];
  const end = lines.findIndex((line, i) => i > from && line.trim() === '');
  return lines
    .slice(from + 3, end < 0 ? undefined : end)
    .map((line) => ({ target: line.split(/\s{2,}/)[0] ?? '', result: line.split(/\s{2,}/).at(-1) ?? '' }));
}

describe('npm run bench', () => {
  it(
    'runs every part to its end, judges every target, and meets every target of the service’s own DynamoDB calls',
    { timeout: 300_000 },
    async () => {
      const { code, stdout, stderr } = await runBench();
      expect(code, stderr).toBe(0);
      const lifecycle = targets(stdout, 'Lifecycle targets');
      const service = targets(stdout, 'Targets');
      expect(lifecycle.length).toBeGreaterThanOrEqual(4);
      expect(service.length).toBeGreaterThanOrEqual(10);
      for (const { target, result } of [...lifecycle, ...service]) expect(['MET', 'MISSED'], target).toContain(result);
      // Counting calls is not timing: the service's own counts hold on any machine. The peer's are its own business.
      const counts = [...lifecycle, ...service].filter(
        ({ target }) => /DynamoDB call|PutEvents/.test(target) && !target.startsWith('peer'),
      );
      expect(counts.length).toBeGreaterThanOrEqual(8);
      expect(counts.filter(({ result }) => result !== 'MET')).toEqual([]);
    },
  );
});
