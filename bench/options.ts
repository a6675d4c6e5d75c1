/*
 * Settings of one bench run, from flags (`npm run bench -- --iterations 500`) or environment
 * variables (BENCH_ITERATIONS=500 npm run bench); flags win.
 */

export interface BenchOptions {
  /** Measured calls per path and pass. */
  iterations: number;
  /** Calls per path first thrown away (JIT, connection pools, DynamoDB Local's own warm-up). */
  warmup: number;
  /** Delay the counting proxy adds to every DynamoDB call in the second pass. */
  delayMs: number;
  /** Fresh `node` processes per bundle for the cold start median. */
  coldRuns: number;
  /** Invocations of the memory run (RSS is compared with the one after 100). */
  memoryInvocations: number;
  /** Verifications of the authorizer with a warm JWKS cache. */
  authorizerIterations: number;
}

const FLAGS: Record<string, { key: keyof BenchOptions; env: string; fallback: number; min: number }> = {
  '--iterations': { key: 'iterations', env: 'BENCH_ITERATIONS', fallback: 300, min: 10 },
  '--warmup': { key: 'warmup', env: 'BENCH_WARMUP', fallback: 30, min: 0 },
  '--delay-ms': { key: 'delayMs', env: 'BENCH_DELAY_MS', fallback: 8, min: 0 },
  '--cold-runs': { key: 'coldRuns', env: 'BENCH_COLD_RUNS', fallback: 11, min: 1 },
  '--memory-invocations': { key: 'memoryInvocations', env: 'BENCH_MEMORY_INVOCATIONS', fallback: 10_000, min: 200 },
  '--authorizer-iterations': { key: 'authorizerIterations', env: 'BENCH_AUTHORIZER_ITERATIONS', fallback: 2000, min: 10 },
};

function parseCount(name: string, raw: string, min: number): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

export const USAGE = `npm run bench [-- ${Object.keys(FLAGS)
  .map((flag) => `${flag} <n>`)
  .join(' ')}]
Defaults: ${Object.entries(FLAGS)
  .map(([flag, f]) => `${flag} ${f.fallback} (env ${f.env})`)
  .join(', ')}`;

export function readOptions(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const options: BenchOptions = { iterations: 0, warmup: 0, delayMs: 0, coldRuns: 0, memoryInvocations: 0, authorizerIterations: 0 };
  for (const spec of Object.values(FLAGS)) {
    const raw = env[spec.env];
    options[spec.key] = raw === undefined || raw === '' ? spec.fallback : parseCount(spec.env, raw, spec.min);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.split('=', 2);
    const spec = flag === undefined ? undefined : FLAGS[flag];
    if (!spec || flag === undefined) throw new Error(`Unknown argument "${arg}"\n${USAGE}`);
    const raw = inline ?? argv[++i];
    if (raw === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    options[spec.key] = parseCount(flag, raw, spec.min);
  }
  return options;
}
