import type { AuthorizerResult } from './authorizer';
import type { Bundles } from './bundles';
import type { ColdResult } from './cold-start';
import type { ScenarioResult } from './latency';
import type { MemoryResult } from './memory';

/* Plain-text tables of one run; every ratio is of figures measured in that same run. */

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
export const times = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,x%/ ()–]*(KiB|MiB|ms)?$/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function calls(summary: { min: number; max: number; mean: number } | undefined): string {
  if (!summary) return '–';
  return summary.min === summary.max ? String(summary.min) : `${summary.min}-${summary.max} (${summary.mean.toFixed(2)})`;
}

export function latencyTable(title: string, results: ScenarioResult[]): string {
  const floor = results.find((r) => r.scenario.impl === 'floor');
  const serviceOn = (path: string) => results.find((r) => r.scenario.impl === 'service' && r.scenario.path === path);
  const rows = results.map((r) => {
    const { impl, path, expect } = r.scenario;
    const service = impl === 'peer' ? serviceOn(path) : undefined;
    return [
      impl === 'floor' ? 'create: bare TransactWriteItems' : path,
      impl,
      expect === 0 ? '–' : String(expect),
      calls(r.sdk),
      calls(r.http),
      r.operations,
      ms(r.p50),
      ms(r.p99),
      ms(r.outsideP50),
      r.stdoutBytesPerCall.toFixed(0),
      floor && impl !== 'floor' ? times(r.p50 / floor.p50) : '',
      service ? times(r.http.mean / service.http.mean) : '',
      service ? times(r.p50 / service.p50) : '',
    ];
  });
  const n = results[0]?.latenciesMs.length ?? 0;
  return `${title} (${n} calls per row)\n${table(
    [
      'path',
      'impl',
      'status',
      'SDK calls',
      'HTTP calls',
      'DynamoDB operations per call',
      'p50 ms',
      'p99 ms',
      'outside DDB p50',
      'stdout B',
      'p50/floor',
      'peer/svc calls',
      'peer/svc p50',
    ],
    rows,
  )}`;
}

export function floorItemsTable(items: { action: string; item: string; bytes: number; wcu: number }[]): string {
  const total = items.reduce((sum, i) => sum + i.wcu, 0);
  return `Items of one create (the floor's transaction, the service's items)\n${table(
    ['action', 'item', 'bytes', 'write units'],
    [...items.map((i) => [i.action, i.item, String(i.bytes), String(i.wcu)]), ['', 'total', '', String(total)]],
  )}`;
}

export function authorizerTable(result: AuthorizerResult): string {
  return `Authorizer (functions/authorize-customer.ts in process, local JWKS server; ${result.warm.iterations} warm calls)\n${table(
    ['call', 'p50 ms', 'p99 ms', 'JWKS fetches', 'vs bare RS256'],
    [
      ['module load (import)', '', '', String(result.fetchesAtImport), ''],
      ['first call (cold JWKS cache)', ms(result.firstCallMs), '', String(result.fetchesOnFirstCall), ''],
      [
        'warm JWKS cache',
        ms(result.warm.p50),
        ms(result.warm.p99),
        String(result.warm.fetches),
        times(result.warm.p50 / result.bareVerify.p50),
      ],
      ['bare RS256 verify (node:crypto)', ms(result.bareVerify.p50), ms(result.bareVerify.p99), '0', '1.00x'],
    ],
  )}`;
}

export function bundlesTable(bundles: Bundles): string {
  const sizes = table(
    ['bundle', 'size'],
    [
      ...bundles.functions.map((f) => [`${f.name} (buildFunctions)`, kib(f.bytes)]),
      ['bare DynamoDB client (bench)', kib(bundles.bare.bytes)],
    ],
  );
  const top = bundles.createComposition.slice(0, 8);
  const composition = table(
    ['package in create-termination-request', 'bytes in bundle'],
    top.map((p) => [p.name, kib(p.bytes)]),
  );
  return `Bundles (esbuild, minified, AWS SDK inside)\n${sizes}\n\n${composition}`;
}

export function coldTable(results: ColdResult[], runs: number): string {
  const bare = results.find((r) => r.target.name.startsWith('bare'));
  return `Cold start: fresh node process to first answer (median of ${runs} runs)\n${table(
    ['bundle', 'first answer ms', 'import ms', 'first call ms', 'spawn-to-exit ms', 'DynamoDB calls', 'vs bare', 'runs (first answer ms)'],
    results.map((r) => [
      r.target.name,
      ms(r.median.firstAnswerMs),
      ms(r.median.importMs),
      ms(r.median.firstCallMs),
      ms(r.median.wallMs),
      String(r.median.dynamoDbCalls),
      bare ? times(r.median.firstAnswerMs / bare.median.firstAnswerMs) : '',
      r.runs.map((run) => run.firstAnswerMs.toFixed(0)).join(' '),
    ]),
  )}`;
}

export function memoryTable(result: MemoryResult): string {
  const first = result.samples[0];
  const statuses = Object.entries(result.statuses)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  return `Memory: create bundle, one process, full GC before each sample (${statuses}; ${(result.wallMs / 1000).toFixed(1)} s)\n${table(
    ['invocations', 'RSS', 'heap used', 'old space used', 'new space size', 'code space', 'external', 'RSS vs 100', 'heap vs 100'],
    result.samples.map((s) => [
      String(s.invocations),
      mib(s.rssBytes),
      mib(s.heapUsedBytes),
      mib(s.oldSpaceUsedBytes),
      mib(s.newSpaceBytes),
      mib(s.codeSpaceBytes),
      mib(s.externalBytes),
      first ? times(s.rssBytes / first.rssBytes) : '',
      first ? times(s.heapUsedBytes / first.heapUsedBytes) : '',
    ]),
  )}`;
}
