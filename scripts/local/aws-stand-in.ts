import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { EventBridgeEvent } from 'aws-lambda';
import { matchesPattern } from './event-pattern';
import { LOCAL_ACCOUNT_ID } from './template-patterns';

/*
 * The local stand-in for the two AWS services that have no local emulator: EventBridge's
 * PutEvents (the publisher's bus) and SQS's SendMessage (the dead-letter queues). It speaks the
 * SDK's JSON protocols, keeps PutEvents' limits (10 entries, 256 KiB) and records what it
 * receives. Tests read the records and can make the next calls fail; npm start prints them.
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
  /** Every PutEvents call, by its number of entries: the batches the publisher made. */
  putEventsCalls: number[];
  failNextPutEvents: (...faults: PutEventsFault[]) => void;
  clear: () => void;
  stop: () => Promise<void>;
}

/** An EventBridge rule on the stand-in's bus: the events its pattern matches go to `deliver`, as AWS invokes a target (asynchronously). */
export interface LocalRule {
  name: string;
  /** The EventPattern, as in the template (scripts/local/template-patterns.ts). */
  pattern: unknown;
  deliver: (event: EventBridgeEvent<string, unknown>) => Promise<void>;
}

export interface StandInOptions {
  port?: number;
  host?: string;
  onEvent?: (event: PublishedEvent) => void;
  onMessage?: (message: QueuedMessage) => void;
  rules?: LocalRule[];
  /** A rule's target failed (in AWS: the rule's retries, then its dead-letter queue). */
  onRuleError?: (rule: string, error: unknown) => void;
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
    for (const rule of options.rules ?? []) {
      if (matchesPattern(rule.pattern, envelope)) rule.deliver(envelope).catch((error: unknown) => options.onRuleError?.(rule.name, error));
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
    answer(response, 200, { MessageId: randomUUID(), MD5OfMessageBody: md5 }, 'application/x-amz-json-1.0');
  }

  const server = createServer((request, response) => {
    readBody(request).then(
      (raw) => {
        const target = request.headers['x-amz-target'];
        const body = parseJson(raw);
        if (target === 'AWSEvents.PutEvents') putEvents(body, response);
        else if (target === 'AmazonSQS.SendMessage') sendMessage(body, response);
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
    putEventsCalls,
    failNextPutEvents: (...next) => faults.push(...next),
    clear: () => {
      events.length = 0;
      messages.length = 0;
      putEventsCalls.length = 0;
      faults.length = 0;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
