import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { localEndpoint } from '../../lib/aws/local-endpoint';
import { CustomerData } from '../../lib/dynamodb/customer-data';
import { ERASURE_RULES } from '../../lib/termination/erasure';
import { runningStack } from '../local/running-stack';
import { createLedgerTable, LOCAL_LEDGER_TABLE } from '../local/tables';

/*
 * Where npm run subject-access, npm run erase (docs/operations.md, *A customer asks to be
 * erased*) and npm run migrate (docs/deploy.md) work: a deployed stage's tables in AWS, under the
 * caller's credentials (the data-protection role for the first two, the deploying ones for
 * migrate, never on-call's), or DynamoDB Local (the local stack, or the endpoint a test names),
 * whose erasure ledger, for the first two, is made if it is missing.
 */

/** The options that name a requests table: a stage's, or DynamoDB Local's. */
export const TABLE_OPTIONS = {
  stage: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  table: { type: 'string' },
} as const;

export const TARGET_OPTIONS = {
  ...TABLE_OPTIONS,
  'ledger-table': { type: 'string' },
} as const;

/** TABLE_OPTIONS explained, `credentials` being whose a stage is worked on with. */
export const tableUsage = (credentials: string) => `  --stage         a deployed stage (AWS, ${credentials}); without it, DynamoDB Local
  --region        with --stage (default AWS_REGION, else eu-central-1)
  --endpoint      DynamoDB Local at this URL (default: the local stack's, npm start)
  --table         the requests table (default: contract-termination-<stage>-requests, or the local stack's)`;

export const TARGET_USAGE = `${tableUsage('your credentials: the data-protection role')}
  --ledger-table  the erasure ledger (default: contract-termination-<stage>-erasures, or the local stack's)`;

export interface TableOptions {
  stage?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
  table?: string | undefined;
}

export interface TargetOptions extends TableOptions {
  'ledger-table'?: string | undefined;
}

interface TableTarget {
  where: string;
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  requests: string;
}

/** The requests table of a stage or of DynamoDB Local, with a client for it. */
export function tableTarget(options: TableOptions): TableTarget {
  if (options.stage !== undefined) {
    const region = options.region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'eu-central-1';
    const requests = options.table ?? `contract-termination-${options.stage}-requests`;
    const client = new DynamoDBClient({ region });
    return { where: `stage ${options.stage} in ${region}: ${requests}`, client, doc: DynamoDBDocumentClient.from(client), requests };
  }
  const stack = runningStack();
  const endpoint = options.endpoint ?? stack.dynamoDbEndpoint;
  const requests = options.table ?? stack.tables.requests;
  const client = new DynamoDBClient({ region: 'eu-central-1', maxAttempts: 3, ...localEndpoint(endpoint) });
  return { where: `DynamoDB Local ${endpoint}: ${requests}`, client, doc: DynamoDBDocumentClient.from(client), requests };
}

/** The requests table and the ledger of a stage or of DynamoDB Local, with a client for them. */
async function tablesTarget(
  options: TargetOptions,
): Promise<{ where: string; doc: DynamoDBDocumentClient; tables: { requests: string; ledger: string } }> {
  const { where, client, doc, requests } = tableTarget(options);
  if (options.stage !== undefined) {
    const ledger = options['ledger-table'] ?? `contract-termination-${options.stage}-erasures`;
    return { where: `${where}, ledger ${ledger}`, doc, tables: { requests, ledger } };
  }
  const ledger = options['ledger-table'] ?? LOCAL_LEDGER_TABLE;
  await createLedgerTable(client, ledger);
  return { where: `${where}, ledger ${ledger}`, doc, tables: { requests, ledger } };
}

export async function customerDataTarget(options: TargetOptions): Promise<{ where: string; data: CustomerData }> {
  const { where, doc, tables } = await tablesTarget(options);
  return { where, data: new CustomerData(doc, tables, ERASURE_RULES) };
}
