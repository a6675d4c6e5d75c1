import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { EventBridgeEvent } from 'aws-lambda';
import { streamBatchInfoOf } from './stream-mapping';

/*
 * The redrive of the two dead-letter queues (npm run redrive; docs/operations.md). Each run
 * first takes up to `max` messages off the queue (hidden from other readers for the run), then
 * handles them one by one: a message is deleted only when its function took it (the consumer
 * answered, the publisher handed nothing back), else it is made visible again at once. A
 * message the run itself causes (the consumer refusing the event again writes a new dead letter)
 * is never read by the same run: no loop. The functions are called through `invoke` functions,
 * so tests hand in the real handlers, the CLI serverless offline's or AWS's.
 */

/** A message as read off the queue. */
export interface DeadLetterMessage {
  messageId: string;
  body: string;
  sentAt: Date | undefined;
  receiveCount: number | undefined;
}

export interface DeadLetterQueueClient {
  /** Up to `max` messages, each hidden from other readers until the run deletes or releases it. */
  receive: (max: number) => Promise<DeadLetterMessage[]>;
  delete: (message: DeadLetterMessage) => Promise<void>;
  /** Visible again at once: a message kept, or any message of a dry run. */
  release: (message: DeadLetterMessage) => Promise<void>;
  /** Messages waiting, and in flight (received by someone, not yet deleted). */
  depth: () => Promise<{ waiting: number; inFlight: number }>;
}

export interface RedriveResult {
  messageId: string;
  /** decisions: refused, retries-exhausted, undelivered; publisher: stream-batch; either: unreadable. */
  kind: string;
  /** What the message is about, by ids and positions only (the events carry personal data). */
  about: string;
  /** What happened, in words. */
  outcome: string;
  action: 'deleted' | 'kept' | 'would delete' | 'would keep' | 'would redrive';
}

interface RedriveOptions {
  queue: DeadLetterQueueClient;
  max: number;
  dryRun: boolean;
  /** Each result as soon as it is known (the CLI prints it). */
  onResult?: (result: RedriveResult) => void;
}

type Verdict = Omit<RedriveResult, 'messageId' | 'action'> & { take: boolean | 'redrive' };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** Receives, judges each message, then deletes or releases it. */
async function redrive(options: RedriveOptions, judge: (body: unknown) => Promise<Verdict>): Promise<RedriveResult[]> {
  const messages = await options.queue.receive(options.max);
  const results: RedriveResult[] = [];
  for (const received of messages) {
    let verdict: Verdict;
    try {
      verdict = await judge(parseBody(received.body));
    } catch (error) {
      verdict = { kind: 'unreadable', about: '', outcome: `the redrive failed: ${message(error)}`, take: false };
    }
    let action: RedriveResult['action'];
    if (options.dryRun) {
      action = verdict.take === 'redrive' ? 'would redrive' : verdict.take ? 'would delete' : 'would keep';
      await options.queue.release(received);
    } else if (verdict.take === true) {
      await options.queue.delete(received);
      action = 'deleted';
    } else {
      await options.queue.release(received);
      action = 'kept';
    }
    const result: RedriveResult = {
      messageId: received.messageId,
      kind: verdict.kind,
      about: verdict.about,
      outcome: verdict.outcome,
      action,
    };
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

// ---- the decision dead-letter queue --------------------------------------------------------

/** The three kinds of message the decision queue holds (docs/operations.md, Dead letters). */
export type DecisionLetter =
  /** The consumer's own: it refused the event for good ({reason, problems, event}). */
  | { kind: 'refused'; refusal: string; event: unknown }
  /** Lambda's on-failure destination: the consumer threw on every try ({requestContext, requestPayload, ...}). */
  | { kind: 'retries-exhausted'; condition: string; event: unknown }
  /** The rule's dead-letter queue: EventBridge could not invoke the consumer; the body is the event. */
  | { kind: 'undelivered'; event: unknown };

export function readDecisionLetter(body: unknown): DecisionLetter | undefined {
  if (!isObject(body)) return undefined;
  if (typeof body['reason'] === 'string' && 'event' in body) return { kind: 'refused', refusal: body['reason'], event: body['event'] };
  const context = body['requestContext'];
  if (isObject(context) && 'requestPayload' in body) {
    return { kind: 'retries-exhausted', condition: String(context['condition']), event: body['requestPayload'] };
  }
  if ('detail-type' in body && 'source' in body && 'detail' in body) return { kind: 'undelivered', event: body };
  return undefined;
}

export function isEventBridgeEvent(value: unknown): value is EventBridgeEvent<string, unknown> {
  return (
    isObject(value) &&
    typeof value['id'] === 'string' &&
    typeof value['version'] === 'string' &&
    typeof value['detail-type'] === 'string' &&
    typeof value['source'] === 'string' &&
    typeof value['account'] === 'string' &&
    typeof value['time'] === 'string' &&
    typeof value['region'] === 'string' &&
    Array.isArray(value['resources']) &&
    'detail' in value
  );
}

/** The decision's ids and status: never its reason, which is words for the customer. */
function aboutDecision(event: unknown): string {
  const detail = isObject(event) ? event['detail'] : undefined;
  if (!isObject(detail)) return 'no readable detail';
  return ['eventId', 'requestId', 'contractId', 'status']
    .flatMap((field) => {
      const value = detail[field];
      return typeof value === 'string' ? [`${field}=${value}`] : [];
    })
    .join(' ');
}

function letterKind(letter: DecisionLetter): string {
  if (letter.kind === 'refused') return `refused (${letter.refusal})`;
  if (letter.kind === 'retries-exhausted') return `retries exhausted (${letter.condition})`;
  return 'undelivered by the rule';
}

/**
 * The decision queue: each message's event goes to the consumer again. It is deleted once the
 * consumer answered: applied, a duplicate, or refused again, in which case the consumer has
 * written a new dead letter with today's reason. It is kept when the consumer failed.
 */
export function redriveDecisions(
  options: RedriveOptions & { consumer: (event: EventBridgeEvent<string, unknown>) => Promise<unknown> },
): Promise<RedriveResult[]> {
  return redrive(options, async (body) => {
    const letter = readDecisionLetter(body);
    if (letter === undefined)
      return { kind: 'unreadable', about: '', outcome: 'no event found in the message: read it by hand', take: false };
    const kind = letterKind(letter);
    const about = aboutDecision(letter.event);
    if (!isEventBridgeEvent(letter.event))
      return { kind, about, outcome: 'the event is no EventBridge event: read it by hand', take: false };
    if (options.dryRun) return { kind, about, outcome: 'would hand the event to the consumer', take: 'redrive' };
    let answer: unknown;
    try {
      answer = await options.consumer(letter.event);
    } catch (error) {
      return { kind, about, outcome: `the consumer failed: ${message(error)}`, take: false };
    }
    const outcome = isObject(answer) ? answer['outcome'] : undefined;
    if (outcome === 'applied') return { kind, about, outcome: 'applied', take: true };
    if (outcome === 'duplicate') return { kind, about, outcome: 'already applied (duplicate)', take: true };
    if (typeof outcome === 'string') {
      return { kind, about, outcome: `refused again (${outcome}): the consumer wrote a new dead letter`, take: true };
    }
    return { kind, about, outcome: `the consumer answered ${JSON.stringify(answer)}`, take: false };
  });
}

// ---- the publisher dead-letter queue -------------------------------------------------------

const DAY_MS = 86_400_000;

/** The publisher's answer to a redrive (lib/events/stream-redrive.ts), read from its JSON. */
function redriveAnswer(answer: unknown): { records: number; handedBack: unknown } | { gone: string } | undefined {
  if (!isObject(answer)) return undefined;
  if (answer['outcome'] === 'gone') return { gone: String(answer['detail']) };
  if (answer['outcome'] === 'redriven' && typeof answer['records'] === 'number')
    return { records: answer['records'], handedBack: answer['handedBack'] };
  return undefined;
}

/**
 * The publisher queue: each message names a batch by its stream positions. They are handed to
 * the publisher (a redrive command, lib/events/stream-redrive.ts), which reads the records from
 * its stream with its own role and publishes them as the mapping would: whoever runs this never
 * reads the stream. The message is deleted when the publisher handed nothing back. Records the
 * stream no longer holds (kept 24 h) cannot be read: the message is kept and the run says so.
 */
export function redrivePublisher(
  options: RedriveOptions & {
    publisher: (command: unknown) => Promise<unknown>;
    /** Names this stream instead of the one each message names. */
    streamArn?: string;
    now?: () => Date;
  },
): Promise<RedriveResult[]> {
  return redrive(options, async (body) => {
    const batch = streamBatchInfoOf(body);
    if (batch === undefined)
      return { kind: 'unreadable', about: '', outcome: 'no DDBStreamBatchInfo in the message: read it by hand', take: false };
    const kind = 'stream-batch';
    const about = `shard ${batch.shardId} ${batch.startSequenceNumber}..${batch.endSequenceNumber} (${batch.batchSize} records from ${batch.approximateArrivalOfFirstRecord || '?'})`;
    if (options.dryRun)
      return { kind, about, outcome: 'would ask the publisher to read these records again and publish them', take: 'redrive' };
    const { shardId, startSequenceNumber, endSequenceNumber } = batch;
    let answer: unknown;
    try {
      answer = await options.publisher({
        redrive: { streamArn: options.streamArn ?? batch.streamArn, shardId, startSequenceNumber, endSequenceNumber },
      });
    } catch (error) {
      return { kind, about, outcome: `the publisher failed: ${message(error)}`, take: false };
    }
    const read = redriveAnswer(answer);
    if (read === undefined) return { kind, about, outcome: `the publisher answered ${JSON.stringify(answer)}`, take: false };
    if ('gone' in read) {
      const arrived = Date.parse(batch.approximateArrivalOfFirstRecord);
      const old = Number.isFinite(arrived) && (options.now?.() ?? new Date()).getTime() - arrived > DAY_MS;
      return {
        kind,
        about,
        outcome: `the stream no longer holds these records (${read.gone})${old ? '; they are older than the 24 h the stream keeps' : ''}: republish them from the table by hand (docs/operations.md)`,
        take: false,
      };
    }
    if (typeof read.handedBack === 'string')
      return { kind, about, outcome: `the publisher handed back the records from ${read.handedBack}`, take: false };
    return { kind, about, outcome: `published: the publisher read ${read.records} records again and handed none back`, take: true };
  });
}

// ---- the AWS adapter (SQS) ----------------------------------------------

/** A queue read with the SQS API; received messages stay hidden `visibilityTimeoutSeconds` unless released. */
export function sqsDeadLetterQueue(client: SQSClient, queueUrl: string, visibilityTimeoutSeconds = 300): DeadLetterQueueClient {
  const handles = new Map<string, string>();
  const handleOf = (m: DeadLetterMessage) => {
    const handle = handles.get(m.messageId);
    if (handle === undefined) throw new Error(`Message ${m.messageId} was not received by this run`);
    return handle;
  };
  return {
    receive: async (max) => {
      const received: DeadLetterMessage[] = [];
      while (received.length < max) {
        const { Messages = [] } = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: Math.min(10, max - received.length),
            VisibilityTimeout: visibilityTimeoutSeconds,
            // Long polling asks every SQS server: a short poll may miss messages of a small queue.
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount'],
          }),
        );
        if (Messages.length === 0) break;
        for (const m of Messages) {
          if (m.MessageId === undefined || m.ReceiptHandle === undefined || m.Body === undefined || handles.has(m.MessageId)) continue;
          handles.set(m.MessageId, m.ReceiptHandle);
          const sent = Number(m.Attributes?.SentTimestamp);
          const count = Number(m.Attributes?.ApproximateReceiveCount);
          received.push({
            messageId: m.MessageId,
            body: m.Body,
            sentAt: Number.isFinite(sent) && sent > 0 ? new Date(sent) : undefined,
            receiveCount: Number.isFinite(count) && count > 0 ? count : undefined,
          });
        }
      }
      return received;
    },
    delete: async (m) => {
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: handleOf(m) }));
    },
    release: async (m) => {
      await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: handleOf(m), VisibilityTimeout: 0 }));
    },
    depth: async () => {
      const { Attributes = {} } = await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return {
        waiting: Number(Attributes.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
      };
    },
  };
}
