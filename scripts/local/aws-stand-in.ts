import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { EventBridgeEvent } from 'aws-lambda';
import { matchesPattern } from './event-pattern';
import { kmsStandIn, type EventSigningKey, type KmsStandIn } from './kms-stand-in';
import { LOCAL_ACCOUNT_ID } from './template-patterns';
import { refusedForeignHost } from './host-guard';

/*
 * The local stand-in for EventBridge's PutEvents (the publisher's bus), SQS (the dead-letter
 * queues: SendMessage, and ReceiveMessage, DeleteMessage, ChangeMessageVisibility and
 * GetQueueAttributes for npm run redrive) and KMS (the events' signing key: kms-stand-in.ts). It speaks the SDK's JSON protocols, keeps PutEvents'
 * limits (10 entries, 256 KiB) and records what it receives. Tests read the records and can make
 * the next calls fail; npm start prints them.
 *
 * moto (Python's AWS emulator, moto_server) emulates both services too, and the deploy rehearsal
 * runs on it (tests/support/moto.ts). The stand-in stays for what moto does not do: npm start
 * needs npm and Java, not Python, and this starts inside its process in milliseconds (moto_server
 * took about 2 s on the 2-core machine the tests run on); a rule's target here is the local
 * consumer in serverless offline, invoked as AWS invokes a rule's Lambda target, where moto's bus
 * delivers to queues and log groups but not to functions; tests make PutEvents fail, as a whole
 * or entry by entry, which moto has no way to do; and it tells npm run backoffice what became of
 * an event (below).
 *
 * One thing AWS does not have: GET /local/events/<EventId> tells what became of an event put on
 * the bus, for npm run backoffice to report in its own terminal: each rule it matched, what the
 * target answered (or how it failed), and the dead letters that name the event.
 */

export interface PublishedEvent {
  source: string;
  detailType: string;
  eventBusName: string;
  time: string | undefined;
  detail: unknown;
}

export interface QueuedMessage {
  queueUrl: string;
  body: unknown;
}

/** A message a queue holds until it is deleted; in flight (received) until `visibleAt`. */
interface StoredMessage {
  messageId: string;
  queueUrl: string;
  body: string;
  md5: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  receiptHandle: string | undefined;
}

/** What the next PutEvents calls do instead of succeeding. */
export type PutEventsFault =
  /** The call fails as a whole, with this error type (ThrottlingException, InternalException, ...). */
  | { kind: 'call'; errorType: string; status: number }
  /** The call succeeds but these entries (by index) come back failed. */
  | { kind: 'entries'; failing: number[] };

export interface AwsStandIn {
  endpoint: string;
  events: PublishedEvent[];
  messages: QueuedMessage[];
  /** What a queue still holds (sent and not deleted, received or not), oldest first. */
  queued: (queueUrl: string) => QueuedMessage[];
  /** Every PutEvents call, by its number of entries: the batches the publisher made. */
  putEventsCalls: number[];
  failNextPutEvents: (...faults: PutEventsFault[]) => void;
  /** The events' signing key (KMS Sign and GetPublicKey). */
  kms: KmsStandIn;
  /** What became of an event put on the bus, by the EventId PutEvents answered; undefined for one it never took. */
  fate: (eventId: string) => EventFate | undefined;
  clear: () => void;
  stop: () => Promise<void>;
}

/** An EventBridge rule on the stand-in's bus: the events its pattern matches go to `deliver`, as AWS invokes a target (asynchronously). */
export interface LocalRule {
  name: string;
  /** The EventPattern, as in the template (scripts/local/template-patterns.ts). */
  pattern: unknown;
  /** Invokes the target; what it resolves to is the target's answer. */
  deliver: (event: EventBridgeEvent<string, unknown>) => Promise<unknown>;
}

/** What one rule did with an event: still at its target, answered, or failed. */
export type Delivery =
  | { rule: string; state: 'pending' }
  | { rule: string; state: 'answered'; answer: unknown }
  | { rule: string; state: 'failed'; error: string };

/** What became of one event put on the bus (GET /local/events/<EventId>). */
export interface EventFate {
  eventId: string;
  /** One per rule whose pattern matched; none when no rule did. */
  deliveries: Delivery[];
  /** The bodies of dead letters that carry this event (the consumer's refusals). */
  deadLetters: unknown[];
}

export interface StandInOptions {
  port?: number;
  host?: string;
  onEvent?: (event: PublishedEvent) => void;
  onMessage?: (message: QueuedMessage) => void;
  rules?: LocalRule[];
  /** A rule's target failed (in AWS: the rule's retries, then its dead-letter queue). */
  onRuleError?: (rule: string, error: unknown) => void;
  /** The events' signing key; one made in memory if none. */
  signingKey?: EventSigningKey;
}

const MAX_ENTRIES = 10;
const MAX_BYTES = 256 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const byteLength = (value: unknown) => (typeof value === 'string' ? Buffer.byteLength(value) : 0);

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, status: number, body: unknown, contentType = 'application/x-amz-json-1.1'): void {
  response.writeHead(status, { 'content-type': contentType });
  response.end(JSON.stringify(body));
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export async function startAwsStandIn(options: StandInOptions = {}): Promise<AwsStandIn> {
  const events: PublishedEvent[] = [];
  const messages: QueuedMessage[] = [];
  const putEventsCalls: number[] = [];
  const faults: PutEventsFault[] = [];
  /** Each event's deliveries, by the EventId PutEvents answered. */
  const deliveries = new Map<string, Delivery[]>();
  const kms = kmsStandIn(options.signingKey);

  function fate(eventId: string): EventFate | undefined {
    const delivered = deliveries.get(eventId);
    if (delivered === undefined) return undefined;
    // A dead letter of the consumer carries the event as it was delivered (its id is the EventId).
    const deadLetters = messages
      .map((m) => m.body)
      .filter((body) => isRecord(body) && isRecord(body['event']) && body['event']['id'] === eventId);
    return { eventId, deliveries: delivered.map((d) => ({ ...d })), deadLetters };
  }

  /** The event as a rule's target receives it, to every rule whose pattern matches it. */
  function routeToRules(id: string, event: PublishedEvent): void {
    const envelope: EventBridgeEvent<string, unknown> = {
      version: '0',
      id,
      'detail-type': event.detailType,
      source: event.source,
      account: LOCAL_ACCOUNT_ID,
      time: event.time ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: 'eu-central-1',
      resources: [],
      detail: event.detail,
    };
    const delivered: Delivery[] = [];
    deliveries.set(id, delivered);
    for (const rule of options.rules ?? []) {
      if (!matchesPattern(rule.pattern, envelope)) continue;
      const index = delivered.push({ rule: rule.name, state: 'pending' }) - 1;
      rule.deliver(envelope).then(
        (answer) => (delivered[index] = { rule: rule.name, state: 'answered', answer }),
        (error: unknown) => {
          delivered[index] = { rule: rule.name, state: 'failed', error: error instanceof Error ? error.message : String(error) };
          options.onRuleError?.(rule.name, error);
        },
      );
    }
  }

  function putEvents(request: unknown, response: ServerResponse): void {
    const entries = isRecord(request) && Array.isArray(request['Entries']) ? request['Entries'].filter(isRecord) : [];
    putEventsCalls.push(entries.length);
    const size = entries.reduce<number>(
      (sum, e) =>
        sum + (e['Time'] === undefined ? 0 : 14) + byteLength(e['Source']) + byteLength(e['DetailType']) + byteLength(e['Detail']),
      0,
    );
    if (entries.length < 1 || entries.length > MAX_ENTRIES || size > MAX_BYTES) {
      answer(response, 400, {
        __type: 'ValidationException',
        message: `${entries.length} entries of ${size} bytes are over PutEvents' limits`,
      });
      return;
    }
    const fault = faults.shift();
    if (fault?.kind === 'call') {
      answer(response, fault.status, { __type: fault.errorType, message: 'Injected by the stand-in' });
      return;
    }
    const failing = new Set(fault?.kind === 'entries' ? fault.failing : []);
    const results = entries.map((entry, i) => {
      if (failing.has(i)) return { ErrorCode: 'InternalFailure', ErrorMessage: 'Injected by the stand-in' };
      const time = entry['Time'];
      const event: PublishedEvent = {
        source: text(entry['Source']) ?? '',
        detailType: text(entry['DetailType']) ?? '',
        eventBusName: text(entry['EventBusName']) ?? 'default',
        // The SDK sends Time as epoch seconds.
        time: typeof time === 'number' ? new Date(time * 1000).toISOString() : text(time),
        detail: parseJson(text(entry['Detail']) ?? ''),
      };
      events.push(event);
      options.onEvent?.(event);
      const eventId = randomUUID();
      routeToRules(eventId, event);
      return { EventId: eventId };
    });
    answer(response, 200, { FailedEntryCount: failing.size, Entries: results });
  }

  function sendMessage(request: unknown, response: ServerResponse): void {
    const queueUrl = isRecord(request) ? text(request['QueueUrl']) : undefined;
    const body = isRecord(request) ? text(request['MessageBody']) : undefined;
    if (queueUrl === undefined || body === undefined) {
      answer(
        response,
        400,
        { __type: 'com.amazonaws.sqs#MissingParameter', message: 'QueueUrl and MessageBody are required' },
        'application/x-amz-json-1.0',
      );
      return;
    }
    const message = { queueUrl, body: parseJson(body) ?? body };
    messages.push(message);
    options.onMessage?.(message);
    // The SDK checks the body's MD5 against this.
    const md5 = createHash('md5').update(body).digest('hex');
    const messageId = randomUUID();
    const now = Date.now();
    queueOf(queueUrl).push({ messageId, queueUrl, body, md5, sentAt: now, visibleAt: now, receiveCount: 0, receiptHandle: undefined });
    answer(response, 200, { MessageId: messageId, MD5OfMessageBody: md5 }, 'application/x-amz-json-1.0');
  }

  /** Each queue's messages, by the queue URL's path (the host may be named either way). */
  const queues = new Map<string, StoredMessage[]>();

  function queueOf(queueUrl: string): StoredMessage[] {
    let key = queueUrl;
    try {
      key = new URL(queueUrl).pathname;
    } catch {
      // not a URL: the string itself names the queue
    }
    const queue = queues.get(key) ?? [];
    queues.set(key, queue);
    return queue;
  }

  const sqsError = (response: ServerResponse, type: string, message: string) =>
    answer(response, 400, { __type: `com.amazonaws.sqs#${type}`, message }, 'application/x-amz-json-1.0');

  const seconds = (value: unknown, fallback: number) => (typeof value === 'number' && value >= 0 ? value : fallback);

  /** Up to MaxNumberOfMessages visible messages, oldest first, each then in flight for VisibilityTimeout seconds. */
  function receiveMessage(request: Record<string, unknown>, queueUrl: string, response: ServerResponse): void {
    const max = Math.min(10, Math.max(1, seconds(request['MaxNumberOfMessages'], 1)));
    const visibility = seconds(request['VisibilityTimeout'], 30);
    const asked = [request['MessageSystemAttributeNames'], request['AttributeNames']].flatMap((names) =>
      Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [],
    );
    const wants = (name: string) => asked.includes('All') || asked.includes(name);
    const now = Date.now();
    const received = queueOf(queueUrl)
      .filter((m) => m.visibleAt <= now)
      .slice(0, max);
    const results = received.map((m) => {
      m.visibleAt = now + visibility * 1000;
      m.receiveCount += 1;
      m.receiptHandle = randomUUID();
      const attributes: Record<string, string> = {};
      if (wants('SentTimestamp')) attributes['SentTimestamp'] = String(m.sentAt);
      if (wants('ApproximateReceiveCount')) attributes['ApproximateReceiveCount'] = String(m.receiveCount);
      return {
        MessageId: m.messageId,
        ReceiptHandle: m.receiptHandle,
        MD5OfBody: m.md5,
        Body: m.body,
        ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
      };
    });
    answer(response, 200, results.length > 0 ? { Messages: results } : {}, 'application/x-amz-json-1.0');
  }

  function inFlight(queueUrl: string, receiptHandle: unknown): StoredMessage | undefined {
    return typeof receiptHandle === 'string' ? queueOf(queueUrl).find((m) => m.receiptHandle === receiptHandle) : undefined;
  }

  function deleteMessage(request: Record<string, unknown>, queueUrl: string, response: ServerResponse): void {
    const message = inFlight(queueUrl, request['ReceiptHandle']);
    if (message === undefined) {
      sqsError(response, 'ReceiptHandleIsInvalid', 'No message of this queue was received with that handle');
      return;
    }
    const queue = queueOf(queueUrl);
    queue.splice(queue.indexOf(message), 1);
    answer(response, 200, {}, 'application/x-amz-json-1.0');
  }

  function changeMessageVisibility(request: Record<string, unknown>, queueUrl: string, response: ServerResponse): void {
    const message = inFlight(queueUrl, request['ReceiptHandle']);
    if (message === undefined) {
      sqsError(response, 'ReceiptHandleIsInvalid', 'No message of this queue was received with that handle');
      return;
    }
    message.visibleAt = Date.now() + seconds(request['VisibilityTimeout'], 0) * 1000;
    answer(response, 200, {}, 'application/x-amz-json-1.0');
  }

  function getQueueAttributes(queueUrl: string, response: ServerResponse): void {
    const now = Date.now();
    const queue = queueOf(queueUrl);
    const visible = queue.filter((m) => m.visibleAt <= now).length;
    answer(
      response,
      200,
      {
        Attributes: { ApproximateNumberOfMessages: String(visible), ApproximateNumberOfMessagesNotVisible: String(queue.length - visible) },
      },
      'application/x-amz-json-1.0',
    );
  }

  function sqs(action: string, request: unknown, response: ServerResponse): void {
    if (action === 'SendMessage') {
      sendMessage(request, response);
      return;
    }
    const queueUrl = isRecord(request) ? text(request['QueueUrl']) : undefined;
    if (!isRecord(request) || queueUrl === undefined) {
      sqsError(response, 'MissingParameter', 'QueueUrl is required');
      return;
    }
    if (action === 'ReceiveMessage') receiveMessage(request, queueUrl, response);
    else if (action === 'DeleteMessage') deleteMessage(request, queueUrl, response);
    else if (action === 'ChangeMessageVisibility') changeMessageVisibility(request, queueUrl, response);
    else if (action === 'GetQueueAttributes') getQueueAttributes(queueUrl, response);
    else sqsError(response, 'UnsupportedOperation', `The stand-in does not do SQS ${action}`);
  }

  const server = createServer((request, response) => {
    if (refusedForeignHost(request, response, options.host ?? '127.0.0.1')) return;
    const asked = /^\/local\/events\/([^/]+)$/.exec(request.url ?? '');
    if (request.method === 'GET' && asked) {
      const found = fate(decodeURIComponent(asked[1] ?? ''));
      if (found === undefined) answer(response, 404, { message: 'No event with that id was put on this bus' }, 'application/json');
      else answer(response, 200, found, 'application/json');
      return;
    }
    readBody(request).then(
      (raw) => {
        const target = request.headers['x-amz-target'];
        const body = parseJson(raw);
        if (target === 'AWSEvents.PutEvents') putEvents(body, response);
        else if (typeof target === 'string' && target.startsWith('AmazonSQS.')) sqs(target.slice('AmazonSQS.'.length), body, response);
        else if (typeof target === 'string' && target.startsWith('TrentService.'))
          kms.handle(target.slice('TrentService.'.length), body, response);
        else answer(response, 400, { __type: 'UnknownOperationException', message: `The stand-in does not do ${String(target)}` });
      },
      () => answer(response, 400, { __type: 'SerializationException', message: 'Unreadable request' }),
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : options.port;
  return {
    endpoint: `http://${host}:${port}`,
    events,
    messages,
    queued: (queueUrl) => queueOf(queueUrl).map((m) => ({ queueUrl: m.queueUrl, body: parseJson(m.body) ?? m.body })),
    putEventsCalls,
    failNextPutEvents: (...next) => faults.push(...next),
    kms,
    fate,
    clear: () => {
      deliveries.clear();
      events.length = 0;
      messages.length = 0;
      queues.clear();
      putEventsCalls.length = 0;
      faults.length = 0;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
