import { parseArgs } from 'node:util';
import { localDefaults } from './local/service-env';
import { loadOrCreateSigningKey, signToken } from './local/signing-key';

/** npm run token -- --customer <customerId> [--expires-in <seconds>]: a token for the local stack, alone on stdout. */
const { values } = parseArgs({ options: { customer: { type: 'string' }, 'expires-in': { type: 'string', default: '3600' } } });
if (!values.customer) {
  console.error('usage: npm run token -- --customer <customerId> [--expires-in <seconds>]');
  process.exit(2);
}
const key = loadOrCreateSigningKey(localDefaults.keyDir);
process.stdout.write(`${signToken(key, { customerId: values.customer, expiresIn: Number(values['expires-in']) })}\n`);
