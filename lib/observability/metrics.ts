import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * CloudWatch metrics (Embedded Metric Format through Powertools): one count per answer, in the
 * metric its outcome's row names (lib/http/outcomes.ts). Service and namespace from
 * POWERTOOLS_SERVICE_NAME and POWERTOOLS_METRICS_NAMESPACE (serverless.yml); off where
 * POWERTOOLS_METRICS_DISABLED=true (the local stack, the tests).
 */
export const metrics = new Metrics();

/** One count in `metric`, published at once. */
export function recordOutcome(metric: string): void {
  metrics.addMetric(metric, MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}

/** `count` in `metric` at once (a publisher's batch counts its unconfirmed records in one line). */
export function recordCount(metric: string, count: number): void {
  metrics.addMetric(metric, MetricUnit.Count, count);
  metrics.publishStoredMetrics();
}
