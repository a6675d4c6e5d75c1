import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/*
 * REST API (v1) proxy events as API Gateway sends them to the route after the TOKEN authorizer
 * (the customer in requestContext.authorizer), the authorizer's own event, and a Lambda context.
 */

export interface CallOptions {
  customerId: string;
  contractId: string;
  idempotencyKey: string;
  body: unknown;
}

export function apiEvent({ customerId, contractId, idempotencyKey, body }: CallOptions): APIGatewayProxyEvent {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Host: 'api.example.test',
    'Idempotency-Key': idempotencyKey,
    'X-Correlation-Id': randomUUID(),
  };
  const path = `/api/v1/contracts/${contractId}/termination-requests`;
  return {
    resource: '/api/v1/contracts/{contractId}/termination-requests',
    path,
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { contractId },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123def4',
      authorizer: { customerId, principalId: customerId, integrationLatency: 12 },
      protocol: 'HTTP/1.1',
      httpMethod: 'POST',
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '203.0.113.10',
        user: null,
        userAgent: 'termination-bench',
        userArn: null,
      },
      path: `/dev${path}`,
      stage: 'dev',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'abc123',
      resourcePath: '/api/v1/contracts/{contractId}/termination-requests',
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}

export const METHOD_ARN = 'arn:aws:execute-api:eu-central-1:123456789012:abc123def4/dev/POST/api/v1/contracts/a1a1a1a1-0000-4000-8000-000000000001/termination-requests';

export function authorizerEvent(token: string): APIGatewayTokenAuthorizerEvent {
  return { type: 'TOKEN', authorizationToken: `Bearer ${token}`, methodArn: METHOD_ARN };
}

/** A Lambda context with 10 s left, as the create function's timeout gives. */
export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-central-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The HTTP status of a handler's answer, or 0 when the answer is not an API Gateway result. */
export function statusOf(result: unknown): number {
  return result !== null && typeof result === 'object' && 'statusCode' in result && typeof result.statusCode === 'number' ? result.statusCode : 0;
}

export function bodyOf(result: unknown): string {
  return result !== null && typeof result === 'object' && 'body' in result && typeof result.body === 'string' ? result.body : '';
}
