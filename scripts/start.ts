import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { buildFunctions } from './build';
import { DEMO_CONTRACTS, DEMO_CUSTOMERS, DEMO_DOCUMENTS, putContracts, putDocuments, readContracts } from './local/demo-data';
import { assertJava, JavaMissingError, startDynamoDbLocal } from './local/dynamodb-local';
import { docsRoutes } from './local/docs-routes';
import { startJwksServer } from './local/jwks-server';
import { startOffline } from './local/offline';
import type { AnsweredCall } from './local/gateway';
import { demoPageConfig, startPageServer } from './local/page-server';
import { assertUsablePorts, lateBindProblem, PortsError, stackPorts } from './local/ports';
import { localDefaults, localServiceEnv } from './local/service-env';
import { loadOrCreateSigningKey, signToken } from './local/signing-key';
import { createLedgerTable, createTables, LOCAL_LEDGER_TABLE } from './local/tables';
import { USABLE_DOCUMENT_STATUS } from '../lib/termination/documents';
import { startAwsStandIn, type PublishedEvent, type QueuedMessage } from './local/aws-stand-in';
import { loadOrCreateEventSigningKey } from './local/kms-stand-in';
import { invokeOffline } from './local/offline-lambda';
import { asBatchResponse } from './operations/stream-mapping';
import { startStreamPoller } from './local/stream-poller';
import { removeRunningStack, writeRunningStack } from './local/running-stack';
import { forgetChildren, recordChild, recordedChildren, stillRunning, stopLeftovers } from './local/stack-children';
import { decisionRulePattern, streamFilterPatterns } from './local/template-patterns';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { assertLambdaNode } from './lambda-node';
import { LOCAL_DEAD_LETTER_QUEUES } from './local/local-queues';

/*
 * npm start: the whole service on a laptop. DynamoDB Local (in memory; --persist keeps it
 * under .local/dynamodb), the tables from the deployed definitions, demo contracts, a local
 * signing key and its JWKS, serverless offline behind the local gateway (CORS and the gateway's
 * own answers, as deployed), the demo page (web/) on its own origin, and a curl line per demo
 * customer. The requests table's stream runs the real publisher into a stand-in for EventBridge,
 * which appends each event to .local/events.jsonl; npm run backoffice sends decisions back.
 * The terminal gets one line per call, event and decision, and one "ready" block of the
 * addresses a person uses; serverless offline's own output and the functions' log lines go to
 * .local/service.log. Every port is checked before anything starts. Flags: --persist, --host.
 */

const { values: flags } = parseArgs({
  options: {
    // Keep DynamoDB's data in .local/dynamodb across runs.
    persist: { type: 'boolean', default: false },
    // Where the API and the demo page listen: loopback, or 0.0.0.0 for a phone or an emulator on the network.
    host: { type: 'string', default: '127.0.0.1' },
  },
});
const persist = flags.persist;
const stops: (() => Promise<void>)[] = [];
let stopping: Promise<void> | undefined;

/**
 * Stops everything, last started first. A second signal (Ctrl-C reaches tsx and this process
 * both, and tsx passes its own on) waits for the first shutdown instead of exiting under it,
 * which would leave serverless offline and DynamoDB Local running.
 */
async function shutdown(code: number, farewell?: string): Promise<never> {
  stopping ??= (async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    // Every child stopped: nothing is left for the next start to stop (stack-children.ts).
    if (!recordedChildren().some(stillRunning)) forgetChildren();
    if (farewell !== undefined) console.log(farewell);
  })();
  await stopping;
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0, 'npm start stopped: everything it started has stopped.'));
process.on('SIGTERM', () => void shutdown(0, 'npm start stopped: everything it started has stopped.'));
// A fault of its own (a part that throws where nothing catches it) stops the whole stack, never half of it.
const crashed = (error: unknown) => {
  if (stopping !== undefined) return;
  console.error(
    `npm start stopped on an error of its own, and stops everything it started: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  void shutdown(1);
};
process.on('uncaughtException', crashed);
process.on('unhandledRejection', crashed);

const {
  apiPort,
  dynamoDbPort,
  jwksPort,
  lambdaPort,
  pagePort,
  awsStandInPort,
  keyDir,
  dataDir,
  tables,
  eventsFile,
  deadLettersFile,
  logFile,
} = localDefaults;

const PORTS = stackPorts(flags.host);

function curlLine(
  apiUrl: string,
  token: string,
  call: {
    contractId: string;
    desiredTerminationDate: string;
    bankDetails: { bik: string; accountNumber: string; recipientName: string };
    documentIds: string[];
  },
): string {
  const { contractId, desiredTerminationDate, bankDetails, documentIds } = call;
  const body = JSON.stringify({ reasonCode: 'RELOCATION', desiredTerminationDate, bankDetails, documentIds });
  return [
    `curl -i -X POST '${apiUrl}/api/v1/contracts/${contractId}/termination-requests'`,
    `-H 'Authorization: Bearer ${token}'`,
    `-H 'Idempotency-Key: ${randomUUID()}'`,
    `-H 'Content-Type: application/json'`,
    `-d '${body}'`,
  ].join(' \\\n  ');
}

function appendLine(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(value)}\n`);
}

const clock = () => new Date().toTimeString().slice(0, 8);

/** A failure that repeats (a poll every 250 ms) said once per cause, not three times a second. */
function sayOnce(say: (text: string) => void): (error: unknown) => void {
  const said = new Set<string>();
  return (error) => {
    const text = error instanceof Error ? error.message : String(error);
    if (said.has(text)) return;
    said.add(text);
    say(text);
  };
}
const field = (value: unknown, key: string): string | undefined => {
  const found: unknown = value !== null && typeof value === 'object' && key in value ? Reflect.get(value, key) : undefined;
  return typeof found === 'string' ? found : undefined;
};

/** One line per call the API answered: the correlation id finds its lines in the log file. */
export function callLine(call: AnsweredCall): string {
  const outcome = call.errorCode === undefined ? String(call.status) : `${call.status} ${call.errorCode}`;
  const correlation = call.correlationId === undefined ? '' : `  ${call.correlationId}`;
  return `${clock()} ${call.method} ${call.path} -> ${outcome} (${call.durationMs} ms)${correlation}`;
}

/**
 * A call nobody made by hand: a browser's CORS preflight, or a read a web page makes by itself (its
 * load, its timed refresh). A page's create or withdrawal, and any call without an Origin (curl,
 * the tools), is a person's.
 */
export const isRoutine = (call: AnsweredCall): boolean => call.method === 'OPTIONS' || (call.origin !== undefined && call.method === 'GET');

function printEvent(event: PublishedEvent): void {
  // The file keeps the event as published; the terminal names it in one line.
  appendLine(eventsFile, event);
  const number = field(event.detail, 'requestNumber') ?? field(event.detail, 'requestId') ?? '?';
  const previous = field(event.detail, 'previousStatus');
  const status = field(event.detail, 'status') ?? '?';
  const change = previous === undefined ? status : `${previous} -> ${status}`;
  console.log(`${clock()} [event from ${event.source}] ${event.detailType} ${number}: ${change}`);
}

function printDeadLetter(message: QueuedMessage): void {
  appendLine(deadLettersFile, message);
  const reason = field(message.body, 'reason') ?? 'a record of the stream';
  const problems = message.body !== null && typeof message.body === 'object' && 'problems' in message.body ? message.body.problems : [];
  const why = Array.isArray(problems) && problems.length > 0 ? ` (${problems.map(String).join('; ')})` : '';
  console.log(`${clock()} [dead letter] ${new URL(message.queueUrl).pathname.split('/').pop() ?? message.queueUrl}: ${reason}${why}`);
}

async function main(): Promise<void> {
  assertLambdaNode();
  assertJava();
  // What an earlier start could not stop (its own process killed outright) holds the ports: stopped first.
  const left = await stopLeftovers();
  if (left.length > 0)
    console.log(`Stopped what an earlier npm start left running: ${left.map(({ name, pid }) => `${name} (process ${pid})`).join(', ')}.`);
  // Before anything starts: a port it cannot have stops it here, with one line per port.
  await assertUsablePorts(PORTS);
  console.log('Building functions...');
  await buildFunctions();

  console.log(`Starting DynamoDB Local on port ${dynamoDbPort} (${persist ? `data kept in ${dataDir}` : 'in memory'})...`);
  const db = await startDynamoDbLocal({
    port: dynamoDbPort,
    ...(persist ? { dataDir } : {}),
    onSpawn: (pid) => recordChild('DynamoDB Local', pid),
  });
  stops.push(db.stop);
  // Nothing works without it: said once, in a line that names it, and the whole stack stops.
  db.onExit((code) => {
    if (stopping !== undefined) return;
    console.error(
      `${clock()} DynamoDB Local stopped (exit code ${code ?? 'none'}): the API cannot read or write without it, so npm start stops too. Run npm start again.`,
    );
    void shutdown(1);
  });
  await createTables(db.client, tables);
  // The erasure ledger, which npm run erase writes (docs/operations.md).
  await createLedgerTable(db.client, LOCAL_LEDGER_TABLE);
  const documents = DynamoDBDocumentClient.from(db.client);
  await putContracts(documents, tables.contracts, DEMO_CONTRACTS);
  await putDocuments(documents, tables.documents, DEMO_DOCUMENTS);

  const key = loadOrCreateSigningKey(keyDir);
  // The events' signing key, which the KMS stand-in signs with; its public half served as a JWKS.
  const eventSigningKey = loadOrCreateEventSigningKey(localDefaults.eventSigningKeyFile);
  const jwks = await startJwksServer(key.jwks, jwksPort, undefined, eventSigningKey);
  stops.push(jwks.stop);

  // The decision rule of the template, with its own pattern: a decision put on the bus reaches the consumer as in AWS.
  const standIn = await startAwsStandIn({
    port: awsStandInPort,
    signingKey: eventSigningKey,
    onEvent: printEvent,
    onMessage: printDeadLetter,
    rules: [
      {
        name: 'DecisionRule',
        pattern: decisionRulePattern(),
        deliver: async (event) => {
          const answer = await invokeOffline('applyStatusDecision', event, lambdaPort);
          console.log(
            `${clock()} [decision] ${field(event.detail, 'status') ?? '?'} on ${field(event.detail, 'requestId') ?? '?'}: ${field(answer, 'outcome') ?? JSON.stringify(answer)}`,
          );
          return answer;
        },
      },
    ],
    onRuleError: (rule, error) =>
      console.error(`${clock()} [${rule}] the target failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  stops.push(standIn.stop);

  console.log(`Starting serverless offline (its output and the functions' logs: ${logFile})...`);
  let toLogFile: (line: string) => void = () => undefined;
  const offline = await startOffline({
    apiPort,
    host: flags.host,
    lambdaPort,
    output: { file: logFile },
    // The calls a person made in the window; routine traffic (preflights, a page's own loads and
    // refreshes) only in the log file, among serverless offline's lines.
    onCall: (call) => (isRoutine(call) ? toLogFile(callLine(call)) : console.log(callLine(call))),
    onSpawn: (pid) => recordChild('serverless offline', pid),
    env: localServiceEnv({ dynamoDbEndpoint: db.endpoint, jwksUri: jwks.uri, awsStandIn: standIn.endpoint }),
  });
  stops.push(offline.stop);
  toLogFile = offline.note;
  offline.child.once('exit', (code) => {
    if (stopping === undefined) {
      console.error(`serverless offline stopped (code ${code}); shutting down. Its last words are in ${logFile}.`);
      void shutdown(1);
    }
  });
  // What Lambda's stream mappings do in AWS: each table's changes, in order, to the publisher: the
  // requests table's, and the erasure ledger's (npm run erase: the back office learns of it).
  for (const [mapping, tableName] of [
    ['requests', tables.requests],
    ['erasures', LOCAL_LEDGER_TABLE],
  ] as const) {
    const poller = await startStreamPoller({
      client: db.client,
      endpoint: db.endpoint,
      tableName,
      // Only what is written from now on: a --persist run has published the rest before.
      startingPosition: 'LATEST',
      filters: streamFilterPatterns(mapping),
      deliver: async (event) => asBatchResponse(await invokeOffline('publishRequestEvents', event, lambdaPort)),
      // As the mapping's on-failure destination: Lambda's record of where the records are (not what
      // they hold) to the stand-in's queue, which prints it; npm run redrive -- --queue publisher hands them on again.
      onFailureDestination: { queueUrl: LOCAL_DEAD_LETTER_QUEUES.publisher(standIn.endpoint) },
      onDeadLetter: (_records, reason) => console.error(`${clock()} [publisher] gave up on a batch of the stream: ${reason}`),
      // Said once per cause, and only when it is true a second later that the stack keeps going: DynamoDB
      // Local gone fails the read at once and stops the stack, and says so in a line of its own.
      onError: sayOnce((text) => {
        setTimeout(() => {
          if (stopping === undefined) console.error(`${clock()} Reading the stream failed: ${text} (said once; it keeps trying)`);
        }, 1000).unref();
      }),
    });
    stops.push(poller.stop);
  }
  // The API reference on the page's origin, which the API's CORS allows: its "Try it out" calls the running API.
  const page = await startPageServer({
    port: pagePort,
    host: flags.host,
    // The contracts as the table holds them at each load and refresh of the page, as a personal account reads them.
    config: (customer) => demoPageConfig(key, offline.url, customer, (ids) => readContracts(documents, tables.contracts, ids)),
    routes: docsRoutes(offline.url),
  });
  stops.push(page.stop);

  writeRunningStack({
    pid: process.pid,
    apiUrl: offline.url,
    dynamoDbEndpoint: db.endpoint,
    jwksUri: jwks.uri,
    lambdaPort,
    awsStandIn: standIn.endpoint,
    pageUrl: page.url,
    tables,
  });
  stops.push(() => {
    removeRunningStack();
    return Promise.resolve();
  });

  const date = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  console.log('');
  for (const [name, customer] of Object.entries(DEMO_CUSTOMERS)) {
    const token = signToken(key, { customerId: customer.customerId, expiresIn: 12 * 3600 });
    // The curl line's contract is new each run, so it answers 201 as the Ready block says, --persist or not
    // (a kept demo contract may hold an earlier run's request).
    const curlContract = randomUUID();
    await putContracts(DynamoDBDocumentClient.from(db.client), tables.contracts, [
      { contractId: curlContract, customerId: customer.customerId, status: 'ACTIVE' },
    ]);
    console.log(`== ${name}: customerId ${customer.customerId}`);
    for (const [label, contractId] of Object.entries(customer.contracts)) console.log(`   contract ${label.padEnd(12)} ${contractId}`);
    console.log(`   contract ${'for curl'.padEnd(12)} ${curlContract}   (new this run)`);
    const documents = DEMO_DOCUMENTS.filter((document) => document.customerId === customer.customerId);
    for (const { documentId, fileName, status } of documents) console.log(`   document ${documentId} ${fileName} (${status})`);
    console.log(`   token (12 h): ${token}\n`);
    // The customer's first usable document goes with the request, as the page would attach it.
    const documentIds = documents
      .filter((document) => document.status === USABLE_DOCUMENT_STATUS)
      .slice(0, 1)
      .map((document) => document.documentId);
    console.log(
      `${curlLine(offline.url, token, { contractId: curlContract, desiredTerminationDate: date, bankDetails: customer.bankDetails, documentIds })}\n`,
    );
  }
  console.log(readyBlock({ apiUrl: offline.url, pageUrl: page.url, docsUrl: `${page.origin}/docs/`, dynamoDb: db.endpoint }));
}

/** The one block that says the stack is up, with the addresses a person uses. */
function readyBlock(at: { apiUrl: string; pageUrl: string; docsUrl: string; dynamoDb: string }): string {
  const network =
    flags.host === '127.0.0.1' ? [] : [`  (listening on ${flags.host}: other machines on the network can reach the API and the page)`];
  return [
    '== Ready ==================================================================',
    `  API              ${at.apiUrl}`,
    `  Demo page        ${at.pageUrl}`,
    `  API reference    ${at.docsUrl}`,
    `  DynamoDB Local   ${at.dynamoDb}`,
    `  Full logs        ${logFile}   (serverless offline and the functions' JSON lines)`,
    `  Events           ${eventsFile}`,
    ...network,
    '  Paste a curl line above: 201 the first time, 200 with the same requestId the second.',
    '  The back office decides, in a second terminal:',
    '    npm run backoffice -- --request <requestNumber> --status REJECTED --reason "..."',
    '  One line per call follows. Ctrl-C stops everything.',
    '===========================================================================',
  ].join('\n');
}

main().catch(async (error: unknown) => {
  const late = lateBindProblem(error, PORTS);
  if (late !== undefined) console.error(late);
  else if (error instanceof JavaMissingError || error instanceof PortsError) console.error(error.message);
  else console.error(error);
  await shutdown(1);
});
