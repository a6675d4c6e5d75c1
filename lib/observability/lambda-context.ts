import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { metrics } from './metrics';

/**
 * Wraps an entry point the way Powertools' own middleware does, without a middleware engine:
 * every log line of the invocation carries the Lambda context (function name and version,
 * request id, cold start), and a cold start counts once in the ColdStart metric. The context is
 * optional so that tools and tests may call a handler with its event alone.
 */
export function withLambdaContext<Event, Result>(
  handler: (event: Event) => Promise<Result>,
): (event: Event, context?: Context) => Promise<Result> {
  return (event, context) => {
    if (context !== undefined) {
      logger.addContext(context);
      metrics.captureColdStartMetric(context.functionName);
    }
    return handler(event);
  };
}
