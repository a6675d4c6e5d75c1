import { parseArgs } from 'node:util';
import { localDefaults } from './local/service-env';
import { loadOrCreateSigningKey, signToken } from './local/signing-key';

/** npm run token -- --customer <customerId> [--expires-in <seconds>]: a token for the local stack, alone on stdout. */
const usage = 'usage: npm run token -- --customer <customerId> [--expires-in <seconds>]';
let values: { customer?: string | undefined; 'expires-in': string; help?: boolean | undefined };
try {
  ({ values } = parseArgs({
    options: { customer: { type: 'string' }, 'expires-in': { type: 'string', default: '3600' }, help: { type: 'boolean' } },
  }));
} catch (error) {
  // An option it does not know: the reason and the usage, never a stack trace.
  console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
if (!values.customer) {
  console.error(usage);
  process.exit(2);
}
const key = loadOrCreateSigningKey(localDefaults.keyDir);
process.stdout.write(`${signToken(key, { customerId: values.customer, expiresIn: Number(values['expires-in']) })}\n`);
