import type { APIGatewayProxyResult } from 'aws-lambda';
import type { CreateOutcome } from '../termination/create-termination-request';
import type { ReadOutcome } from '../termination/read-termination-requests';
import type { WithdrawOutcome } from '../termination/withdraw-termination-request';
import type { ReasonsOutcome } from '../termination/reasons';
import type { Refusal } from '../termination/refusals';
import type { ErrorBody } from '../api-model/schemas';
import { ERROR_STATUS, type ErrorCode } from './errors';
import type { Texts } from './texts';

/*
 * The one place where outcomes become HTTP: status, headers and the words of the body
 * (docs/decisions/0010-responses-and-texts.md, 0011-error-body.md).
 */

/** What the edge saw, on top of the use case's outcomes: its own refusals and plain failures. */
export type Outcome =
  | CreateOutcome
  | ReadOutcome
  | WithdrawOutcome
  | ReasonsOutcome
  | { kind: 'refused'; refusal: Refusal<ErrorCode> }
  | { kind: 'failed'; error: unknown };

export interface AnswerContext {
  correlationId: string;
  texts: Texts;
  retryAfterSeconds: number;
  /** Where the created request can be read back. */
  location: (requestId: string) => string;
}

export interface Answer {
  response: APIGatewayProxyResult;
  statusCode: number;
  errorCode: ErrorCode | undefined;
}

/** At most this many details, and this many characters of a field name the client made up. */
export const MAX_DETAILS = 20;
export const MAX_FIELD_CHARACTERS = 100;

/** On every answer; the gateway's own answers carry the same (resources/api.yml). */
export const SECURITY_HEADERS = {
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', ...SECURITY_HEADERS };

function json(statusCode: number, body: unknown, correlationId: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, 'X-Correlation-Id': correlationId, ...headers }, body: JSON.stringify(body) };
}

export function errorAnswer(refusal: Refusal<ErrorCode>, context: AnswerContext): Answer {
  const { code, problems, requestNumber } = refusal;
  const statusCode = ERROR_STATUS[code];
  const body: ErrorBody = {
    errorCode: code,
    message: context.texts.error(code, { requestNumber }),
    correlationId: context.correlationId,
    // An error answer is never much bigger than the call (docs/decisions/0009-input-validation.md).
    details: problems.slice(0, MAX_DETAILS).map((problem) => ({
      field: Array.from(problem.field).slice(0, MAX_FIELD_CHARACTERS).join(''),
      reason: context.texts.problem(problem),
    })),
  };
  const headers: Record<string, string> = {};
  if (code === 'SERVICE_UNAVAILABLE') headers['Retry-After'] = String(context.retryAfterSeconds);
  if (code === 'UNAUTHORIZED') headers['WWW-Authenticate'] = 'Bearer';
  return { response: json(statusCode, body, context.correlationId, headers), statusCode, errorCode: code };
}

/** 201 or 200 with the request; a refusal as an error body; 503 with Retry-After; anything else a bare 500. */
export function answerFor(outcome: Outcome, context: AnswerContext): Answer {
  switch (outcome.kind) {
    case 'created':
    case 'replayed': {
      const statusCode = outcome.kind === 'created' ? 201 : 200;
      const headers: Record<string, string> = { Location: context.location(outcome.request.requestId) };
      if (outcome.kind === 'replayed') headers['Idempotent-Replayed'] = 'true';
      return { response: json(statusCode, outcome.request, context.correlationId, headers), statusCode, errorCode: undefined };
    }
    case 'found':
      return { response: json(200, outcome.request, context.correlationId), statusCode: 200, errorCode: undefined };
    case 'listed': {
      const body = { items: outcome.requests, ...(outcome.nextCursor === undefined ? {} : { nextCursor: outcome.nextCursor }) };
      return { response: json(200, body, context.correlationId), statusCode: 200, errorCode: undefined };
    }
    case 'withdrawn':
    case 'withdrawal-replayed': {
      const headers: Record<string, string> = outcome.kind === 'withdrawal-replayed' ? { 'Idempotent-Replayed': 'true' } : {};
      return { response: json(200, outcome.withdrawal, context.correlationId, headers), statusCode: 200, errorCode: undefined };
    }
    case 'reasons': {
      const items = outcome.reasons.map((reason) => ({ ...reason, label: context.texts.reasons[reason.reasonCode] }));
      // The same for every customer and for a day at least: browsers and apps may keep it, per language.
      const headers = { 'Cache-Control': 'private, max-age=3600', Vary: 'Accept-Language' };
      return { response: json(200, { items }, context.correlationId, headers), statusCode: 200, errorCode: undefined };
    }
    case 'refused':
      return errorAnswer(outcome.refusal, context);
    case 'unavailable':
      return errorAnswer({ code: 'SERVICE_UNAVAILABLE', problems: [] }, context);
    case 'failed':
      // Internals stay in the log; the body says only that it was our fault.
      return errorAnswer({ code: 'INTERNAL_ERROR', problems: [] }, context);
  }
}
