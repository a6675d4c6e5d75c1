import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AwsServiceConfig } from '../config';
import { localEndpoint } from './local-endpoint';

/** What an operator finds in a dead-letter queue: why, and the event itself to redrive once fixed. */
export interface DeadLetter {
  reason: string;
  problems: string[];
  event: unknown;
}

export interface DeadLetterQueue {
  send: (letter: DeadLetter) => Promise<void>;
}

/** One SQS client per function, built at module load. */
export function deadLetterQueueFor(queueUrl: string, config: AwsServiceConfig): DeadLetterQueue {
  const client = new SQSClient({
    region: config.region,
    maxAttempts: 3,
    ...localEndpoint(config.endpoint),
  });
  return {
    send: async (letter) => {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(letter) }));
    },
  };
}
