import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import definitions from '../../resources/tables.json' with { type: 'json' };

/*
 * The local stack's tables come from the same definitions serverless.yml deploys
 * (resources/tables.json); only the names are filled in here, and the properties DynamoDB
 * Local has no use for (backups, encryption, deletion protection) are left out.
 */

export interface TableNames {
  requests: string;
  contracts: string;
}

function oneOf<T extends string>(value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw new Error(`Unexpected "${value}" in table definitions`);
  return found;
}

async function createTable(
  client: DynamoDBClient,
  tableName: string,
  properties: (typeof definitions.Resources)['RequestsTable' | 'ContractsTable']['Properties'],
): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: properties.AttributeDefinitions.map((a) => ({
          AttributeName: a.AttributeName,
          AttributeType: oneOf(a.AttributeType, ['S', 'N', 'B'] as const),
        })),
        KeySchema: properties.KeySchema.map((k) => ({
          AttributeName: k.AttributeName,
          KeyType: oneOf(k.KeyType, ['HASH', 'RANGE'] as const),
        })),
        // The requests table's stream feeds the event publisher, locally too.
        ...('StreamSpecification' in properties
          ? {
              StreamSpecification: {
                StreamEnabled: true,
                StreamViewType: oneOf(properties.StreamSpecification.StreamViewType, ['NEW_AND_OLD_IMAGES'] as const),
              },
            }
          : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    return; // kept from an earlier run (data on disk)
  }
  if ('TimeToLiveSpecification' in properties) {
    await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: properties.TimeToLiveSpecification }));
  }
  await client.send(new DescribeTableCommand({ TableName: tableName }));
}

export async function createTables(client: DynamoDBClient, names: TableNames): Promise<void> {
  await createTable(client, names.requests, definitions.Resources.RequestsTable.Properties);
  await createTable(client, names.contracts, definitions.Resources.ContractsTable.Properties);
}
