import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
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
        // The requests table's stream feeds the event publisher, locally too.
        ...(definition.streamViewType === undefined
          ? {}
          : {
              StreamSpecification: {
                StreamEnabled: true,
                StreamViewType: oneOf(definition.streamViewType, ['NEW_AND_OLD_IMAGES'] as const),
              },
            }),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    return; // kept from an earlier run (data on disk)
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

export async function createTables(client: DynamoDBClient, names: TableNames): Promise<void> {
  await createTable(client, names.requests, tableDefinition('RequestsTable'));
  await createTable(client, names.contracts, tableDefinition('ContractsTable'));
  await createTable(client, names.documents, tableDefinition('DocumentsTable'));
}
