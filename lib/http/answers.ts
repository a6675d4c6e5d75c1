import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Refusal } from '../termination/refusals';
import type { ErrorBody, TerminationRequest } from '../api-model/schemas';
import type { RequestView } from '../termination/read-termination-requests';
import { maskAccountNumber } from '../observability/logger';
import type { ErrorCode } from './errors';
import { OUTCOMES, type Outcome, type OutcomeKey } from './outcomes';
import type { Texts } from './texts';

/*
 * Where outcomes become HTTP: the headers and the words of the body
 * (docs/decisions/0010-responses-and-texts.md, 0011-error-body.md), with the status, log line and
 * metric their row of lib/http/outcomes.ts chooses.
 */

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
  /** The outcome's row: its log line and its metric. */
  row: (typeof OUTCOMES)[OutcomeKey];
  /** What the log line says of this answer besides: ids, a count, the error. */
  logFields: Record<string, unknown>;
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

function errorAnswer(refusal: Refusal<ErrorCode>, context: AnswerContext, logFields: Record<string, unknown> = {}): Answer {
  const { code, problems, requestNumber, nextRequestAllowedAt, timeZone } = refusal;
  const row = OUTCOMES[code];
  const body: ErrorBody = {
    errorCode: code,
    message: context.texts.error(code, { requestNumber, nextRequestAllowedAt, timeZone }),
    correlationId: context.correlationId,
    // An error answer is never much bigger than the call (docs/decisions/0009-input-validation.md).
    details: problems.slice(0, MAX_DETAILS).map((problem) => ({
      field: Array.from(problem.field).slice(0, MAX_FIELD_CHARACTERS).join(''),
      reason: context.texts.problem(problem),
    })),
    // REQUEST_LIMIT_REACHED: when a new request is possible, for a client to read (0020-request-limit.md).
    ...(nextRequestAllowedAt === undefined ? {} : { nextRequestAllowedAt }),
  };
  const headers: Record<string, string> = {};
  if (code === 'SERVICE_UNAVAILABLE') headers['Retry-After'] = String(context.retryAfterSeconds);
  if (code === 'UNAUTHORIZED') headers['WWW-Authenticate'] = 'Bearer';
  return {
    response: json(row.status, body, context.correlationId, headers),
    statusCode: row.status,
    errorCode: code,
    row,
    logFields: { errorCode: code, ...logFields },
  };
}

/** A success: its row's status, the body, and what its log line says. */
function success(key: OutcomeKey, body: unknown, context: AnswerContext, logFields: Record<string, unknown>, headers = {}): Answer {
  const row = OUTCOMES[key];
  return { response: json(row.status, body, context.correlationId, headers), statusCode: row.status, errorCode: undefined, row, logFields };
}

/** A request read back, with the message for its current status in the caller's language. */
const shown = (request: RequestView, texts: Texts): TerminationRequest => ({ ...request, message: texts.requestStatus(request) });

/** The request or the list; a refusal as an error body; 503 with Retry-After; anything else a bare 500. */
export function answerFor(outcome: Outcome, context: AnswerContext): Answer {
  switch (outcome.kind) {
    case 'created':
    case 'replayed': {
      const headers: Record<string, string> = { Location: context.location(outcome.request.requestId) };
      if (outcome.kind === 'replayed') headers['Idempotent-Replayed'] = 'true';
      const logged = { requestId: outcome.request.requestId, refundAccount: maskAccountNumber(outcome.refundAccount) };
      return success(outcome.kind, outcome.request, context, logged, headers);
    }
    case 'found':
      return success(outcome.kind, shown(outcome.request, context.texts), context, { requestId: outcome.request.requestId });
    case 'listed': {
      const items = outcome.requests.map((request) => shown(request, context.texts));
      const body = {
        items,
        ...(outcome.nextCursor === undefined ? {} : { nextCursor: outcome.nextCursor }),
        ...(outcome.nextRequestAllowedAt === undefined ? {} : { nextRequestAllowedAt: outcome.nextRequestAllowedAt }),
      };
      return success(outcome.kind, body, context, { count: outcome.requests.length });
    }
    case 'details': {
      const { request, submitted, timeline } = outcome.details;
      const body = { request: shown(request, context.texts), submitted, timeline };
      return success(outcome.kind, body, context, { requestId: request.requestId });
    }
    case 'customer-listed': {
      const items = outcome.requests.map(({ contractId, request }) => ({ contractId, request: shown(request, context.texts) }));
      const body = { items, ...(outcome.nextCursor === undefined ? {} : { nextCursor: outcome.nextCursor }) };
      return success(outcome.kind, body, context, { count: outcome.requests.length });
    }
    case 'withdrawn':
    case 'withdrawal-replayed': {
      const headers: Record<string, string> = outcome.kind === 'withdrawal-replayed' ? { 'Idempotent-Replayed': 'true' } : {};
      return success(outcome.kind, outcome.withdrawal, context, { requestId: outcome.withdrawal.requestId }, headers);
    }
    case 'reasons': {
      const items = outcome.reasons.map((reason) => ({ ...reason, label: context.texts.reasons[reason.reasonCode] }));
      // The same for every customer and for a day at least: browsers and apps may keep it, per language.
      const headers = { 'Cache-Control': 'private, max-age=3600', Vary: 'Accept-Language' };
      return success(outcome.kind, { items }, context, { count: outcome.reasons.length }, headers);
    }
    case 'refused':
      return errorAnswer(outcome.refusal, context);
    case 'unavailable':
      return errorAnswer({ code: 'SERVICE_UNAVAILABLE', problems: [] }, context, { error: outcome.cause });
    case 'failed':
      // Internals stay in the log; the body says only that it was our fault.
      return errorAnswer({ code: 'INTERNAL_ERROR', problems: [] }, context, { error: outcome.error });
  }
}
