import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetCommand, ScanCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { numberKeyOf } from '../lib/dynamodb/keys';
import { DECISION_STATUSES } from '../lib/api-model/event-schemas';
import { isUuid } from '../lib/api-model/validator';
import { decisionEvent } from './local/decision-event';
import { localClient } from './local/dynamodb-local';
import { requestKeyOf } from '../lib/dynamodb/keys';
import { runningStack } from './local/running-stack';
import { LOCAL_EVENT_BUS } from './local/service-env';
import { localEndpoint } from '../lib/aws/local-endpoint';

/*
 * npm run backoffice -- --request <requestNumber or requestId> --status <STATUS> [--reason "..."]
 * [--event-id <id>]: the bank's back office deciding on a request of the running local stack
 * (npm start). It puts a TerminationRequestStatusChanged event on the bus with PutEvents, as the
 * back office does in AWS; the stack's stand-in routes it by the template's own rule pattern to
 * the real consumer in serverless offline. It then watches the request for the new status. Give
 * the same --event-id twice to send one decision twice. It finds the stack on the ports npm
 * start really uses (.local/stack.json).
 */

const usage = `usage: npm run backoffice -- --request <requestNumber or requestId> --status <${DECISION_STATUSES.join('|')}> [--reason "..."] [--event-id <id>]`;

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
  },
});
const status = DECISION_STATUSES.find((s) => s === values.status?.toUpperCase());
if (values.request === undefined) fail('--request is required');
if (status === undefined) fail(`--status must be one of ${DECISION_STATUSES.join(', ')}`);

const stack = runningStack();
const doc = DynamoDBDocumentClient.from(localClient(stack.dynamoDbEndpoint));
const table = stack.tables.requests;
const bus = new EventBridgeClient({
  region: 'eu-central-1',
  ...localEndpoint(stack.awsStandIn),
  maxAttempts: 1,
});

/** The request's id and contract, from its number (the number item records both) or its id. */
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
  const { Item } = await doc.send(new GetCommand({ TableName: table, Key: { ...numberKeyOf(requestNumber) } }));
  if (Item === undefined) fail(`No request numbered ${requestNumber} in the local table`);
  return { requestId: String(Item['requestId']), contractId: String(Item['contractId']), requestNumber };
}

/** The request once its status differs from `before`, else as it is after five seconds. */
async function watchStatus(
  found: { requestId: string; contractId: string },
  before: unknown,
): Promise<Record<string, unknown> | undefined> {
  let item: Record<string, unknown> | undefined;
  for (let i = 0; i < 20; i++) {
    await sleep(250);
    ({ Item: item } = await doc.send(new GetCommand({ TableName: table, Key: { ...requestKeyOf(found.contractId, found.requestId) } })));
    if (item?.['status'] !== before) return item;
  }
  return item;
}

try {
  const found = await findRequest(values.request);
  const event = decisionEvent({
    requestId: found.requestId,
    contractId: found.contractId,
    status,
    ...(values.reason === undefined ? {} : { reason: values.reason }),
    ...(values['event-id'] === undefined ? {} : { eventId: values['event-id'] }),
  });
  const { Item: current } = await doc.send(
    new GetCommand({ TableName: table, Key: { ...requestKeyOf(found.contractId, found.requestId) } }),
  );
  console.log(
    `Decision ${event.detail.eventId}: request ${found.requestNumber} (${found.requestId}) ${String(current?.['status'])} -> ${status}`,
  );
  const answer = await bus.send(
    new PutEventsCommand({
      Entries: [
        { EventBusName: LOCAL_EVENT_BUS, Source: event.source, DetailType: event['detail-type'], Detail: JSON.stringify(event.detail) },
      ],
    }),
  );
  if (answer.FailedEntryCount) fail(`The bus refused the decision: ${JSON.stringify(answer.Entries)}`);
  console.log(`Put on the bus ${LOCAL_EVENT_BUS} (event ${answer.Entries?.[0]?.EventId ?? '?'}); the rule routes it to the consumer.`);
  const after = await watchStatus(found, current?.['status']);
  if (after !== undefined && after['status'] === status)
    console.log(`The request is now ${status}. npm start prints its StatusChanged event.`);
  else
    console.log(
      `The request is still ${String(after?.['status'] ?? current?.['status'])}: npm start shows the consumer's answer (a duplicate, or a dead letter with its reason).`,
    );
} catch (error) {
  const refused = (e: unknown): boolean =>
    e instanceof Error && (('code' in e && e.code === 'ECONNREFUSED') || (e instanceof AggregateError && e.errors.some(refused)));
  if (refused(error) || error instanceof TypeError) {
    console.error(`Could not reach the local stack at ${stack.awsStandIn}: is npm start running? (${String(error)})`);
    process.exit(1);
  }
  throw error;
}
