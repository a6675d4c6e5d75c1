import { parseArgs } from 'node:util';
import { moveLegacyLimitRecords } from '../lib/dynamodb/limit-record-move';
import { tablesTarget, TARGET_OPTIONS, TARGET_USAGE } from './operations/customer-data-target';

/*
 * npm run limits:move: moves the limit records kept under their earlier key to where a contract's
 * list reads them in its one Query (lib/dynamodb/limit-record-move.ts), once after deploying the
 * version that reads them there (docs/deploy.md). Says on stdout, as JSON, how many it moved and
 * how many, expired, it only deleted. Running it twice is harmless.
 *
 * Exit code 0 when done, 1 when something could not be done (run it again), 2 for a usage error.
 */

const usage = `usage: npm run limits:move -- [--stage <stage> [--region <region>]] [--endpoint <url>] [--table <name>]
${TARGET_USAGE}`;

const { values } = parseArgs({ options: { help: { type: 'boolean', default: false }, ...TARGET_OPTIONS } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}

try {
  const { where, doc, tables } = await tablesTarget(values);
  console.error(`Moving limit records in ${where}`);
  console.log(JSON.stringify(await moveLegacyLimitRecords(doc, tables.requests, Math.floor(Date.now() / 1000)), null, 2));
} catch (error) {
  console.error(`Not done: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
