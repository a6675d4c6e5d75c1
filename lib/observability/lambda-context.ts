import type { Context } from 'aws-lambda';
import { NO_TIME_LIMIT, type Invocation } from '../retry';
import { logger } from './logger';
import { metrics } from './metrics';

/**
 * The one entry-point wrapper, the way Powertools' own middleware works, without a middleware
 * engine. Every function is built the same way: `build` makes its dependencies (lib/dependencies/)
 * once, when the module loads, so a wrong setting fails the cold start; every invocation then starts with the logger's keys of the
 * one before removed (where functions share a process, as tests and tools do, no other's either),
 * every log line carries the Lambda context (function name and version, request id, cold start),
 * a cold start counts once in the ColdStart metric, and the handler gets the dependencies and the
 * time the invocation has left, which bounds its retries (lib/retry.ts). The context is optional
 * so that tools and tests may call a handler with its event alone.
 */
export function withLambdaContext<Deps, Event, Result>(
  build: () => Deps,
  handler: (event: Event, deps: Deps, invocation: Invocation) => Promise<Result>,
): (event: Event, context?: Context) => Promise<Result> {
  const deps = build();
  return (event, context) => {
    logger.resetKeys();
    if (context === undefined) return handler(event, deps, NO_TIME_LIMIT);
    logger.addContext(context);
    metrics.captureColdStartMetric(context.functionName);
    return handler(event, deps, { remainingMs: () => context.getRemainingTimeInMillis() });
  };
}
