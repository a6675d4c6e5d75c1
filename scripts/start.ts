import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { buildFunctions } from './build';
import { DEMO_BANK_DETAILS, DEMO_CONTRACTS, DEMO_CUSTOMERS, putContracts } from './local/demo-data';
import { assertJava, JavaMissingError, startDynamoDbLocal } from './local/dynamodb-local';
import { docsRoutes } from './local/docs-routes';
import { startJwksServer } from './local/jwks-server';
import { startOffline } from './local/offline';
import { demoPageConfig, startPageServer } from './local/page-server';
import { assertUsablePorts, PortsError } from './local/ports';
import { localDefaults, localServiceEnv } from './local/service-env';
import { loadOrCreateSigningKey, signToken } from './local/signing-key';
import { createTables } from './local/tables';
import { startAwsStandIn, type PublishedEvent, type QueuedMessage } from './local/aws-stand-in';
import { invokeOffline } from './local/offline-lambda';
import { asBatchResponse, startStreamPoller } from './local/stream-poller';
import { removeRunningStack, writeRunningStack } from './local/running-stack';
import { decisionRulePattern, streamFilterPatterns } from './local/template-patterns';
import { appendFileSync, mkdirSync } from 'node:fs';
import { maskAccountNumber } from '../lib/observability/logger';
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
 * which prints each event and appends it to .local/events.jsonl; npm run backoffice sends
 * decisions back. Flags: --persist, --host.
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
async function shutdown(code: number): Promise<never> {
  stopping ??= (async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  })();
  await stopping;
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

function curlLine(apiUrl: string, token: string, contractId: string, desiredTerminationDate: string, recipientName: string): string {
  const body = JSON.stringify({ reasonCode: 'RELOCATION', desiredTerminationDate, bankDetails: { ...DEMO_BANK_DETAILS, recipientName } });
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

function printEvent(event: PublishedEvent): void {
  appendLine(localDefaults.eventsFile, event);
  // The terminal shows the account masked, as the logs do; the file keeps the event as published.
  const shown = JSON.stringify(
    event.detail,
    (key: string, value: unknown) => (key === 'accountNumber' && typeof value === 'string' ? maskAccountNumber(value) : value),
    2,
  );
  console.log(`\n[event on ${event.eventBusName}] ${event.detailType} from ${event.source}\n${shown}`);
}

function printDeadLetter(message: QueuedMessage): void {
  appendLine(localDefaults.deadLettersFile, message);
  console.log(`\n[dead letter] ${message.queueUrl}\n${JSON.stringify(message.body, null, 2)}`);
}

async function main(): Promise<void> {
  const { apiPort, dynamoDbPort, jwksPort, lambdaPort, pagePort, awsStandInPort, keyDir, dataDir, tables } = localDefaults;
  assertLambdaNode();
  assertJava();
  await assertUsablePorts({
    API_PORT: apiPort,
    DYNAMODB_PORT: dynamoDbPort,
    JWKS_PORT: jwksPort,
    LAMBDA_PORT: lambdaPort,
    PAGE_PORT: pagePort,
    AWS_STAND_IN_PORT: awsStandInPort,
  });
  console.log('Building functions...');
  await buildFunctions();

  console.log(`Starting DynamoDB Local on port ${dynamoDbPort} (${persist ? `data kept in ${dataDir}` : 'in memory'})...`);
  const db = await startDynamoDbLocal({ port: dynamoDbPort, ...(persist ? { dataDir } : {}) });
  stops.push(db.stop);
  await createTables(db.client, tables);
  await putContracts(DynamoDBDocumentClient.from(db.client), tables.contracts, DEMO_CONTRACTS);

  const key = loadOrCreateSigningKey(keyDir);
  const jwks = await startJwksServer(key.jwks, jwksPort, docsRoutes);
  stops.push(jwks.stop);

  // The decision rule of the template, with its own pattern: a decision put on the bus reaches the consumer as in AWS.
  const standIn = await startAwsStandIn({
    port: awsStandInPort,
    onEvent: printEvent,
    onMessage: printDeadLetter,
    rules: [
      {
        name: 'DecisionRule',
        pattern: decisionRulePattern(),
        deliver: async (event) => {
          const outcome = await invokeOffline('applyStatusDecision', event, lambdaPort);
          console.log(`\n[decision ${event.id}] the consumer answered ${JSON.stringify(outcome)}`);
        },
      },
    ],
    onRuleError: (rule, error) => console.error(`\n[${rule}] the target failed:`, error instanceof Error ? error.message : error),
  });
  stops.push(standIn.stop);

  console.log(`Starting serverless offline on port ${apiPort}...`);
  const offline = await startOffline({
    apiPort,
    host: flags.host,
    lambdaPort,
    output: 'inherit',
    env: localServiceEnv({ dynamoDbEndpoint: db.endpoint, jwksUri: jwks.uri, awsStandIn: standIn.endpoint }),
  });
  stops.push(offline.stop);
  offline.child.once('exit', (code) => {
    if (stopping === undefined) {
      console.error(`serverless offline stopped (code ${code}); shutting down.`);
      void shutdown(1);
    }
  });
  // What Lambda's stream mapping does in AWS: the table's changes, in order, to the publisher.
  const poller = await startStreamPoller({
    client: db.client,
    endpoint: db.endpoint,
    tableName: tables.requests,
    // Only what is written from now on: a --persist run has published the rest before.
    startingPosition: 'LATEST',
    filters: streamFilterPatterns(),
    deliver: async (event) => asBatchResponse(await invokeOffline('publishRequestEvents', event, lambdaPort)),
    // As the mapping's on-failure destination: Lambda's record of where the records are (not what
    // they hold) to the stand-in's queue, which prints it; npm run redrive -- --queue publisher hands them on again.
    onFailureDestination: { queueUrl: LOCAL_DEAD_LETTER_QUEUES.publisher(standIn.endpoint) },
    onDeadLetter: (_records, reason) => console.error(`\n[publisher] gave up on a batch of the stream: ${reason}`),
    onError: (error) => console.error('Reading the stream failed:', error instanceof Error ? error.message : error),
  });
  stops.push(poller.stop);
  const page = await startPageServer({ port: pagePort, host: flags.host, config: () => demoPageConfig(key, offline.url) });
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
  if (flags.host !== '127.0.0.1') console.log(`\nThe API listens on ${flags.host}:${apiPort}: other machines on the network can reach it.`);
  console.log(`\nThe service is up: ${offline.url}  (DynamoDB Local: ${db.endpoint}, JWKS: ${jwks.uri})`);
  console.log(`API description: ${jwks.origin}/docs/  (OpenAPI: ${jwks.origin}/openapi.yaml)`);
  console.log(`Demo page: ${page.url}\n`);
  for (const [name, customer] of Object.entries(DEMO_CUSTOMERS)) {
    const token = signToken(key, { customerId: customer.customerId, expiresIn: 12 * 3600 });
    console.log(`== ${name}: customerId ${customer.customerId}`);
    for (const [label, contractId] of Object.entries(customer.contracts)) console.log(`   contract ${label.padEnd(12)} ${contractId}`);
    console.log(`   token (12 h): ${token}\n`);
    console.log(`${curlLine(offline.url, token, customer.contracts.active, date, name === 'anna' ? 'Anna Ivanova' : 'Boris Petrov')}\n`);
  }
  console.log('Paste a curl line: 201 the first time, 200 with the same requestId the second.');
  console.log(`A new Idempotency-Key is a new request: -H "Idempotency-Key: $(node -p 'crypto.randomUUID()')" (409 while one is active).`);
  console.log(`Events published are printed here and appended to ${localDefaults.eventsFile}. The back office decides with`);
  console.log("(a PutEvents on the bus; the template's rule routes it to the consumer, as in AWS):");
  console.log('  npm run backoffice -- --request <requestNumber or requestId> --status REJECTED --reason "..."');
  console.log('Ctrl-C stops everything.');
}

main().catch(async (error: unknown) => {
  if (error instanceof JavaMissingError || error instanceof PortsError) console.error(error.message);
  else console.error(error);
  await shutdown(1);
});
