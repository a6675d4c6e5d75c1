import { LOCAL_ACCOUNT_ID } from '../../scripts/local/template-patterns';
import type { DynamoDBRecord, EventBridgeEvent } from 'aws-lambda';
import { startAwsStandIn, type AwsStandIn } from '../../scripts/local/aws-stand-in';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { localClient } from '../../scripts/local/dynamodb-local';
import { startStreamPoller, type StreamPoller } from '../../scripts/local/stream-poller';
import { streamFilterPatterns } from '../../scripts/local/template-patterns';
import { useFreshTables, type TestTables } from './local-tables';

export const TEST_BUS = 'termination-events-test';

export interface LifecycleStack {
  tables: TestTables;
  standIn: AwsStandIn;
  deadLetterQueueUrl: string;
  /** Where the consumer finds the local back office's keys (DECISION_JWKS_URI). */
  backOfficeJwksUri: string;
  /** Records the poller gave up on, as the mapping's on-failure destination would. */
  unpublished: DynamoDBRecord[];
  /** Starts reading the table's stream into the real publisher handler; drain() waits for it to catch up. */
  startPublishing: () => Promise<StreamPoller>;
  /** The real consumer handler. */
  decide: (event: EventBridgeEvent<string, unknown>) => Promise<{ outcome: string }>;
  stop: () => Promise<void>;
}

/**
 * Fresh tables (stream on), the EventBridge/SQS stand-in, the local back office's JWKS, and the
 * environment both lifecycle functions read at import. Import handlers only after it.
 */
export async function useLifecycleStack(): Promise<LifecycleStack> {
  const tables = await useFreshTables();
  const standIn = await startAwsStandIn();
  const deadLetterQueueUrl = `${standIn.endpoint}/000000000000/decision-dead-letters`;
  const jwks = await startJwksServer({ keys: [] }, 0);
  Object.assign(process.env, {
    DECISION_JWKS_URI: jwks.backOfficeUri,
    EVENT_BUS_NAME: TEST_BUS,
    EVENTBRIDGE_ENDPOINT: standIn.endpoint,
    SQS_ENDPOINT: standIn.endpoint,
    KMS_ENDPOINT: standIn.endpoint,
    EVENT_SIGNING_KEY_ID: standIn.kms.key.keyId,
    DECISION_DEAD_LETTER_QUEUE_URL: deadLetterQueueUrl,
    DECISION_ACCOUNT_ID: LOCAL_ACCOUNT_ID,
    PUBLISH_MAX_ATTEMPTS: '3',
  });
  const unpublished: DynamoDBRecord[] = [];
  const pollers: StreamPoller[] = [];
  return {
    tables,
    standIn,
    deadLetterQueueUrl,
    backOfficeJwksUri: jwks.backOfficeUri,
    unpublished,
    startPublishing: async () => {
      const { handler } = await import('../../functions/publish-request-events');
      const poller = await startStreamPoller({
        client: localClient(tables.endpoint),
        endpoint: tables.endpoint,
        tableName: tables.names.requests,
        filters: streamFilterPatterns(),
        deliver: handler,
        onDeadLetter: (records) => unpublished.push(...records),
        onError: (error) => console.error('Reading the stream failed:', error),
        maxRetries: 2,
        intervalMs: 50,
      });
      pollers.push(poller);
      return poller;
    },
    decide: async (event) => (await import('../../functions/apply-status-decision')).handler(event),
    stop: async () => {
      for (const poller of pollers) await poller.stop();
      await standIn.stop();
      await jwks.stop();
    },
  };
}
