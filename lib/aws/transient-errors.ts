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

/**
 * True when an AWS service (DynamoDB, EventBridge, SQS) was throttled, unreachable or too slow:
 * trying again later may work (docs/decisions/0012-failures-and-logging.md). No SDK import, so a
 * function that needs only this carries no DynamoDB client.
 */
export function isTransientAwsError(error: unknown): boolean {
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
