import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localEndpoint } from '../../lib/aws/local-endpoint';
import { CustomerData } from '../../lib/dynamodb/customer-data';
import { ERASURE_RULES } from '../../lib/termination/erasure';
import { runningStack } from '../local/running-stack';
import { createLedgerTable, LOCAL_LEDGER_TABLE } from '../local/tables';

/*
 * Where npm run subject-access, npm run erase (docs/operations.md, *A customer asks to be
 * erased*) and npm run limits:move (docs/deploy.md) work: a deployed stage's tables in AWS, under the caller's credentials (the
 * data-protection role, never on-call's), or DynamoDB Local (the local stack, or the endpoint a
 * test names), whose erasure ledger is made if it is missing.
 */

export const TARGET_OPTIONS = {
  stage: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  table: { type: 'string' },
  'ledger-table': { type: 'string' },
} as const;

export const TARGET_USAGE = `  --stage         a deployed stage (AWS, your credentials: the data-protection role); without it, DynamoDB Local
  --region        with --stage (default AWS_REGION, else eu-central-1)
  --endpoint      DynamoDB Local at this URL (default: the local stack's, npm start)
  --table         the requests table (default: contract-termination-<stage>-requests, or the local stack's)
  --ledger-table  the erasure ledger (default: contract-termination-<stage>-erasures, or the local stack's)`;

export interface TargetOptions {
  stage?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
  table?: string | undefined;
  'ledger-table'?: string | undefined;
}

/** The requests table and the ledger of a stage or of DynamoDB Local, with a client for them. */
export async function tablesTarget(
  options: TargetOptions,
): Promise<{ where: string; doc: DynamoDBDocumentClient; tables: { requests: string; ledger: string } }> {
  if (options.stage !== undefined) {
    const region = options.region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'eu-central-1';
    const tables = {
      requests: options.table ?? `contract-termination-${options.stage}-requests`,
      ledger: options['ledger-table'] ?? `contract-termination-${options.stage}-erasures`,
    };
    return {
      where: `stage ${options.stage} in ${region}: ${tables.requests}, ledger ${tables.ledger}`,
      doc: DynamoDBDocumentClient.from(new DynamoDBClient({ region })),
      tables,
    };
  }
  const stack = runningStack();
  const endpoint = options.endpoint ?? stack.dynamoDbEndpoint;
  const client = new DynamoDBClient({ region: 'eu-central-1', maxAttempts: 3, ...localEndpoint(endpoint) });
  const tables = { requests: options.table ?? stack.tables.requests, ledger: options['ledger-table'] ?? LOCAL_LEDGER_TABLE };
  await createLedgerTable(client, tables.ledger);
  return {
    where: `DynamoDB Local ${endpoint}: ${tables.requests}, ledger ${tables.ledger}`,
    doc: DynamoDBDocumentClient.from(client),
    tables,
  };
}

export async function customerDataTarget(options: TargetOptions): Promise<{ where: string; data: CustomerData }> {
  const { where, doc, tables } = await tablesTarget(options);
  return { where, data: new CustomerData(doc, tables, ERASURE_RULES) };
}
