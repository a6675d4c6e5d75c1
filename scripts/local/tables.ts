import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition, type TableDefinition } from './template-file';

/*
 * The local stack's tables come from the same definitions serverless.yml deploys
 * (resources/tables.yml); only the names are filled in here, and the properties DynamoDB
 * Local has no use for (backups, encryption, deletion protection) are left out.
 */

export interface TableNames {
  requests: string;
  contracts: string;
  documents: string;
}

function oneOf<T extends string>(value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw new Error(`Unexpected "${value}" in table definitions`);
  return found;
}

const keySchema = (keys: TableDefinition['keys']) =>
  keys.map((k) => ({ AttributeName: k.name, KeyType: oneOf(k.type, ['HASH', 'RANGE'] as const) }));

async function createTable(client: DynamoDBClient, tableName: string, definition: TableDefinition): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: definition.attributes.map((a) => ({
          AttributeName: a.name,
          AttributeType: oneOf(a.type, ['S', 'N', 'B'] as const),
        })),
        KeySchema: keySchema(definition.keys),
        ...(definition.globalIndexes.length === 0
          ? {}
          : {
              GlobalSecondaryIndexes: definition.globalIndexes.map((index) => ({
                IndexName: index.name,
                KeySchema: keySchema(index.keys),
                Projection: {
                  ProjectionType: oneOf(index.projectionType, ['INCLUDE', 'KEYS_ONLY', 'ALL'] as const),
                  ...(index.attributes.length === 0 ? {} : { NonKeyAttributes: index.attributes }),
                },
              })),
            }),
        // The requests table's and the erasure ledger's streams feed the event publisher, locally too.
        ...(definition.streamViewType === undefined
          ? {}
          : {
              StreamSpecification: {
                StreamEnabled: true,
                StreamViewType: oneOf(definition.streamViewType, ['NEW_AND_OLD_IMAGES', 'NEW_IMAGE'] as const),
              },
            }),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    // Kept from an earlier run (data on disk); a stream the definition has gained since is turned on.
    await enableStream(client, tableName, definition);
    return;
  }
  if (definition.timeToLiveAttribute !== undefined) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
      }),
    );
  }
  await client.send(new DescribeTableCommand({ TableName: tableName }));
}

/** Turns on the table's stream when the definition has one and the table, made before it did, has none. */
async function enableStream(client: DynamoDBClient, tableName: string, definition: TableDefinition): Promise<void> {
  if (definition.streamViewType === undefined) return;
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.StreamSpecification?.StreamEnabled === true) return;
  await client.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: {
        StreamEnabled: true,
        StreamViewType: oneOf(definition.streamViewType, ['NEW_AND_OLD_IMAGES', 'NEW_IMAGE'] as const),
      },
    }),
  );
}

/** The local stack's erasure ledger. */
export const LOCAL_LEDGER_TABLE = 'termination-erasures';

/** The erasure ledger (resources/tables.yml): made by the local stack and by the tests that erase. */
export const createLedgerTable = (client: DynamoDBClient, tableName: string): Promise<void> =>
  createTable(client, tableName, tableDefinition('ErasureLedgerTable'));

export async function createTables(client: DynamoDBClient, names: TableNames): Promise<void> {
  await createTable(client, names.requests, tableDefinition('RequestsTable'));
  await createTable(client, names.contracts, tableDefinition('ContractsTable'));
  await createTable(client, names.documents, tableDefinition('DocumentsTable'));
}
