import { parseArgs } from 'node:util';
import { customerDataTarget, TARGET_OPTIONS, TARGET_USAGE } from './operations/customer-data-target';

/*
 * npm run subject-access -- --customer <id>: everything this service holds about a customer, as
 * one JSON document on stdout (their requests as stored, their limit records, their key records
 * as fingerprints and times): what the data-protection officer answers a subject-access request
 * with (docs/operations.md). Reads only, through the index by customer and each item's key: no
 * scan. Exit code 0 with the document, 1 when it could not be read, 2 for a usage error.
 */

const usage = `usage: npm run subject-access -- --customer <id> [--stage <stage> [--region <region>]] [--endpoint <url>] [--table <name>]
  --customer      the customer's id, as the bank's identity provider names them
${TARGET_USAGE}`;

const { values } = parseArgs({ options: { customer: { type: 'string' }, help: { type: 'boolean', default: false }, ...TARGET_OPTIONS } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const customerId = values.customer?.trim();
if (customerId === undefined || customerId === '') {
  console.error(`--customer is required\n${usage}`);
  process.exit(2);
}
try {
  const { where, data } = await customerDataTarget(values);
  console.error(`Reading what ${where} holds of the customer`);
  console.log(JSON.stringify(await data.subjectAccess(customerId), null, 2));
} catch (error) {
  console.error(`Not read: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
