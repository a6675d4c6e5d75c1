import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetCommand, ScanCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { findRequestByNumber } from '../lib/dynamodb/request-by-number';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { DECISION_STATUSES } from '../lib/api-model/event-schemas';
import { isUuid } from '../lib/api-model/validator';
import { decisionEvent, LOCAL_DECISION_SOURCE } from './local/decision-event';
import { localClient } from './local/dynamodb-local';
import { requestKeyOf } from '../lib/dynamodb/keys';
import { liveStack, STACK_FILE } from './local/running-stack';
import type { Delivery, EventFate } from './local/aws-stand-in';
import { LOCAL_EVENT_BUS, localDefaults } from './local/service-env';
import { localEndpoint } from '../lib/aws/local-endpoint';
import { existsSync, readFileSync } from 'node:fs';
import { verifyEvent, type EventKey } from '../lib/events/event-signature';
import { eventIdOf } from '../lib/events/request-events';
import { EVENT_SIGNING_KEYS_PATH } from '../lib/events/event-signing-keys';

/*
 * npm run backoffice -- --request <requestNumber or requestId> --status <STATUS> [--reason "..."]
 * [--event-id <id>]: the bank's back office deciding on a request of the running local stack
 * (npm start). It signs the decision with the local back office's key (scripts/local/decision-event.ts,
 * as docs/events.md tells the back office to sign) and puts a TerminationRequestStatusChanged
 * event on the bus with PutEvents, as the back office does in AWS; the stack's stand-in routes it by the template's own rule pattern to
 * the real consumer in serverless offline. It then says, here, what became of the decision: the
 * stand-in tells which rule took the event, what the consumer answered (applied, duplicate, or
 * the refusal) and the dead letter that carries the refusal's reasons; the request is read after.
 * Exit code 0 when the decision is applied or was already, 1 when it was not applied, 2 for a
 * usage error. Give the same --event-id twice to send one decision twice. It finds the stack on
 * the ports npm start really uses (.local/stack.json). Then it reads the service's events about
 * the request, as a back office does, and verifies each one's signature with the stack's event
 * keys (the JWKS npm start serves), saying so: an event that does not verify exits 1.
 *
 * npm run backoffice -- --request <requestNumber or requestId> --events [--wait-for <detail-type>]:
 * only the second half, deciding nothing: the service's events about the request so far (after
 * waiting up to 15 s for one of that detail-type), each verified. It finds them by the ids they
 * carry, so it shows the TerminationRequestErased of a request npm run erase took (the table no
 * longer knows its number).
 */

const usage = `usage: npm run backoffice -- --request <requestNumber or requestId> --status <${DECISION_STATUSES.join('|')}> [--reason "..."] [--event-id <id>]
       npm run backoffice -- --request <requestNumber or requestId> --events [--wait-for <detail-type>]   (the service's events about it, verified; no decision)`;

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    request: { type: 'string' },
    status: { type: 'string' },
    reason: { type: 'string' },
    'event-id': { type: 'string' },
    events: { type: 'boolean', default: false },
    'wait-for': { type: 'string' },
  },
});
const status = DECISION_STATUSES.find((s) => s === values.status?.toUpperCase());
if (values.request === undefined) fail('--request is required');
if (status === undefined && !values.events) fail(`--status must be one of ${DECISION_STATUSES.join(', ')}`);

// Only a stack npm start runs (it writes where it listens once it is up): never a guess at the default ports.
const live = liveStack();
if (live === undefined) {
  console.error(`No local stack is running (npm start writes ${STACK_FILE} once it is up): start it with npm start, then decide.`);
  process.exit(1);
}
const stack = live;
const doc = DynamoDBDocumentClient.from(localClient(stack.dynamoDbEndpoint));
const table = stack.tables.requests;
const bus = new EventBridgeClient({
  region: 'eu-central-1',
  ...localEndpoint(stack.awsStandIn),
  maxAttempts: 1,
});

/** The request's id and contract, from its number (the index by number) or its id. */
async function findRequest(request: string): Promise<{ requestId: string; contractId: string; requestNumber: string }> {
  const byId: boolean = isUuid(request);
  if (byId) {
    // A laptop's table is small: a scan finds a request by its id alone.
    const { Items = [] } = await doc.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'kind = :request AND requestId = :id',
        ExpressionAttributeValues: { ':request': 'REQUEST', ':id': request.toLowerCase() },
      }),
    );
    const [item] = Items;
    if (item === undefined) fail(`No request ${request} in the local table`);
    return { requestId: String(item['requestId']), contractId: String(item['contractId']), requestNumber: String(item['requestNumber']) };
  }
  const requestNumber = request.toUpperCase();
  const found = await findRequestByNumber(doc, table, requestNumber);
  if (found === undefined) fail(`No request numbered ${requestNumber} in the local table`);
  return { ...found, requestNumber };
}

/** The request as it is now. */
async function readRequest(found: { requestId: string; contractId: string }): Promise<Record<string, unknown> | undefined> {
  const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { ...requestKeyOf(found.contractId, found.requestId) } }));
  return Item;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A delivery as the stand-in reports it, checked. */
function deliveryOf(value: unknown): Delivery | undefined {
  if (!isRecord(value) || typeof value['rule'] !== 'string') return undefined;
  const rule = value['rule'];
  if (value['state'] === 'pending') return { rule, state: 'pending' };
  if (value['state'] === 'answered') return { rule, state: 'answered', answer: value['answer'] };
  if (value['state'] === 'failed') return { rule, state: 'failed', error: String(value['error']) };
  return undefined;
}

/** What the stand-in knows of the event once every rule's target has answered (or after 30 s, as it is then). */
async function fateOf(eventId: string): Promise<EventFate | undefined> {
  const deadline = Date.now() + 30_000;
  let fate: EventFate | undefined;
  do {
    const response = await fetch(`${stack.awsStandIn}/local/events/${encodeURIComponent(eventId)}`);
    const body: unknown = response.ok ? await response.json() : undefined;
    const deliveries: unknown[] = isRecord(body) && Array.isArray(body['deliveries']) ? body['deliveries'] : [];
    const deadLetters: unknown[] = isRecord(body) && Array.isArray(body['deadLetters']) ? body['deadLetters'] : [];
    const checked = deliveries.map(deliveryOf).filter((d) => d !== undefined);
    fate = response.ok ? { eventId, deliveries: checked, deadLetters } : undefined;
    if (fate !== undefined && checked.every((d) => d.state !== 'pending')) return fate;
    await sleep(100);
  } while (Date.now() < deadline);
  return fate;
}

/** The refusal's reasons, from the dead letter that carries the event. */
function reasonsOf(fate: EventFate): string {
  const problems = fate.deadLetters.flatMap((letter) =>
    isRecord(letter) && Array.isArray(letter['problems']) ? letter['problems'].map(String) : [],
  );
  return problems.length > 0 ? problems.join('; ') : 'no reason given';
}

/** One line for the outcome, and the exit code: 0 applied or already applied, 1 not applied. */
async function report(
  fate: EventFate | undefined,
  found: { requestId: string; contractId: string; requestNumber: string },
  before: unknown,
  eventId: string,
): Promise<number> {
  if (fate === undefined) {
    console.log('Unknown: the bus does not know the event it took (was npm start restarted?).');
    return 1;
  }
  const [delivery, ...more] = fate.deliveries;
  if (delivery === undefined) {
    console.log('Not applied: no rule on the bus matched the decision, so no consumer saw it.');
    return 1;
  }
  if (more.length > 0) console.log(`(${fate.deliveries.length} rules matched; the first is reported)`);
  if (delivery.state === 'pending') {
    console.log(
      `No answer yet: the consumer has not answered within 30 s. npm start's terminal and ${localDefaults.logFile} show where it is.`,
    );
    return 1;
  }
  if (delivery.state === 'failed') {
    console.log(
      `Failed: the consumer could not run (${delivery.error}). In AWS, EventBridge would try again, then hand the event to the rule's dead-letter queue.`,
    );
    return 1;
  }
  const outcome = isRecord(delivery.answer) && typeof delivery.answer['outcome'] === 'string' ? delivery.answer['outcome'] : undefined;
  const now = (await readRequest(found))?.['status'];
  const applied = `Applied. The request is now ${String(now)} (${found.requestNumber}, was ${String(before)}); npm start prints its StatusChanged event.`;
  if (outcome === undefined) {
    // A target that answers no outcome: the request, read after, is all there is to go by.
    if (now === status && before !== status) {
      console.log(applied);
      return 0;
    }
    console.log(`Unknown: the consumer answered no outcome, and request ${found.requestNumber} is ${String(now)}.`);
    return 1;
  }
  if (outcome === 'applied') {
    console.log(applied);
    return 0;
  }
  if (outcome === 'duplicate') {
    console.log(`Duplicate: decision ${eventId} was applied before; request ${found.requestNumber} stays ${String(now)}, nothing changed.`);
    return 0;
  }
  console.log(
    `Refused (${outcome}): ${reasonsOf(fate)}. Request ${found.requestNumber} stays ${String(now)}. The decision is in the dead-letter queue ` +
      `(${localDefaults.deadLettersFile}); npm run redrive -- --queue decisions hands it to the consumer again.`,
  );
  return 1;
}

const isKeys = (value: unknown): value is { keys: EventKey[] } => isRecord(value) && Array.isArray(value['keys']);

/** What names a request in an event's detail: its id, or its number. */
type AboutRequest = (detail: Record<string, unknown>) => boolean;

/** The service's events about the request that npm start recorded, waiting (up to 15 s) for the one awaited, if any. */
async function eventsAbout(
  about: AboutRequest,
  awaited: ((event: Record<string, unknown>) => boolean) | undefined,
): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const lines = existsSync(localDefaults.eventsFile) ? readFileSync(localDefaults.eventsFile, 'utf8').split('\n') : [];
    const events = lines
      .filter((line) => line.trim() !== '')
      .map((line): unknown => JSON.parse(line))
      .filter(isRecord)
      // The service's events, not the back office's own decisions, which the bus carries too.
      .filter((event) => event['source'] !== LOCAL_DECISION_SOURCE && isRecord(event['detail']) && about(event['detail']));
    const found = awaited === undefined || events.some(awaited);
    if (found || Date.now() > deadline) return events;
    await sleep(200);
  }
}

/** Verifies each of the request's events as a back office does; false when one does not verify. */
async function verifyEvents(
  about: AboutRequest,
  awaited: ((event: Record<string, unknown>) => boolean) | undefined,
  what: string,
): Promise<boolean> {
  const keysUrl = new URL(EVENT_SIGNING_KEYS_PATH, stack.jwksUri);
  // A stack that serves no event keys (one a test put together) signs nothing: say so, and judge the decision alone.
  const response = await fetch(keysUrl).catch(() => undefined);
  if (response === undefined) {
    console.log(`No event keys at ${keysUrl.href}: the service's events were not verified.`);
    return true;
  }
  const jwks: unknown = response.ok ? await response.json() : undefined;
  if (!isKeys(jwks)) {
    console.log(`Could not read the service's event keys at ${keysUrl.href}.`);
    return false;
  }
  const events = await eventsAbout(about, awaited);
  let allVerified = true;
  for (const event of events) {
    const detail = isRecord(event['detail']) ? event['detail'] : {};
    const verdict = verifyEvent({ source: String(event['source']), 'detail-type': String(event['detailType']), detail }, jwks);
    // An erasure has no status.
    const reached = typeof detail['status'] === 'string' ? ` ${detail['status']}` : '';
    const name = `${String(event['detailType'])}${reached} (eventId ${String(detail['eventId'])})`;
    console.log(verdict.ok ? `Event ${name}: signature verified (ES256, key ${verdict.kid}).` : `Event ${name}: REFUSED, ${verdict.why}.`);
    allVerified &&= verdict.ok;
  }
  if (events.length === 0) console.log(`No event of request ${what} in ${localDefaults.eventsFile} yet.`);
  return allVerified;
}

/**
 * A completed termination, carried out: the contracts service closes the contract (it owns the
 * contracts table, docs/decisions/0007-contracts.md). Locally this stands in for it, as the bank's
 * systems would once the termination is done; the page shows the contract closed from its next refresh.
 */
async function closeContract(contractId: string): Promise<void> {
  await doc.send(
    new UpdateCommand({
      TableName: stack.tables.contracts,
      Key: { contractId },
      UpdateExpression: 'SET #status = :closed',
      ConditionExpression: 'attribute_exists(contractId)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':closed': 'CLOSED' },
    }),
  );
  console.log(
    `The contracts service closes contract ${contractId}: the termination is carried out (locally, as the bank's systems would).`,
  );
}

/** The service's events about the request, verified, and nothing sent. */
async function showEvents(request: string): Promise<boolean> {
  const about: AboutRequest = (detail) =>
    detail['requestId'] === request.toLowerCase() || detail['requestNumber'] === request.toUpperCase();
  const detailType = values['wait-for'];
  return verifyEvents(about, detailType === undefined ? undefined : (event) => event['detailType'] === detailType, request);
}

/** The decision, what became of it, and the request's events verified: the exit code. */
async function decide(request: string): Promise<number> {
  if (status === undefined) fail(`--status must be one of ${DECISION_STATUSES.join(', ')}`);
  const found = await findRequest(request);
  const event = decisionEvent({
    requestId: found.requestId,
    contractId: found.contractId,
    status,
    ...(values.reason === undefined ? {} : { reason: values.reason }),
    ...(values['event-id'] === undefined ? {} : { eventId: values['event-id'] }),
  });
  const before = (await readRequest(found))?.['status'];
  console.log(
    before === status
      ? `Decision ${event.detail.eventId}: request ${found.requestNumber} (${found.requestId}) is ${status} already; sending ${status} again`
      : `Decision ${event.detail.eventId}: request ${found.requestNumber} (${found.requestId}) ${String(before)} -> ${status}`,
  );
  const answer = await bus.send(
    new PutEventsCommand({
      Entries: [
        { EventBusName: LOCAL_EVENT_BUS, Source: event.source, DetailType: event['detail-type'], Detail: JSON.stringify(event.detail) },
      ],
    }),
  );
  const eventId = answer.Entries?.[0]?.EventId;
  if (answer.FailedEntryCount || eventId === undefined) fail(`The bus refused the decision: ${JSON.stringify(answer.Entries)}`);
  console.log(`Put on the bus ${LOCAL_EVENT_BUS} (event ${eventId}); the rule routes it to the consumer.`);
  const code = await report(await fateOf(eventId), found, before, event.detail.eventId);
  const verified = await verifyEvents(
    (detail) => detail['requestId'] === found.requestId,
    (event) => isRecord(event['detail']) && event['detail']['eventId'] === eventIdOf(found.requestId, status),
    found.requestId,
  );
  if (status === 'COMPLETED' && code === 0) await closeContract(found.contractId);
  return verified ? code : 1;
}

try {
  process.exitCode = values.events ? ((await showEvents(values.request)) ? 0 : 1) : await decide(values.request);
} catch (error) {
  const refused = (e: unknown): boolean =>
    e instanceof Error && (('code' in e && e.code === 'ECONNREFUSED') || (e instanceof AggregateError && e.errors.some(refused)));
  if (refused(error) || error instanceof TypeError) {
    console.error(`Could not reach the local stack npm start runs (${STACK_FILE}): is it still running?`);
    process.exit(1);
  }
  throw error;
}
