import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { jsonObject } from './json';
import type { TestTables } from './local-tables';

const tsx = createRequire(import.meta.url).resolve('tsx/cli');

export interface MigrateRun {
  /** The exit code. */
  code: number;
  /** Its JSON on stdout: what each migration did, by name, in the order they ran. */
  report: Record<string, Record<string, unknown>>;
  /** What it said on stderr. */
  said: string;
}

/**
 * npm run migrate as an operator runs it after a deploy, against DynamoDB Local: on these tables'
 * requests table, or on the one named.
 */
export function runMigrate(tables: TestTables, table = tables.names.requests): Promise<MigrateRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [tsx, 'scripts/migrate.ts', '--endpoint', tables.endpoint, '--table', table],
      { env: { PATH: process.env['PATH'], HOME: process.env['HOME'] }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : error.code;
        if (typeof code !== 'number') {
          reject(error ?? new Error('npm run migrate ended without an exit code'));
          return;
        }
        try {
          const report = Object.fromEntries(Object.entries(jsonObject(JSON.parse(stdout))).map(([name, done]) => [name, jsonObject(done)]));
          resolve({ code, report, said: stderr });
        } catch (parsing) {
          reject(new Error(`npm run migrate printed no report (exit ${String(code)}): ${stdout}\n${stderr}`, { cause: parsing }));
        }
      },
    );
  });
}
