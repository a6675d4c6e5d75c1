import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { STATUSES } from '../lib/api-model/schemas';
import { localEndpoint } from '../lib/aws/local-endpoint';
import { findRequestByNumber } from '../lib/dynamodb/request-by-number';
import { awsInvoker, offlineInvoker, type LambdaInvoke } from './operations/lambda-invoke';
import { runningStack } from './local/running-stack';

/*
 * npm run republish -- --request <requestNumber> [--status <STATUS>]: a request's events on the
 * bus again, as the requests table records them (docs/operations.md, Republishing), for events
 * the back office lost or the stream no longer holds. It finds the request by its number (one
 * Query of the index by number, lib/dynamodb/request-by-number.ts) and hands the publisher the request's ids; the
 * publisher reads the request item itself and sends what it records, each event with the eventId
 * it always had, so a consumer drops one it has seen. Nothing typed here reaches the bus.
 * Without --stage it works on the local stack npm start runs (DynamoDB Local, serverless
 * offline's Lambda API); with --stage on that stage in AWS, with the operator's credentials.
 * Exit code 0 when the events went out, 1 when they did not, 2 for a usage error.
 */

const usage = `usage: npm run republish -- --request <requestNumber> [--status <${STATUSES.join('|')}>]
         [--stage <stage> [--region <region>]] [--table <name>] [--function <name>]
  --request   the request's number (TR-XXXX-XXXX)
  --status    only the event of this status (SUBMITTED for TerminationRequestSubmitted); default: every event of the request
  --stage     a deployed stage (AWS, your credentials); without it, the local stack (npm start)
  --region    with --stage (default AWS_REGION, else eu-central-1)
  --table     the requests table (default: contract-termination-<stage>-requests, or the local stack's)
  --function  the publisher (default: contract-termination-<stage>-publishRequestEvents; locally its serverless key)`;

function fail(message: string, code = 2): never {
  console.error(code === 2 ? `${message}\n${usage}` : message);
  process.exit(code);
}

const { values } = parseArgs({
  options: {
    request: { type: 'string' },
    status: { type: 'string' },
    stage: { type: 'string' },
    region: { type: 'string' },
    table: { type: 'string' },
    function: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const requestNumber = values.request?.trim().toUpperCase() ?? fail('--request is required');
const status =
  values.status === undefined
    ? undefined
    : (STATUSES.find((s) => s === values.status?.toUpperCase()) ?? fail(`--status must be one of ${STATUSES.join(', ')}`));

interface Target {
  where: string;
  doc: DynamoDBDocumentClient;
  table: string;
  publisher: LambdaInvoke;
}

function awsTarget(stage: string): Target {
  const region = values.region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'eu-central-1';
  const functionName = values.function ?? `contract-termination-${stage}-publishRequestEvents`;
  const table = values.table ?? `contract-termination-${stage}-requests`;
  return {
    where: `stage ${stage} in ${region}: table ${table}, function ${functionName}`,
    doc: DynamoDBDocumentClient.from(new DynamoDBClient({ region })),
    table,
    publisher: awsInvoker(functionName, region),
  };
}

function localTarget(): Target {
  const stack = runningStack();
  return {
    where: `the local stack (DynamoDB Local ${stack.dynamoDbEndpoint}, serverless offline on port ${stack.lambdaPort})`,
    doc: DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'eu-central-1', maxAttempts: 1, ...localEndpoint(stack.dynamoDbEndpoint) }),
    ),
    table: values.table ?? stack.tables.requests,
    publisher: offlineInvoker(values.function ?? 'publishRequestEvents', stack.lambdaPort),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The events the publisher says it sent. */
function sentEvents(answer: unknown): { detailType: string; status: string; eventId: string }[] {
  const events = isObject(answer) ? answer['events'] : undefined;
  if (!Array.isArray(events)) throw new Error(`The publisher answered ${JSON.stringify(answer)}`);
  return events.filter(isObject).map((event) => ({
    detailType: String(event['detailType']),
    status: String(event['status']),
    eventId: String(event['eventId']),
  }));
}

const target = values.stage === undefined ? localTarget() : awsTarget(values.stage);
try {
  console.log(`Republishing ${requestNumber} on ${target.where}`);
  // The index's ids only: on-call's policy refuses a read that does not name its attributes.
  const request = await findRequestByNumber(target.doc, target.table, requestNumber);
  if (request === undefined) fail(`No request numbered ${requestNumber} in ${target.table} (one made a moment ago: run again)`, 1);
  console.log(`Request ${request.requestId} of contract ${request.contractId}`);
  const events = sentEvents(await target.publisher({ republish: { ...request, ...(status === undefined ? {} : { status }) } }));
  for (const event of events)
    console.log(`published  ${event.detailType.padEnd(31)}  ${event.status.padEnd(10)}  eventId ${event.eventId}`);
  console.log(`${events.length} event(s) on the bus again, each with its own eventId: consumers drop one they have seen.`);
} catch (error) {
  const refused = (e: unknown): boolean =>
    e instanceof Error && (('code' in e && e.code === 'ECONNREFUSED') || (e instanceof AggregateError && e.errors.some(refused)));
  if (values.stage === undefined && refused(error)) fail(`Could not reach the local stack: is npm start running? (${String(error)})`, 1);
  fail(error instanceof Error ? error.message : String(error), 1);
} finally {
  target.doc.destroy();
}
