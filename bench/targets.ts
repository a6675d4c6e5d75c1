import type { ColdResult } from './cold-start';
import type { ScenarioResult } from './latency';
import type { MemoryResult } from './memory';
import { table, times } from './report';
import { PATHS } from './scenarios';

/* The issue's targets, judged on this run's figures. */

export interface Verdict {
  target: string;
  measured: string;
  met: boolean;
}

export const LIMITS = {
  serviceOverFloorP50: 1.2,
  peerOverServiceCalls: 3,
  coldOverBare: 1.3,
  /** RSS after N invocations against after 100; more is growth. */
  rssGrowth: 1.1,
  /** RSS and live old space after full GC, last sample against the one halfway (past warm-up). */
  warmGrowth: 1.05,
} as const;

const SERVICE_PATHS = [PATHS.create, PATHS.replay, PATHS.conflict, PATHS.closed, PATHS.afterEnd];
const SHORT: Record<string, string> = {
  [PATHS.create]: 'create',
  [PATHS.replay]: 'replay',
  [PATHS.conflict]: '409',
  [PATHS.closed]: '422 closed',
  [PATHS.afterEnd]: '422 end date',
};
const short = (path: string) => SHORT[path] ?? path;

export function judge(
  passes: { name: string; results: ScenarioResult[] }[],
  cold: ColdResult[],
  memory: MemoryResult | undefined,
): Verdict[] {
  const verdicts: Verdict[] = [];
  const first = passes[0]?.results ?? [];
  const row = (results: ScenarioResult[], impl: string, path: string) =>
    results.find((r) => r.scenario.impl === impl && r.scenario.path === path);

  // 1. Exactly one DynamoDB call on every service path, counted both ways, in every pass.
  const callFigures: string[] = [];
  let oneCall = true;
  for (const path of SERVICE_PATHS) {
    const counts = passes.flatMap(({ results }) =>
      ['service', 'bundle'].flatMap((impl) => {
        const r = row(results, impl, path);
        return r ? [r.http.min, r.http.max, ...(r.sdk ? [r.sdk.min, r.sdk.max] : [])] : [];
      }),
    );
    const ok = counts.length > 0 && counts.every((c) => c === 1);
    oneCall &&= ok;
    callFigures.push(`${short(path)} ${ok ? '1' : `${Math.min(...counts)}-${Math.max(...counts)}`}`);
  }
  verdicts.push({ target: 'service DynamoDB calls = 1 per request (SDK and HTTP count)', measured: callFigures.join(', '), met: oneCall });

  // 2. Service create p50 within 1.2x of the floor, in each pass.
  for (const { name, results } of passes) {
    const floor = row(results, 'floor', PATHS.create);
    const service = row(results, 'service', PATHS.create);
    const bundle = row(results, 'bundle', PATHS.create);
    if (!floor || !service) continue;
    const ratio = service.p50 / floor.p50;
    const bundleRatio = bundle ? `, bundle ${times(bundle.p50 / floor.p50)}` : '';
    verdicts.push({
      target: `service create p50 <= ${LIMITS.serviceOverFloorP50}x floor (${name})`,
      measured: `${times(ratio)}${bundleRatio}`,
      met: ratio <= LIMITS.serviceOverFloorP50,
    });
  }

  // 3. The peer makes at least 3x the service's DynamoDB calls, path by path.
  const peerRatios = SERVICE_PATHS.map((path) => {
    const peer = row(first, 'peer', path);
    const service = row(first, 'service', path);
    return { path, ratio: peer && service ? peer.http.mean / service.http.mean : Number.NaN };
  });
  // Replay is apart: there Powertools, too, answers from one failed conditional PutItem.
  for (const group of [peerRatios.filter((p) => p.path !== PATHS.replay), peerRatios.filter((p) => p.path === PATHS.replay)]) {
    if (group.length === 0) continue;
    verdicts.push({
      target: `peer DynamoDB calls >= ${LIMITS.peerOverServiceCalls}x service (${group.map((p) => short(p.path)).join(', ')})`,
      measured: group.map((p) => times(p.ratio)).join(', '),
      met: group.every((p) => p.ratio >= LIMITS.peerOverServiceCalls),
    });
  }

  // 4. Cold start within 1.3x of the bare bundle.
  const create = cold.find((c) => c.target.name.startsWith('create'));
  const bare = cold.find((c) => c.target.name.startsWith('bare'));
  if (create && bare) {
    const ratio = create.median.firstAnswerMs / bare.median.firstAnswerMs;
    verdicts.push({
      target: `cold start <= ${LIMITS.coldOverBare}x bare DynamoDB bundle`,
      measured: `${times(ratio)} (${create.median.firstAnswerMs.toFixed(0)} vs ${bare.median.firstAnswerMs.toFixed(0)} ms; import ${create.median.importMs.toFixed(0)} vs ${bare.median.importMs.toFixed(0)} ms)`,
      met: ratio <= LIMITS.coldOverBare,
    });
  }

  // 5. No memory growth: the issue's figure (RSS after N against after 100), and growth once warm.
  if (memory) {
    const at100 = memory.samples[0];
    const last = memory.samples[memory.samples.length - 1];
    const half = memory.samples.find((s) => last !== undefined && s.invocations >= last.invocations / 2);
    if (at100 && last && half) {
      const rss = last.rssBytes / at100.rssBytes;
      verdicts.push({
        target: `RSS after ${last.invocations} <= ${LIMITS.rssGrowth}x RSS after 100`,
        measured: times(rss),
        met: rss <= LIMITS.rssGrowth,
      });
      const rssWarm = last.rssBytes / half.rssBytes;
      const oldWarm = last.oldSpaceUsedBytes / half.oldSpaceUsedBytes;
      verdicts.push({
        target: `no growth once warm: RSS and live old space, ${last.invocations} vs ${half.invocations} <= ${LIMITS.warmGrowth}x`,
        measured: `RSS ${times(rssWarm)}, old space ${times(oldWarm)}`,
        met: rssWarm <= LIMITS.warmGrowth && oldWarm <= LIMITS.warmGrowth,
      });
    }
  }
  return verdicts;
}

export function verdictTable(verdicts: Verdict[]): string {
  return `Targets\n${table(
    ['target', 'measured', 'result'],
    verdicts.map((v) => [v.target, v.measured, v.met ? 'MET' : 'MISSED']),
  )}`;
}
