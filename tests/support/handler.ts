import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { apiEvent, type EventOptions } from '../../scripts/local/api-event';
import { parsedObject } from './json';

/** What a route's handler answered, its body parsed (empty when it is no JSON object). */
export interface HandlerAnswer {
  status: number;
  headers: Record<string, string | number | boolean>;
  body: Record<string, unknown>;
  raw: string;
}

/** The handler API Gateway would call for the event's method and resource. */
async function routeOf(event: APIGatewayProxyEvent): Promise<(event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>> {
  if (event.resource.endsWith('/withdrawal')) return (await import('../../functions/withdraw-termination-request')).handler;
  if (event.resource.endsWith('/details')) return (await import('../../functions/get-termination-request-details')).handler;
  if (event.resource === '/api/v1/termination-requests')
    return (await import('../../functions/list-customer-termination-requests')).handler;
  if (event.httpMethod === 'POST') return (await import('../../functions/create-termination-request')).handler;
  if (event.resource.endsWith('{requestId}')) return (await import('../../functions/get-termination-request')).handler;
  return (await import('../../functions/list-termination-requests')).handler;
}

/**
 * Sends one API Gateway event to its route's handler. A handler reads its configuration when it
 * is imported, which happens at a test file's first call: set the environment (useFreshTables)
 * before it.
 */
export async function sendEvent(event: APIGatewayProxyEvent): Promise<HandlerAnswer> {
  const result = await (await routeOf(event))(event);
  return { status: result.statusCode, headers: result.headers ?? {}, body: parsedObject(result.body), raw: result.body };
}

/** A customer's withdrawal of a request, with a key (a new one unless given) and any other headers. */
export function withdrawalOf(
  request: { contractId: string; requestId: string },
  customerId: string,
  key: string = randomUUID(),
  headers: Record<string, string> = {},
): EventOptions {
  return { method: 'POST', withdrawal: true, ...request, customerId, headers: { 'Idempotency-Key': key, ...headers } };
}

/** Calls the route's handler with the event apiEvent makes of `options` (a create unless told otherwise). */
export function callHandler(options: EventOptions): Promise<HandlerAnswer> {
  return sendEvent(apiEvent(options));
}
