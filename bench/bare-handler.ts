import { DynamoDBClient, TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';

/*
 * The cold start baseline: a function that only builds a DynamoDB client at load and makes one
 * call, bundled by the bench with the same esbuild settings as scripts/build.ts. Its one call is
 * the floor's TransactWriteItems (passed in as the event), so both sides of the cold start ratio
 * wait for the same DynamoDB work.
 */

const endpoint = process.env['DYNAMODB_ENDPOINT'];
const client = new DynamoDBClient({
  region: process.env['AWS_REGION'] ?? 'eu-central-1',
  ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
});

export const handler = async (event: TransactWriteItemsCommandInput): Promise<{ statusCode: number; body: string }> => {
  await client.send(new TransactWriteItemsCommand(event));
  return { statusCode: 201, body: '{}' };
};
