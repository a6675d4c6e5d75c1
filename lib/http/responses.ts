import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, ServiceUnavailableError } from './errors';
import type { Texts } from './texts';
import type { ErrorBody } from '../validation/schemas';

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

export function jsonResponse(
  statusCode: number,
  body: unknown,
  correlationId: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { ...JSON_HEADERS, 'X-Correlation-Id': correlationId, ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * The one mapping from errors to HTTP (spec section 7). Anything that is not an ApiError is a
 * 500 with a generic text: internals stay in the log, never in the body.
 */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError('INTERNAL_ERROR');
}

export function errorResponse(apiError: ApiError, correlationId: string, texts: Texts, retryAfterSeconds: number): APIGatewayProxyResult {
  const body: ErrorBody = {
    errorCode: apiError.errorCode,
    message: texts.error(apiError.errorCode, apiError.messageArgs),
    correlationId,
    details: apiError.details,
  };
  const headers: Record<string, string> = apiError instanceof ServiceUnavailableError ? { 'Retry-After': String(retryAfterSeconds) } : {};
  return jsonResponse(apiError.status, body, correlationId, headers);
}
