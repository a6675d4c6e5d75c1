import type { BuiltBundle } from '../scripts/build';
import type { AloneResult } from './alone';
import { percentile, type measureAuthorizer, type Result } from './measure';

/* Plain-text tables of one run; every ratio is of figures measured in that same run. */

export interface Pass {
  name: string;
  results: Result[];
}
export type Cold = { name: string; runs: Record<string, number>[] }[];
export interface Memory {
  samples: Record<string, number>[];
  statuses: Record<string, number>;
  wallMs: number;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
const times = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const mib = (bytes = Number.NaN) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const calls = (counts: number[] | undefined) =>
  !counts ? '–' : Math.min(...counts) === Math.max(...counts) ? String(counts[0]) : `${Math.min(...counts)}-${Math.max(...counts)}`;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (runs: Record<string, number>[], key: string) =>
  percentile(
    runs.map((run) => run[key] ?? Number.NaN),
    50,
  );

/** Numeric columns (digits, units, ratios) are right-aligned. */
export function table(title: string, headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const right = headers.map((_, i) => rows.every((row) => /^[-\d.,x ()–]*(KiB|MiB)?$/.test(row[i] ?? '')));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (right[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [title, line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const find = (results: Result[], impl: string, path: string) => results.find((r) => r.row.impl === impl && r.row.path === path);
/** A path's own floor (the reads'), else the create's. */
const floorOf = (results: Result[], path: string) => find(results, 'floor', path) ?? find(results, 'floor', 'create');

export function latencyTable({ name, results }: Pass, iterations: number): string {
  const headers = ['path', 'impl', 'status', 'SDK calls', 'HTTP calls', 'DynamoDB operations per call', 'p50 ms', 'p99 ms'];
  headers.push('outside DDB p50', 'stdout B', 'p50/floor', 'peer/svc calls', 'peer/svc p50');
  const rows = results.map((r) => {
    const service = r.row.impl === 'peer' ? find(results, 'service', r.row.path) : undefined;
    const floor = floorOf(results, r.row.path);
    return [
      r.row.impl === 'floor' ? `${r.row.path}: bare ${r.operations}` : r.row.path,
      r.row.impl,
      r.row.expect === 0 ? '–' : String(r.row.expect),
      calls(r.sdk),
      calls(r.http),
      r.operations,
      ms(r.p50),
      ms(r.p99),
      ms(r.outsideP50),
      r.stdoutBytes.toFixed(0),
      floor && r !== floor ? times(r.p50 / floor.p50) : '',
      service ? times(mean(r.http) / mean(service.http)) : '',
      service ? times(r.p50 / service.p50) : '',
    ];
  });
  return table(`Latency, DynamoDB Local ${name} (${iterations} calls per row)`, headers, rows);
}

/** Each side's figure is the median of its processes' p50s: one process slowed by the machine moves it little. */
const middle = (values: number[]) => percentile(values, 50) / 2 + percentile(values, 51) / 2;
const aloneRatio = (r: AloneResult) => middle(r.bundle) / middle(r.source);

export function aloneTable(results: AloneResult[], warmup: number, iterations: number): string {
  const runs = results[0]?.source.length ?? 0;
  return table(
    `The bundle against its source, each alone in a process (${runs} processes each, ${iterations} calls after ${warmup} warm-up in each)`,
    ['path', 'HTTP calls source', 'HTTP calls bundle', 'source p50 ms', 'bundle p50 ms', 'bundle/source', 'runs (p50 ms: source; bundle)'],
    results.map((r) => [
      r.path,
      r.httpPerCall.source.toFixed(2),
      r.httpPerCall.bundle.toFixed(2),
      ms(middle(r.source)),
      ms(middle(r.bundle)),
      times(aloneRatio(r)),
      `${r.source.map(ms).join(' ')}; ${r.bundle.map(ms).join(' ')}`,
    ]),
  );
}

/** A transaction bills 2 write units per item and started KB. */
export function itemsTable(items: { action: string; item: string; bytes: number }[], what: string): string {
  const units = items.map((i) => 2 * Math.max(1, Math.ceil(i.bytes / 1024)));
  const rows = items.map((i, n) => [i.action, i.item, String(i.bytes), String(units[n])]);
  rows.push(['', `total: ${items.length} items`, '', String(units.reduce((a, b) => a + b, 0))]);
  return table(
    `Items of one create ${what} (the floor's transaction, the service's items)`,
    ['action', 'item', 'bytes', 'write units'],
    rows,
  );
}

export function authorizerTable(a: Awaited<ReturnType<typeof measureAuthorizer>>): string {
  const [warm, bare] = [percentile(a.warm, 50), percentile(a.bare, 50)];
  return table(
    `Authorizer (functions/authorize-customer.ts in process, local JWKS server; ${a.warm.length} warm calls)`,
    ['call', 'p50 ms', 'p99 ms', 'JWKS fetches', 'vs bare RS256'],
    [
      ['module load (import)', '', '', String(a.atImport), ''],
      ['first call (cold JWKS cache)', ms(a.firstMs), '', String(a.onFirstCall), ''],
      ['warm JWKS cache', ms(warm), ms(percentile(a.warm, 99)), String(a.warmFetches), times(warm / bare)],
      ['bare RS256 verify (node:crypto)', ms(bare), ms(percentile(a.bare, 99)), '0', '1.00x'],
    ],
  );
}

export function bundlesTable(functions: BuiltBundle[], bare: BuiltBundle): string {
  const sizes = [...functions.map((f) => [`${f.name} (buildFunctions)`, kib(f.bytes)]), ['bare DynamoDB client (bench)', kib(bare.bytes)]];
  const byPackage = new Map<string, number>();
  const create = functions.find((f) => f.name === 'create-termination-request');
  for (const output of Object.values(create?.metafile.outputs ?? {})) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? `(project) ${input.split('/')[0]}`;
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  const top = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return [
    table('Bundles (esbuild, whitespace and syntax minified, AWS SDK inside)', ['bundle', 'size'], sizes),
    table(
      '',
      ['package in create-termination-request', 'bytes in bundle'],
      top.map(([name, bytes]) => [name, kib(bytes)]),
    ),
  ].join('\n');
}

export function coldTable(cold: Cold): string {
  const bare = cold.find((c) => c.name.startsWith('bare'));
  const keys = ['firstAnswerMs', 'importMs', 'firstCallMs', 'wallMs'];
  return table(
    `Cold start: fresh node process to first answer (median of ${cold[0]?.runs.length} runs)`,
    ['bundle', 'first answer ms', 'import ms', 'first call ms', 'spawn-to-exit ms', 'DynamoDB calls', 'vs bare', 'runs (first answer ms)'],
    cold.map(({ name, runs }) => [
      name,
      ...keys.map((key) => ms(median(runs, key))),
      String(median(runs, 'calls')),
      bare ? times(median(runs, 'firstAnswerMs') / median(bare.runs, 'firstAnswerMs')) : '',
      runs.map((run) => (run['firstAnswerMs'] ?? Number.NaN).toFixed(0)).join(' '),
    ]),
  );
}

export function memoryTable({ samples, statuses, wallMs }: Memory): string {
  const [first] = samples;
  const byStatus = Object.entries(statuses).map(([status, n]) => `${status}: ${n}`);
  const keys = ['rss', 'heapUsed', 'oldSpace', 'newSpace', 'codeSpace', 'external'];
  return table(
    `Memory: create bundle, one process, full GC before each sample (${byStatus.join(', ')}; ${(wallMs / 1000).toFixed(1)} s)`,
    ['invocations', 'RSS', 'heap used', 'old space used', 'new space size', 'code space', 'external', 'RSS vs 100', 'heap vs 100'],
    samples.map((s) => [
      String(s['invocations']),
      ...keys.map((key) => mib(s[key])),
      times((s['rss'] ?? Number.NaN) / (first?.['rss'] ?? Number.NaN)),
      times((s['heapUsed'] ?? Number.NaN) / (first?.['heapUsed'] ?? Number.NaN)),
    ]),
  );
}

const SHORT: Record<string, string> = {
  create: 'create',
  'create, 10 documents': 'create 10 documents',
  replay: 'replay',
  '409 active request': '409',
  '422 contract closed': '422 closed',
  '422 date after end': '422 end date',
};
const READS: Record<string, string> = { 'GET one': 'GET', 'GET list': 'list' };

/** The issue's targets, judged on this run's figures. */
export function verdictTable(passes: Pass[], cold: Cold, memory: Memory | undefined, alone: AloneResult[] = []): string {
  const verdicts: [string, string, boolean][] = [];
  const paths = Object.keys(SHORT);
  const counts = (path: string) =>
    passes.flatMap(({ results }) => {
      const r = find(results, 'service', path);
      return r ? [...r.http, ...(r.sdk ?? [])] : [];
    });
  for (const [label, names] of [
    ['service DynamoDB calls = 1 per request (SDK and HTTP count)', SHORT],
    ['GET/list: 1 DynamoDB call each (SDK and HTTP count)', READS],
  ] satisfies [string, Record<string, string>][]) {
    const oneCall = Object.keys(names).map((path) => ({ path, counts: counts(path) }));
    verdicts.push([
      label,
      oneCall.map(({ path, counts: c }) => `${names[path]} ${calls(c)}`).join(', '),
      oneCall.every(({ counts: c }) => c.length > 0 && c.every((n) => n === 1)),
    ]);
  }
  // An empty list also reads the contract, to tell 404, 403 and "none yet" apart (0015-reading-requests.md).
  const empty = counts('GET list empty');
  verdicts.push([
    'empty list: 2 DynamoDB calls, Query + the contract (documented cost)',
    `list empty ${calls(empty)}`,
    empty.length > 0 && empty.every((n) => n === 2),
  ]);

  // Judged on the handler in process; the bundle is judged against it below, each alone in a process.
  for (const [label, names] of [
    ['service create p50 <= 1.2x floor', { create: '' }],
    ['GET/list p50 <= 1.2x bare GetItem/Query floor', READS],
  ] satisfies [string, Record<string, string>][]) {
    for (const { name, results } of passes) {
      const service = Object.entries(names).flatMap(([path, short]) => {
        const [r, floor] = [find(results, 'service', path), find(results, 'floor', path)];
        return r && floor ? [{ text: `${short ? `${short} ` : ''}${times(r.p50 / floor.p50)}`, ratio: r.p50 / floor.p50 }] : [];
      });
      if (service.length === 0) continue;
      verdicts.push([`${label} (${name})`, service.map((r) => r.text).join(', '), service.every((r) => r.ratio <= 1.2)]);
    }
  }

  if (alone.length > 0) {
    verdicts.push([
      'bundle p50 <= 1.05x its source, each alone in a process',
      alone.map((r) => `${SHORT[r.path] ?? READS[r.path] ?? r.path} ${times(aloneRatio(r))}`).join(', '),
      alone.every((r) => aloneRatio(r) <= 1.05),
    ]);
    verdicts.push([
      'bundle: 1 DynamoDB call per request, as its source (HTTP count)',
      alone.map((r) => `${SHORT[r.path] ?? READS[r.path] ?? r.path} ${r.httpPerCall.bundle.toFixed(2)}`).join(', '),
      alone.every((r) => r.httpPerCall.bundle === 1 && r.httpPerCall.source === 1),
    ]);
  }

  const first = passes[0]?.results ?? [];
  const peerRatio = (path: string) => {
    const [peer, service] = ['peer', 'service'].map((impl) => find(first, impl, path));
    return peer && service ? mean(peer.http) / mean(service.http) : Number.NaN;
  };
  // Replay apart: there Powertools, too, answers from one failed conditional PutItem. Only the
  // paths the peer runs (it checks no documents).
  const peerPaths = paths.filter((p) => find(first, 'peer', p) !== undefined);
  for (const group of [peerPaths.filter((p) => p !== 'replay'), ['replay']]) {
    const ratios = group.map(peerRatio);
    const label = `peer DynamoDB calls >= 3x service (${group.map((p) => SHORT[p]).join(', ')})`;
    verdicts.push([label, ratios.map(times).join(', '), ratios.every((r) => r >= 3)]);
  }

  const [create, bare] = ['create', 'bare'].map((prefix) => cold.find((c) => c.name.startsWith(prefix))?.runs ?? []);
  if (create?.length && bare?.length) {
    const ratio = median(create, 'firstAnswerMs') / median(bare, 'firstAnswerMs');
    const detail = (key: string) => `${median(create, key).toFixed(0)} vs ${median(bare, key).toFixed(0)} ms`;
    verdicts.push([
      'cold start <= 1.3x bare DynamoDB bundle',
      `${times(ratio)} (${detail('firstAnswerMs')}; import ${detail('importMs')})`,
      ratio <= 1.3,
    ]);
  }

  const [at100, last] = [memory?.samples[0], memory?.samples.at(-1)];
  const half = memory?.samples.find((s) => (s['invocations'] ?? 0) >= (last?.['invocations'] ?? 0) / 2);
  if (at100 && last && half) {
    const growth = (from: Record<string, number>, key: string) => (last[key] ?? Number.NaN) / (from[key] ?? Number.NaN);
    verdicts.push([`RSS after ${last['invocations']} <= 1.1x RSS after 100`, times(growth(at100, 'rss')), growth(at100, 'rss') <= 1.1]);
    verdicts.push([
      `no growth once warm: RSS and live old space, ${last['invocations']} vs ${half['invocations']} <= 1.05x`,
      `RSS ${times(growth(half, 'rss'))}, old space ${times(growth(half, 'oldSpace'))}`,
      growth(half, 'rss') <= 1.05 && growth(half, 'oldSpace') <= 1.05,
    ]);
  }
  return table(
    'Targets',
    ['target', 'measured', 'result'],
    verdicts.map(([target, measured, met]) => [target, measured, met ? 'MET' : 'MISSED']),
  );
}
