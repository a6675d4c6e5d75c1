import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbConfig } from '../config';
import { localEndpoint } from './local-endpoint';

/**
 * Builds the document client. Call it once per function, at module load, and reuse it: the
 * client keeps its TCP/TLS connections alive between invocations.
 */
export function createDocumentClient(config: DynamoDbConfig): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    maxAttempts: config.maxAttempts,
    // throwOnRequestTimeout: without it the SDK only warns when a request outlives requestTimeout.
    requestHandler: { requestTimeout: config.requestTimeoutMs, connectionTimeout: config.connectTimeoutMs, throwOnRequestTimeout: true },
    ...localEndpoint(config.endpoint),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}
