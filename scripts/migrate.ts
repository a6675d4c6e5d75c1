import { parseArgs } from 'node:util';
import { MIGRATIONS, type MigrationReport } from '../lib/dynamodb/migrations';
import { TABLE_OPTIONS, tableTarget, tableUsage } from './operations/customer-data-target';

/*
 * npm run migrate: every one-off migration of the requests table (lib/dynamodb/migrations.ts, the
 * one list of them), in order, after each deploy (docs/deploy.md), with the credentials that
 * deployed the stage: each scans the table and writes, which no function's or operator's role may.
 * Each is safe beside live traffic and finds nothing once it has done its work, so running the
 * command again is harmless. Says on stderr which migration it is at, and on stdout, as JSON, what
 * each one did, by its name, in order (on a failure, those done before it).
 *
 * Exit code 0 when all are done, 1 when one failed (it is named; those after it did not run: run
 * the command again), 2 for a usage error.
 */

const usage = `usage: npm run migrate -- [--stage <stage> [--region <region>]] [--endpoint <url>] [--table <name>]
${tableUsage('the credentials that deployed it')}
the migrations, in the order they run:
${MIGRATIONS.map(({ name, what }, index) => `  ${String(index + 1)}. ${name}: ${what}`).join('\n')}`;

function options() {
  try {
    return parseArgs({ options: { help: { type: 'boolean', default: false }, ...TABLE_OPTIONS } }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return process.exit(2);
  }
}

const values = options();
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const { where, doc, requests } = tableTarget(values);
console.error(`Migrating ${where}: ${String(MIGRATIONS.length)} migrations, in order`);
const done: Record<string, MigrationReport> = {};
for (const [index, migration] of MIGRATIONS.entries()) {
  console.error(`${String(index + 1)}. ${migration.name}: ${migration.what}`);
  try {
    done[migration.name] = await migration.run(doc, requests, Math.floor(Date.now() / 1000));
  } catch (error) {
    console.log(JSON.stringify(done, null, 2));
    const notRun = MIGRATIONS.slice(index + 1).map(({ name }) => name);
    console.error(
      `Not done: ${migration.name} failed: ${error instanceof Error ? error.message : String(error)}` +
        (notRun.length === 0 ? '' : `; not run: ${notRun.join(', ')}`) +
        '. Run npm run migrate again.',
    );
    process.exit(1);
  }
}
console.log(JSON.stringify(done, null, 2));
