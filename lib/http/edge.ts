import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { withLambdaContext } from '../observability/lambda-context';
import { logger } from '../observability/logger';
import { recordOutcome } from '../observability/metrics';
import type { Problem } from '../api-model/problems';
import { answerFor } from './answers';
import { edgeRefusal } from './errors';
import type { Outcome } from './outcomes';
import { correlationOf } from './correlation';
import { corsHeaders } from './cors';
import { header } from './request';
import { requestLocation } from './location';
import type { CallContext } from '../termination/call-context';
import type { Invocation } from '../retry';
import { MAX_ACCEPT_LANGUAGE_LENGTH, preferredLanguage, textsFor, type Texts } from './texts';

/** What every route reads from the event before its use case runs. */
export interface Edge {
  started: number;
  texts: Texts;
  correlationId: string;
  /** Field problems of the headers, reported with the call's own. */
  problems: Problem[];
  /** From the authorizer and from nowhere else; undefined means 401. */
  customerId: string | undefined;
  /** The browser origin the call came from, if any (CORS). */
  origin: string | undefined;
  /** Where a request of the called contract can be read back, as the client reached this API. */
  location: (requestId: string) => string;
}

export function readEdge(event: APIGatewayProxyEvent): Edge {
  const started = Date.now();
  const { correlationId, problems } = correlationOf(event);
  const acceptLanguage = header(event, 'Accept-Language');
  if (acceptLanguage !== undefined && acceptLanguage.length > MAX_ACCEPT_LANGUAGE_LENGTH) {
    problems.push({ field: 'Accept-Language', code: 'maxLength', limit: MAX_ACCEPT_LANGUAGE_LENGTH });
  }
  const fromAuthorizer: unknown = event.requestContext.authorizer?.['customerId'];
  const customerId = typeof fromAuthorizer === 'string' && fromAuthorizer !== '' ? fromAuthorizer : undefined;
  // apiRequestId joins these lines with API Gateway's access log, which cannot see request headers.
  // The customer's id is never logged (docs/data-protection.md): their calls are found by contract.
  logger.appendKeys({
    correlationId,
    apiRequestId: event.requestContext.requestId,
    contractId: event.pathParameters?.['contractId'],
  });
  return {
    started,
    texts: textsFor(preferredLanguage(acceptLanguage)),
    correlationId,
    problems,
    customerId,
    origin: header(event, 'Origin'),
    location: (requestId) => requestLocation(event, event.pathParameters?.['contractId']?.toLowerCase() ?? '', requestId),
  };
}

/** The answer to an outcome, logged once and counted once. */
export function respond(edge: Edge, outcome: Outcome, options: RouteOptions): APIGatewayProxyResult {
  const answer = answerFor(outcome, {
    correlationId: edge.correlationId,
    texts: edge.texts,
    retryAfterSeconds: options.retryAfterSeconds,
    location: edge.location,
  });
  const { log, metric } = answer.row;
  logger[log.level](log.message, {
    statusCode: answer.statusCode,
    durationMs: Date.now() - edge.started,
    outcome: log.outcome,
    ...answer.logFields,
  });
  recordOutcome(metric);
  const cors = corsHeaders(edge.origin, options.allowedOrigins);
  // An answer that varies by language too keeps both in Vary.
  const vary = [answer.response.headers?.['Vary'], cors['Vary']].filter((v) => v !== undefined).join(', ');
  return { ...answer.response, headers: { ...answer.response.headers, ...cors, Vary: vary } };
}

const UNAUTHORIZED = edgeRefusal('UNAUTHORIZED', [{ field: 'Authorization', code: 'bearerTokenRequired' }]);

export interface RouteOptions {
  retryAfterSeconds: number;
  allowedOrigins: readonly string[];
}

/** An API function's dependencies (lib/dependencies/routes.ts): how the edge answers, and what its use case needs. */
export interface RouteDependencies<Deps> {
  route: RouteOptions;
  deps: Deps;
}

/**
 * One API call from event to answer: the edge is read, a call without a customer is refused,
 * the use case runs with the customer and the call's context (the edge's problems, the words
 * in the caller's language, the time the invocation has left). Refusals, the edge's and the use
 * case's, are values; what is thrown is a failure (500), answered and logged as one.
 */
export async function answerCall(
  event: APIGatewayProxyEvent,
  invocation: Invocation,
  options: RouteOptions,
  run: (customerId: string, context: CallContext) => Outcome | Promise<Outcome>,
): Promise<APIGatewayProxyResult> {
  const edge = readEdge(event);
  let outcome: Outcome;
  try {
    outcome =
      edge.customerId === undefined
        ? UNAUTHORIZED
        : await run(edge.customerId, { problems: edge.problems, messages: edge.texts, invocation });
  } catch (error) {
    outcome = { kind: 'failed', error };
  }
  return respond(edge, outcome, options);
}

/**
 * An API function: built by `build` (lib/dependencies/routes.ts) and wrapped as every function
 * is (withLambdaContext); each call answered by answerCall, with `run` the route's own part: the
 * use case, called with what the event says.
 */
export function apiRoute<Deps>(
  build: () => RouteDependencies<Deps>,
  run: (event: APIGatewayProxyEvent, deps: Deps, customerId: string, context: CallContext) => Outcome | Promise<Outcome>,
): (event: APIGatewayProxyEvent, context?: Context) => Promise<APIGatewayProxyResult> {
  return withLambdaContext(build, (event: APIGatewayProxyEvent, { route, deps }, invocation) =>
    answerCall(event, invocation, route, (customerId, context) => run(event, deps, customerId, context)),
  );
}
