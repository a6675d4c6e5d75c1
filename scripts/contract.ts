import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { putContracts } from './local/demo-data';
import { localClient } from './local/dynamodb-local';
import { runningStack } from './local/running-stack';

/*
 * npm run -s contract -- --customer <customerId> [--status ACTIVE|CLOSED|...] [--end-date YYYY-MM-DD]:
 * puts a contract of your own into the running local stack's contracts table (the table another
 * system owns in AWS; docs/decisions/0007-contracts.md) and prints its new contractId alone on stdout.
 */

const usage = 'usage: npm run -s contract -- --customer <customerId> [--status ACTIVE] [--end-date YYYY-MM-DD]';
const { values } = parseArgs({
  options: { customer: { type: 'string' }, status: { type: 'string', default: 'ACTIVE' }, 'end-date': { type: 'string' } },
});
if (values.customer === undefined || values.customer === '') {
  console.error(usage);
  process.exit(2);
}
const stack = runningStack();
const client = localClient(stack.dynamoDbEndpoint);
const contractId = randomUUID();
try {
  await putContracts(DynamoDBDocumentClient.from(client), stack.tables.contracts, [
    {
      contractId,
      customerId: values.customer,
      status: values.status,
      ...(values['end-date'] === undefined ? {} : { endDate: values['end-date'] }),
    },
  ]);
  process.stdout.write(`${contractId}\n`);
} catch (error) {
  console.error(`Could not write to DynamoDB Local at ${stack.dynamoDbEndpoint}: is npm start running? (${String(error)})`);
  process.exitCode = 1;
} finally {
  client.destroy();
}
