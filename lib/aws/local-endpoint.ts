/**
 * The client settings for a local stand-in (DynamoDB Local, the EventBridge/SQS stand-in): its
 * endpoint and throwaway credentials, since the stand-ins accept any and real AWS ones must never
 * be needed on a laptop. Nothing without an endpoint: the SDK's own chain, as in AWS.
 */
export function localEndpoint(endpoint: string | undefined): {
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
} {
  return endpoint === undefined ? {} : { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
}
