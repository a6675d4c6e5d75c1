import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { localEndpoint } from '../lib/aws/local-endpoint';
import { backfill } from '../lib/dynamodb/backfill';
import { runningStack } from './local/running-stack';

/*
 * npm run backfill: the one-off migration of the items written before the indexes by customer and
 * by number (docs/decisions/0026-a-request-by-its-number.md; lib/dynamodb/backfill.ts says what it
 * writes). A deploy step, run once per stage after the deploy that adds them (docs/deploy.md), with
 * the deploying credentials; running it again is harmless. Prints a JSON report on stdout.
 * Exit code 0 when done, 1 when it was not (run it again), 2 for a usage error.
 */

const usage = `usage: npm run backfill -- [--stage <stage> [--region <region>]] [--endpoint <url>] [--table <name>]
  --stage     a deployed stage (AWS, the deploying credentials); without it, DynamoDB Local
  --region    with --stage (default AWS_REGION, else eu-central-1)
  --endpoint  DynamoDB Local at this URL (default: the local stack's, npm start)
  --table     the requests table (default: contract-termination-<stage>-requests, or the local stack's)`;

const { values } = parseArgs({
  options: {
    stage: { type: 'string' },
    region: { type: 'string' },
    endpoint: { type: 'string' },
    table: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

function target(): { where: string; doc: DynamoDBDocumentClient; table: string } {
  if (values.stage !== undefined) {
    const region = values.region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'eu-central-1';
    const table = values.table ?? `contract-termination-${values.stage}-requests`;
    return {
      where: `stage ${values.stage} in ${region}: ${table}`,
      doc: DynamoDBDocumentClient.from(new DynamoDBClient({ region })),
      table,
    };
  }
  const endpoint = values.endpoint ?? runningStack().dynamoDbEndpoint;
  const table = values.table ?? runningStack().tables.requests;
  const client = new DynamoDBClient({ region: 'eu-central-1', maxAttempts: 3, ...localEndpoint(endpoint) });
  return { where: `DynamoDB Local ${endpoint}: ${table}`, doc: DynamoDBDocumentClient.from(client), table };
}

try {
  const { where, doc, table } = target();
  console.error(`Backfilling ${where} (one scan of the table)`);
  console.log(JSON.stringify(await backfill(doc, table), null, 2));
} catch (error) {
  console.error(`Not done: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
