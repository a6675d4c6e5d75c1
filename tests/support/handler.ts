import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiEvent, type EventOptions } from '../../scripts/local/api-event';
import { parsedObject } from './json';

/** What the create handler answered, its body parsed (empty when it is no JSON object). */
export interface HandlerAnswer {
  status: number;
  headers: Record<string, string | number | boolean>;
  body: Record<string, unknown>;
  raw: string;
}

/**
 * Sends one API Gateway event to the create handler. The handler reads its configuration when it
 * is imported, which happens at a test file's first call: set the environment (useFreshTables)
 * before it.
 */
export async function sendEvent(event: APIGatewayProxyEvent): Promise<HandlerAnswer> {
  const { handler } = await import('../../functions/create-termination-request');
  const result = await handler(event);
  return { status: result.statusCode, headers: result.headers ?? {}, body: parsedObject(result.body), raw: result.body };
}

/** Calls the create handler with the event apiEvent makes of `options`. */
export function callHandler(options: EventOptions): Promise<HandlerAnswer> {
  return sendEvent(apiEvent(options));
}
