import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../lib/dynamodb/migrations';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { runMigrate } from '../support/migrate';

/*
 * npm run migrate, the one command an operator runs after a deploy (docs/deploy.md), against
 * DynamoDB Local: every migration of lib/dynamodb/migrations.ts, in its order, each said and
 * reported by name; a table with nothing to migrate reports nothing done; and a migration that
 * fails stops the run with a non-zero exit, naming it and those it left unrun. What each
 * migration does is held by tests/integration/limit-record-move.test.ts and backfill.test.ts.
 */

let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
});

const names = MIGRATIONS.map(({ name }) => name);

describe('npm run migrate', () => {
  it('runs every migration in order and reports each by name; with nothing to migrate, each did nothing', async () => {
    const { code, report, said } = await runMigrate(tables);
    expect(code, said).toBe(0);
    expect(Object.keys(report)).toEqual(names);
    for (const name of names) {
      expect(Object.values(report[name] ?? {}).length, name).toBeGreaterThan(0);
      expect(
        Object.values(report[name] ?? {}).every((count) => count === 0),
        name,
      ).toBe(true);
    }
    const announced = names.map((name) => said.indexOf(`${name}: `));
    expect(announced.every((at) => at >= 0)).toBe(true);
    expect(announced).toEqual([...announced].sort((a, b) => a - b));
  });

  it('stops at a migration that fails, exits 1, and names it and those it did not run', async () => {
    const { code, report, said } = await runMigrate(tables, `missing-${randomUUID()}`);
    expect(code).toBe(1);
    expect(report).toEqual({});
    const [first = '', ...rest] = names;
    expect(said).toContain(`Not done: ${first} failed`);
    expect(said).toContain(`not run: ${rest.join(', ')}`);
    for (const name of rest) expect(said).not.toContain(`${name}: `);
  });
});
