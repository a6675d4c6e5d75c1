import { DynamoDBClient, TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';

/*
 * The cold start baseline: builds a DynamoDB client at load and sends the TransactWriteItems it
 * is given (the floor's), so both sides of the cold start ratio wait for the same DynamoDB work.
 */

const client = new DynamoDBClient({
  region: process.env['AWS_REGION'],
  endpoint: process.env['DYNAMODB_ENDPOINT'],
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

export const handler = async (event: TransactWriteItemsCommandInput): Promise<{ statusCode: number }> => {
  await client.send(new TransactWriteItemsCommand(event));
  return { statusCode: 201 };
};
