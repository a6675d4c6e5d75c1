import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * CloudWatch metrics (Embedded Metric Format through Powertools): one count per answer, named
 * for what happened. Service and namespace from POWERTOOLS_SERVICE_NAME and
 * POWERTOOLS_METRICS_NAMESPACE (serverless.yml); off where
 * POWERTOOLS_METRICS_DISABLED=true (the local stack, the tests).
 */
export const metrics = new Metrics();

export type OutcomeMetric =
  | 'RequestsCreated'
  | 'RequestsReplayed'
  | 'RequestsRead'
  | 'RequestsWithdrawn'
  | 'ActiveRequestConflicts'
  | 'BusinessRejections'
  | 'ValidationFailures'
  | 'AccessRefusals'
  | 'DependencyFailures'
  | 'InternalErrors';

/** The metric an answer counts in, by its status (docs/decisions/0011-error-body.md). */
export function outcomeMetric(statusCode: number, read = false, withdrawn = false): OutcomeMetric {
  if (read && statusCode === 200) return 'RequestsRead';
  if (withdrawn) return 'RequestsWithdrawn';
  switch (statusCode) {
    case 201:
      return 'RequestsCreated';
    case 200:
      return 'RequestsReplayed';
    case 409:
      return 'ActiveRequestConflicts';
    case 422:
      return 'BusinessRejections';
    case 400:
      return 'ValidationFailures';
    case 401:
    case 403:
    case 404:
      return 'AccessRefusals';
    case 503:
      return 'DependencyFailures';
    default:
      return 'InternalErrors';
  }
}

/** One count per answer; `read` for the GET routes, whose 200 is a read, not a replay. */
export function recordOutcome(statusCode: number, read = false, withdrawn = false): void {
  metrics.addMetric(outcomeMetric(statusCode, read, withdrawn), MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}
