import type { DynamoDBRecord } from 'aws-lambda';
import { localClient } from '../../scripts/local/dynamodb-local';
import { startStreamPoller, type StreamPoller } from '../../scripts/local/stream-poller';
import { streamFilterPatterns } from '../../scripts/local/template-patterns';
import type { LifecycleStack } from './lifecycle-stack';

export type PublisherHandler = typeof import('../../functions/publish-request-events').handler;

/**
 * The real publisher fed one table's stream through its mapping's filters, as Lambda would, with
 * its log lines and metrics on as in Lambda (for the tests that read them); every record handed
 * to it is kept in `streamed`, in order.
 */
export async function publishFromStream(
  stack: LifecycleStack,
  mapping: 'requests' | 'erasures',
  streamed: DynamoDBRecord[],
): Promise<{ handler: PublisherHandler; poller: StreamPoller }> {
  Object.assign(process.env, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'false',
    POWERTOOLS_METRICS_NAMESPACE: 'ContractTermination',
  });
  const { handler } = await import('../../functions/publish-request-events');
  const poller = await startStreamPoller({
    client: localClient(stack.tables.endpoint),
    endpoint: stack.tables.endpoint,
    tableName: mapping === 'requests' ? stack.tables.names.requests : stack.tables.ledger,
    filters: streamFilterPatterns(mapping),
    deliver: (event) => {
      streamed.push(...event.Records);
      return handler(event);
    },
    onError: (error) => console.error(`Reading the ${mapping} stream failed:`, error),
    intervalMs: 50,
  });
  return { handler, poller };
}
