import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { apiEvent as routeEvent, authorizerEvent as requestAuthorizerEvent } from '../scripts/local/api-event';

/*
 * REST API (v1) proxy events as API Gateway sends them to the route after the REQUEST authorizer
 * (the customer in requestContext.authorizer), the authorizer's own event, and a Lambda context.
 */

export interface CallOptions {
  customerId: string;
  contractId: string;
  idempotencyKey: string;
  body: unknown;
}

export function apiEvent({ customerId, contractId, idempotencyKey, body }: CallOptions): APIGatewayProxyEvent {
  return routeEvent({ customerId, contractId, body, headers: { 'Idempotency-Key': idempotencyKey, 'X-Correlation-Id': randomUUID() } });
}

export function authorizerEvent(token: string): APIGatewayRequestAuthorizerEvent {
  return requestAuthorizerEvent(`Bearer ${token}`);
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
  return result !== null && typeof result === 'object' && 'statusCode' in result && typeof result.statusCode === 'number'
    ? result.statusCode
    : 0;
}

export function bodyOf(result: unknown): string {
  return result !== null && typeof result === 'object' && 'body' in result && typeof result.body === 'string' ? result.body : '';
}
