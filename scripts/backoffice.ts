import { GetCommand, ScanCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { numberKeyOf } from '../lib/termination/keys';
import { DECISION_STATUSES } from '../lib/validation/event-schemas';
import { isUuid } from '../lib/validation/validator';
import { decisionEvent } from './local/decision-event';
import { localClient } from './local/dynamodb-local';
import { invokeOffline, InvokeError } from './local/offline-lambda';
import { localDefaults } from './local/service-env';

/*
 * npm run backoffice -- --request <requestNumber or requestId> --status <STATUS> [--reason "..."]
 * [--event-id <id>]: the bank's back office deciding on a request of the running local stack
 * (npm start). It sends a TerminationRequestStatusChanged event, as EventBridge delivers it, to
 * the real consumer function in serverless offline, and prints what the consumer did. Give the
 * same --event-id twice to send one decision twice.
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

const doc = DynamoDBDocumentClient.from(localClient(`http://127.0.0.1:${localDefaults.dynamoDbPort}`));
const table = localDefaults.tables.requests;

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

try {
  const found = await findRequest(values.request);
  const event = decisionEvent({
    requestId: found.requestId,
    contractId: found.contractId,
    status,
    ...(values.reason === undefined ? {} : { reason: values.reason }),
    ...(values['event-id'] === undefined ? {} : { eventId: values['event-id'] }),
  });
  console.log(`Decision ${event.detail.eventId}: request ${found.requestNumber} (${found.requestId}) -> ${status}`);
  const result = await invokeOffline('applyStatusDecision', event);
  console.log('The consumer answered:', JSON.stringify(result));
  console.log('Its StatusChanged event (if it applied) is printed by npm start.');
} catch (error) {
  if (
    error instanceof InvokeError ||
    (error instanceof Error && 'code' in error && error.code === 'ECONNREFUSED') ||
    error instanceof TypeError
  ) {
    console.error(`Could not reach the local stack: is npm start running? (${error.message})`);
    process.exit(1);
  }
  throw error;
}
