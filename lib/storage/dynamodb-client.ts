import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbConfig } from '../config/config';

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
    ...(config.endpoint
      ? // DynamoDB Local accepts any credentials; real AWS ones must never be needed on a laptop.
        { endpoint: config.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

const UNAVAILABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'TransactionInProgressException',
  'AbortError',
]);

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/** True when DynamoDB was throttled, unreachable or too slow: the client may retry later (docs/decisions/0012-failures-and-logging.md). */
export function isDynamoDbUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  const code = 'code' in error ? error.code : undefined;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const status =
    '$metadata' in error && typeof error.$metadata === 'object' && error.$metadata !== null && 'httpStatusCode' in error.$metadata
      ? error.$metadata.httpStatusCode
      : undefined;
  return typeof status === 'number' && status >= 500;
}
