import { parseArgs } from 'node:util';
import { customerDataTarget, TARGET_OPTIONS, TARGET_USAGE } from './operations/customer-data-target';

/*
 * npm run erase -- --customer <id>: erases every final request of the customer and all that
 * names it (its number item, its key records' answers, their limit records where no active
 * request of theirs remains), each request in one conditional write that can never erase an
 * active one; says on stdout, as JSON, what it erased and what it left and why. Running it twice
 * is harmless. Each erasure's keys and time go to the erasure ledger first.
 *
 * npm run erase -- --reapply-since <time>: after a point-in-time restore of the requests table,
 * erases again what the ledger recorded since that time and the restore brought back
 * (docs/operations.md, *After a restore*).
 *
 * Exit code 0 when done, 1 when something could not be done (run it again), 2 for a usage error.
 */

const usage = `usage: npm run erase -- (--customer <id> | --reapply-since <ISO time>) [--stage <stage> [--region <region>]] [--endpoint <url>]
  --customer       the customer's id, as the bank's identity provider names them
  --reapply-since  erase again what the ledger recorded since this time (after a restore of the requests table)
  --ledger-days    how long the ledger keeps an erasure's keys (default ${String(90)}: past the table's 35 days of point-in-time recovery)
${TARGET_USAGE}`;

const { values } = parseArgs({
  options: {
    customer: { type: 'string' },
    'reapply-since': { type: 'string' },
    'ledger-days': { type: 'string', default: '90' },
    help: { type: 'boolean', default: false },
    ...TARGET_OPTIONS,
  },
});
function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const customerId = values.customer?.trim();
const since = values['reapply-since'];
if ((customerId === undefined || customerId === '') === (since === undefined)) fail('give one of --customer and --reapply-since');
const ledgerDays = Number(values['ledger-days']);
if (!Number.isInteger(ledgerDays) || ledgerDays < 36)
  fail('--ledger-days must be a whole number of days above the 35 of point-in-time recovery');
if (since !== undefined && Number.isNaN(Date.parse(since))) fail(`--reapply-since must be an ISO 8601 time, got "${since}"`);

try {
  const { where, data } = await customerDataTarget(values);
  if (since !== undefined) {
    console.error(`Erasing again in ${where} what the ledger recorded since ${since}`);
    console.log(JSON.stringify(await data.reapplySince(new Date(since)), null, 2));
  } else if (customerId !== undefined) {
    console.error(`Erasing the customer's final requests in ${where}`);
    console.log(JSON.stringify(await data.erase(customerId, { ledgerDays }), null, 2));
  }
} catch (error) {
  console.error(`Not done: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
