import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { runSmoke } from './smoke/checks';
import { DEMO_CUSTOMERS, putContracts } from './local/demo-data';
import { localClient } from './local/dynamodb-local';
import { runningStack } from './local/running-stack';
import { localDefaults } from './local/service-env';
import { loadOrCreateSigningKey, signToken } from './local/signing-key';

/*
 * npm run smoke -- --base <url> --token <jwt> --contract <id> [--date YYYY-MM-DD]: the
 * post-deploy check of a stage (scripts/smoke/checks.ts). Without arguments it checks the local
 * stack npm start runs, as Anna, on a new contract of hers put into its contracts table (a check
 * makes a real request, so it needs a contract without one). Exit code 1 when a check fails.
 */

const usage = 'usage: npm run smoke [-- --base <url> --token <jwt> --contract <contractId> [--date YYYY-MM-DD]]';
const { values } = parseArgs({
  options: { base: { type: 'string' }, token: { type: 'string' }, contract: { type: 'string' }, date: { type: 'string' } },
});
const local = values.base === undefined && values.token === undefined && values.contract === undefined;
if (!local && (values.token === undefined || values.contract === undefined)) {
  console.error(`--token and --contract are required with --base\n${usage}`);
  process.exit(2);
}

/** A demo customer's token and a new contract of theirs in the running local stack. */
async function localTarget(): Promise<{ token: string; contractId: string }> {
  const stack = runningStack();
  const { customerId } = DEMO_CUSTOMERS.anna;
  const client = localClient(stack.dynamoDbEndpoint);
  const contractId = randomUUID();
  try {
    await putContracts(DynamoDBDocumentClient.from(client), stack.tables.contracts, [{ contractId, customerId, status: 'ACTIVE' }]);
  } catch (error) {
    console.error(`Could not write to DynamoDB Local at ${stack.dynamoDbEndpoint}: is npm start running? (${String(error)})`);
    process.exit(1);
  } finally {
    client.destroy();
  }
  return { token: signToken(loadOrCreateSigningKey(localDefaults.keyDir), { customerId }), contractId };
}

const base = values.base ?? runningStack().apiUrl;
const target = local ? await localTarget() : { token: values.token ?? '', contractId: values.contract ?? '' };
console.log(`Smoke check of ${base}, contract ${target.contractId}${local ? ' (a new contract of customer-anna)' : ''}`);
const checks = await runSmoke({
  base,
  token: target.token,
  contractId: target.contractId,
  ...(values.date === undefined ? {} : { desiredTerminationDate: values.date }),
}).catch((error: unknown) => {
  console.error(`Could not reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
for (const { name, ok, detail } of checks) console.log(`${ok ? 'ok  ' : 'FAIL'}  ${name}${ok ? '' : `: ${detail}`}`);
const failed = checks.filter((c) => !c.ok).length;
console.log(failed === 0 ? `All ${checks.length} checks passed.` : `${failed} of ${checks.length} checks failed.`);
process.exit(failed === 0 ? 0 : 1);
