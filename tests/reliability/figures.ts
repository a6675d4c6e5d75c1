import { mkdirSync, writeFileSync } from 'node:fs';

/** The counts the suite reports in one table (docs/reliability.md). */
export const figures = {
  callsMade: 0,
  racesRun: 0,
  invariantViolations: 0,
  fiveHundreds: 0,
  serviceUnavailable: 0,
  faultsInjected: 0,
  faultsSurvived: 0,
  fuzzCases: 0,
  attacksTried: 0,
  attacksRefused: 0,
  logLinesRead: 0,
  logLeaks: 0,
};

export function printFigures(scaleName: string, seconds: number): string {
  const rows: [string, number | string][] = [
    ['scale', scaleName],
    ['calls made', figures.callsMade],
    ['races run', figures.racesRun],
    ['invariant violations', figures.invariantViolations],
    ['500 answers', figures.fiveHundreds],
    ['503 answers (with Retry-After, during faults only)', figures.serviceUnavailable],
    ['faults injected', figures.faultsInjected],
    ['faults survived', figures.faultsSurvived],
    ['fuzz cases', figures.fuzzCases],
    ['attacks tried', figures.attacksTried],
    ['attacks refused', figures.attacksRefused],
    ['log lines read', figures.logLinesRead],
    ['log leaks (JWT, account number, error without correlationId)', figures.logLeaks],
    ['seconds', seconds.toFixed(1)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const table = ['| figure | value |', '|---|---|', ...rows.map(([label, value]) => `| ${label.padEnd(width)} | ${String(value)} |`)].join(
    '\n',
  );
  mkdirSync('.local', { recursive: true });
  writeFileSync(`.local/reliability-${scaleName}.json`, JSON.stringify({ ...figures, scale: scaleName, seconds }, null, 2));
  return table;
}
