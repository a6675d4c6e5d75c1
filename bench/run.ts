import { createPublicKey, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { stop as stopEsbuild } from 'esbuild';
import { buildFunctions } from '../scripts/build';
import { assertLambdaNode } from '../scripts/lambda-node';
import { apiEvent, authorizerEvent } from '../scripts/local/api-event';
import { DEMO_BANK_DETAILS, DEMO_CONTRACTS, DEMO_CUSTOMERS, putContracts, putDocuments } from '../scripts/local/demo-data';
import { USABLE_DOCUMENT_STATUS } from '../lib/termination/documents';
import { startDynamoDbLocal } from '../scripts/local/dynamodb-local';
import { freePort } from '../scripts/local/free-port';
import { startJwksServer } from '../scripts/local/jwks-server';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, signToken } from '../scripts/local/signing-key';
import { createTables } from '../scripts/local/tables';
import { limitKeyOf, REQUEST_SORT_PREFIX, requestKeyOf, slotKeyOf } from '../lib/dynamodb/keys';
import { floorCustomerQuery, floorGet, floorQuery, floorTransaction, transactionItems } from './floor';
import { measureAuthorizer, measureLatency, runChild, startProxy, statusOf, stopAll, stops, type Impl, type Row } from './measure';
import { ALONE_PROCESSES, measureAlone } from './alone';
import { benchLifecycle } from './lifecycle';
import { createPeerHandler } from './peer-handler';
import * as report from './report';

/*
 * npm run bench [-- --quick] [-- --iterations 1000 ...]: one process, one DynamoDB Local (started
 * here on a free port), every figure and ratio from this one run. docs/performance.md says what
 * the tables mean.
 */

// flag: [environment variable, default, default with --quick, minimum]
const SETTINGS = {
  iterations: ['BENCH_ITERATIONS', 300, 30, 10],
  warmup: ['BENCH_WARMUP', 30, 5, 0],
  'delay-ms': ['BENCH_DELAY_MS', 8, 8, 0],
  'cold-runs': ['BENCH_COLD_RUNS', 11, 3, 1],
  'memory-invocations': ['BENCH_MEMORY_INVOCATIONS', 10_000, 1000, 200],
  'authorizer-iterations': ['BENCH_AUTHORIZER_ITERATIONS', 2000, 200, 10],
} satisfies Record<string, [string, number, number, number]>;

function readSettings() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      iterations: { type: 'string' },
      warmup: { type: 'string' },
      'delay-ms': { type: 'string' },
      'cold-runs': { type: 'string' },
      'memory-invocations': { type: 'string' },
      'authorizer-iterations': { type: 'string' },
    },
  });
  const setting = (name: keyof typeof SETTINGS): number => {
    const [envName, full, quick, min] = SETTINGS[name];
    const raw = values[name] ?? process.env[envName] ?? '';
    const value = raw === '' ? (values.quick ? quick : full) : Number(raw);
    if (!Number.isSafeInteger(value) || value < min) throw new Error(`--${name} (${envName}) must be an integer >= ${min}, got "${raw}"`);
    return value;
  };
  return {
    iterations: setting('iterations'),
    warmup: setting('warmup'),
    delayMs: setting('delay-ms'),
    coldRuns: setting('cold-runs'),
    memoryInvocations: setting('memory-invocations'),
    authorizerIterations: setting('authorizer-iterations'),
  };
}

const TABLES = {
  requests: 'bench-termination-requests',
  contracts: 'bench-contracts',
  documents: 'bench-documents',
  /** Named for the publisher's configuration; the bench erases nothing, so the publisher never reads it. */
  erasureLedger: 'bench-erasures',
  peerIdempotency: 'bench-peer-idempotency',
  peerRequests: 'bench-peer-requests',
  floorRequests: 'bench-floor-requests',
};
const REGION = 'eu-central-1';
const CUSTOMER = DEMO_CUSTOMERS.anna.customerId;
const CLOSED = DEMO_CUSTOMERS.anna.contracts.closed;
const END_DATE = DEMO_CUSTOMERS.anna.contracts.withEndDate;
// Both dates against the demo end date (2045-12-31): one before it, one after.
const DESIRED_DATE = '2045-06-30';
const DATE_AFTER_END = '2046-03-31';
// The reads: one contract with a few requests, listed a page of 20 at a time.
const READ_REQUESTS = 5;
const PAGE = 20;

/** The customer's uploaded documents in the bench's documents table: as many as a request may name. */
const DOCUMENTS = Array.from({ length: 10 }, (_, i) => ({
  documentId: randomUUID(),
  customerId: CUSTOMER,
  status: USABLE_DOCUMENT_STATUS,
  fileName: `document-${i + 1}.pdf`,
  uploadedAt: '2026-11-02T08:15:00.000Z',
}));

/** A body that passes every rule, of the size a mobile client sends: two of the customer's documents, or `documents`. */
const validBody = (desiredTerminationDate = DESIRED_DATE, documents = 2) => ({
  reasonCode: 'RELOCATION',
  desiredTerminationDate,
  bankDetails: { ...DEMO_BANK_DETAILS },
  comment: 'Moving abroad for work; please close the contract early.',
  documentIds: DOCUMENTS.slice(0, documents).map((document) => document.documentId),
});

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>;
interface Call {
  contractId: string;
  key: string;
  body: unknown;
}
const fresh = (contractId: string, body: unknown = validBody()): Call => ({ contractId, key: randomUUID(), body });
const eventOf = ({ contractId, key, body }: Call) =>
  apiEvent({ customerId: CUSTOMER, contractId, body, headers: { 'Idempotency-Key': key, 'X-Correlation-Id': randomUUID() } });
const lambdaContext = (): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'bench',
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:${REGION}:123456789012:function:bench`,
  memoryLimitInMB: '512',
  awsRequestId: randomUUID(),
  logGroupName: '/aws/lambda/bench',
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 10_000,
  // The Context type still requires its deprecated callbacks.
  /* eslint-disable @typescript-eslint/no-deprecated */
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
  /* eslint-enable @typescript-eslint/no-deprecated */
});
const isHandler = (value: unknown): value is Handler => typeof value === 'function';
async function bundleHandler(file: string): Promise<Handler> {
  const mod: unknown = await import(pathToFileURL(file).href);
  const handler = typeof mod === 'object' && mod !== null && 'handler' in mod ? mod.handler : undefined;
  if (!isHandler(handler)) throw new Error(`${file} exports no handler`);
  return handler;
}
/** An answer's JSON body, {} when it has none. */
function bodyOf(result: unknown): Record<string, unknown> {
  const body = typeof result === 'object' && result !== null && 'body' in result && typeof result.body === 'string' ? result.body : '{}';
  const parsed: unknown = JSON.parse(body);
  return typeof parsed === 'object' && parsed !== null ? Object.fromEntries(Object.entries(parsed)) : {};
}

// Handlers log and publish EMF metrics to stdout, as in Lambda: counted and dropped here.
const print = process.stdout.write.bind(process.stdout);
let stdoutBytes = 0;
process.stdout.write = (chunk: unknown, ...rest: unknown[]): boolean => {
  stdoutBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0;
  const done = rest.find((arg) => typeof arg === 'function');
  if (typeof done === 'function')
    queueMicrotask(() => {
      Reflect.apply(done, undefined, [null]);
    });
  return true;
};
const say = (text: string) => print(`${text}\n\n`);
const progress = (text: string) => console.error(`bench: ${text}`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

let sdkCalls = 0;
/** Counts commands once each, before retries; a document client shares its client's middleware stack. */
function countCalls(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next) => (args) => {
      sdkCalls++;
      return next(args);
    },
    { step: 'initialize', name: 'benchSdkCallCounter' },
  );
}

async function main(): Promise<void> {
  assertLambdaNode();
  const began = performance.now();
  const { iterations, warmup, delayMs, coldRuns, memoryInvocations, authorizerIterations } = readSettings();
  say(
    `Contract termination service: performance bench (node ${process.version}, ${cpus().length} CPUs, load average ${load()}; ${iterations} calls per row after ${warmup} warm-up, delay pass +${delayMs} ms per DynamoDB call)`,
  );

  progress('building bundles and starting DynamoDB Local...');
  const dir = mkdtempSync(join(tmpdir(), 'termination-bench-'));
  stops.push(() => rmSync(dir, { recursive: true, force: true }), stopEsbuild);
  const db = await startDynamoDbLocal({ port: await freePort() });
  stops.push(db.stop);
  // Into a temp dir: the shared .build/ of npm start and npm test is never touched.
  const functions = await buildFunctions({ outDir: join(dir, 'functions') });
  const [bare, runner] = await buildFunctions({ outDir: join(dir, 'bench'), entries: ['bench/bare-handler.ts', 'bench/child-runner.ts'] });
  const [create, getOne, getList, authorizer] = [
    'create-termination-request',
    'get-termination-request',
    'list-termination-requests',
    'authorize-customer',
  ].map((name) => functions.find((f) => f.name === name));
  if (!bare || !runner || !create || !getOne || !getList || !authorizer) throw new Error('a bundle is missing');

  const proxy = await startProxy(db.endpoint);
  await createTables(db.client, TABLES);
  // Powertools' default key is `id`; the requests tables have the service's keys (pk, sk).
  for (const [TableName, keys] of Object.entries({
    [TABLES.peerIdempotency]: ['id'],
    [TABLES.peerRequests]: ['pk', 'sk'],
    [TABLES.floorRequests]: ['pk', 'sk'],
  })) {
    await db.client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keys.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: keys.map((AttributeName, i) => ({ AttributeName, KeyType: i === 0 ? 'HASH' : 'RANGE' })),
        // Like the service's table: DynamoDB Local spends time writing stream records, AWS does not.
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
  }
  // A create takes a contract's one active slot for good: fresh contracts for every create.
  const perPass = warmup + iterations;
  // A fresh process's first calls tier its code up: each process of the bundle and its source alone warms up with as many as it times.
  const alonePerProcess = 2 * iterations;
  // + 6: the seeds, the reads' contract, the empty list's, the sized sample's and the decided request's; then the creates of the processes alone.
  const contracts = Array.from(
    { length: 16 * perPass + 6 + ALONE_PROCESSES * alonePerProcess + 2 * coldRuns + Math.ceil(memoryInvocations / 50) },
    () => ({
      contractId: randomUUID(),
      customerId: CUSTOMER,
      status: 'ACTIVE',
    }),
  );
  await putContracts(DynamoDBDocumentClient.from(db.client), TABLES.contracts, [...DEMO_CONTRACTS, ...contracts]);
  await putDocuments(DynamoDBDocumentClient.from(db.client), TABLES.documents, DOCUMENTS);
  const ids = contracts.map((c) => c.contractId);
  const nextContract = () => {
    const id = ids.shift();
    if (id === undefined) throw new Error('out of fresh contracts');
    return id;
  };

  // The service reads its configuration at import. Logs and metrics as deployed: INFO, EMF on.
  const serviceEnv = {
    DYNAMODB_ENDPOINT: proxy.endpoint,
    REQUESTS_TABLE_NAME: TABLES.requests,
    CONTRACTS_TABLE_NAME: TABLES.contracts,
    DOCUMENTS_TABLE_NAME: TABLES.documents,
    ERASURE_LEDGER_TABLE_NAME: TABLES.erasureLedger,
    AWS_REGION: REGION,
    POWERTOOLS_SERVICE_NAME: 'contract-termination',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    POWERTOOLS_METRICS_NAMESPACE: 'ContractTermination',
    POWERTOOLS_METRICS_DISABLED: 'false',
  };
  Object.assign(process.env, serviceEnv);
  // Each function builds its client when its module loads: count the client it wraps.
  const from = DynamoDBDocumentClient.from.bind(DynamoDBDocumentClient);
  DynamoDBDocumentClient.from = (client, config) => {
    countCalls(client);
    return from(client, config);
  };
  const service: Handler = (await import('../functions/create-termination-request')).handler;
  const serviceGet: Handler = (await import('../functions/get-termination-request')).handler;
  const serviceList: Handler = (await import('../functions/list-termination-requests')).handler;
  const serviceDetails: Handler = (await import('../functions/get-termination-request-details')).handler;
  const serviceMine: Handler = (await import('../functions/list-customer-termination-requests')).handler;
  DynamoDBDocumentClient.from = from;
  // Only to check that the bundles read what the source reads; they are timed alone (bench/alone.ts).
  const [bundleGet, bundleList] = await Promise.all([bundleHandler(getOne.file), bundleHandler(getList.file)]);

  const client = () => {
    const sdk = new DynamoDBClient({ region: REGION, endpoint: proxy.endpoint, credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
    countCalls(sdk);
    stops.push(() => sdk.destroy());
    return sdk;
  };
  const floorClient = client();
  const peer = createPeerHandler(client(), {
    idempotency: TABLES.peerIdempotency,
    requests: TABLES.peerRequests,
    contracts: TABLES.contracts,
  });

  const seed = async (handler: Handler, contractId = nextContract()) => {
    const call = fresh(contractId);
    const result = await handler(eventOf(call), lambdaContext());
    if (statusOf(result) !== 201) throw new Error(`seeding answered ${JSON.stringify(result)}`);
    return { ...call, requestId: String(bodyOf(result)['requestId']) };
  };
  const seeds = { service: await seed(service), peer: await seed(peer) };
  if (sdkCalls === 0) throw new Error("the SDK counter did not see the service's DynamoDB client");
  // The reads' contract: a few requests made by the service, its slot released after each.
  const readContract = nextContract();
  const requestIds: string[] = [];
  while (requestIds.length < READ_REQUESTS) {
    requestIds.push((await seed(service, readContract)).requestId);
    await db.client.send(new DeleteItemCommand({ TableName: TABLES.requests, Key: marshall(slotKeyOf(readContract)) }));
  }
  const readId = requestIds[0] ?? '';
  // A contract of the customer's with no requests: its empty list also reads the contract (0015-reading-requests.md).
  const emptyContract = nextContract();
  const readEvent = (requestId?: string, contractId: string = readContract) =>
    apiEvent({
      method: 'GET',
      customerId: CUSTOMER,
      contractId,
      ...(requestId === undefined ? { query: { limit: String(PAGE) } } : { requestId }),
      headers: { 'X-Correlation-Id': randomUUID() },
    });
  const detailsEvent = (requestId: string, contractId: string = readContract) =>
    apiEvent({ method: 'GET', details: true, customerId: CUSTOMER, contractId, requestId, headers: { 'X-Correlation-Id': randomUUID() } });
  const mineEvent = () =>
    apiEvent({
      method: 'GET',
      allContracts: true,
      customerId: CUSTOMER,
      query: { limit: String(PAGE) },
      headers: { 'X-Correlation-Id': randomUUID() },
    });
  const [getInput, queryInput] = [
    floorGet(TABLES.requests, readContract, readId),
    floorQuery(TABLES.requests, readContract, CUSTOMER, PAGE),
  ];
  // Every side reads the same items: the request, and the contract's whole list in one page (the
  // floor's Query reads the customer's limit record with it, as the service's does: not a request).
  const found = [(await floorClient.send(new GetItemCommand(getInput))).Item?.['requestId']?.S];
  const floorItems = (await floorClient.send(new QueryCommand(queryInput))).Items ?? [];
  const listed = [floorItems.filter((item) => item['sk']?.S?.startsWith(REQUEST_SORT_PREFIX)).length];
  for (const [get, list] of [
    [serviceGet, serviceList],
    [bundleGet, bundleList],
  ] satisfies [Handler, Handler][]) {
    found.push(String(bodyOf(await get(readEvent(readId), lambdaContext()))['requestId']));
    const { items } = bodyOf(await list(readEvent(), lambdaContext()));
    listed.push(Array.isArray(items) ? items.length : 0);
  }
  if (found.some((id) => id !== readId) || listed.some((n) => n !== READ_REQUESTS))
    throw new Error(`the reads disagree: found ${found.join(', ')}, listed ${listed.join(', ')} (expected ${readId}, ${READ_REQUESTS})`);

  // What the details answer costs in bytes against the GET's (docs/decisions/0022-what-a-customer-sees-of-a-request.md):
  // the request as created, and one that went its whole way with the bank's longest words at each step.
  const answerBytes = async (handler: Handler, event: APIGatewayProxyEvent): Promise<number> => {
    const result = await handler(event, lambdaContext());
    if (statusOf(result) !== 200) throw new Error(`a read answered ${JSON.stringify(result)}`);
    return typeof result === 'object' && result !== null && 'body' in result ? Buffer.byteLength(String(result.body)) : Number.NaN;
  };
  const decided = await seed(service);
  const longest = 'Ж'.repeat(1000);
  const steps = ['IN_REVIEW', 'APPROVED', 'COMPLETED'].map((status, i) => ({
    status,
    eventId: randomUUID(),
    occurredAt: `2026-12-0${i + 1}T09:00:00.000Z`,
    appliedAt: `2026-12-0${i + 1}T09:00:01.000Z`,
    reason: longest,
  }));
  await db.client.send(
    new UpdateItemCommand({
      TableName: TABLES.requests,
      Key: marshall(requestKeyOf(decided.contractId, decided.requestId)),
      UpdateExpression: 'SET #status = :status, statusReason = :reason, statusHistory = :steps',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: marshall({ ':status': 'COMPLETED', ':reason': longest, ':steps': steps }),
    }),
  );
  const answerSizes = [
    { what: 'as created (two documents, a comment)', contractId: readContract, requestId: readId },
    {
      what: 'COMPLETED, a 1000-character Cyrillic reason at each of 3 steps',
      contractId: decided.contractId,
      requestId: decided.requestId,
    },
  ].map(async ({ what, contractId, requestId }) => [
    what,
    String(await answerBytes(serviceGet, readEvent(requestId, contractId))),
    String(await answerBytes(serviceDetails, detailsEvent(requestId, contractId))),
  ]);
  const sizesTable = report.table(
    'Answer bytes: GET one request against its details',
    ['request', 'GET', 'details'],
    await Promise.all(answerSizes),
  );

  const handlerRows = (impl: Impl, scenarios: [string, number, Handler, () => APIGatewayProxyEvent][]): Row[] =>
    scenarios.map(([path, expect, handler, event]) => ({
      path,
      impl,
      expect,
      prepare: () => {
        const [e, context] = [event(), lambdaContext()];
        return () => handler(e, context);
      },
    }));
  const pathRows = (impl: Impl, handler: Handler, seeded: Call): Row[] =>
    handlerRows(
      impl,
      (
        [
          ['create', 201, () => fresh(nextContract())],
          // As many documents as a request may name: ten more items to check (the peer checks none).
          ...(impl === 'peer'
            ? []
            : [
                ['create, 10 documents', 201, () => fresh(nextContract(), validBody(DESIRED_DATE, 10))] satisfies [
                  string,
                  number,
                  () => Call,
                ],
              ]),
          ['replay', 200, () => seeded],
          ['409 active request', 409, () => fresh(seeded.contractId)],
          ['422 contract closed', 422, () => fresh(CLOSED)],
          ['422 date after end', 422, () => fresh(END_DATE, validBody(DATE_AFTER_END))],
        ] satisfies [string, number, () => Call][]
      ).map(([path, expect, call]) => [path, expect, handler, () => eventOf(call())]),
    );
  const readRows = (impl: Impl, get: Handler, list: Handler): Row[] =>
    handlerRows(impl, [
      ['GET one', 200, get, () => readEvent(readId)],
      ['GET details', 200, serviceDetails, () => detailsEvent(readId)],
      ['GET list', 200, list, () => readEvent()],
      ['GET list empty', 200, list, () => readEvent(undefined, emptyContract)],
      ['GET my requests', 200, serviceMine, mineEvent],
    ]);
  // Each floor is the bare DynamoDBClient sending what the path sends, marshalled before timing.
  const floorRow = (path: string, prepare: () => () => Promise<unknown>): Row => ({
    path,
    impl: 'floor',
    expect: 0,
    prepare,
  });
  const floorTables = { requests: TABLES.floorRequests, contracts: TABLES.contracts, documents: TABLES.documents };
  const createFloor = floorRow('create', () => {
    const input = floorTransaction(floorTables, nextContract(), CUSTOMER, validBody());
    return () => floorClient.send(new TransactWriteItemsCommand(input));
  });
  const createTenFloor = floorRow('create, 10 documents', () => {
    const input = floorTransaction(floorTables, nextContract(), CUSTOMER, validBody(DESIRED_DATE, 10));
    return () => floorClient.send(new TransactWriteItemsCommand(input));
  });
  const readFloors = [
    floorRow('GET one', () => () => floorClient.send(new GetItemCommand(getInput))),
    // The details read the same item as GET one: what they add is the work of the answer.
    floorRow('GET details', () => () => floorClient.send(new GetItemCommand(getInput))),
    floorRow('GET list', () => () => floorClient.send(new QueryCommand(queryInput))),
    // What an empty list would cost in one call: the Query alone.
    floorRow('GET list empty', () => () => floorClient.send(new QueryCommand(floorQuery(TABLES.requests, emptyContract, CUSTOMER, PAGE)))),
    floorRow('GET my requests', () => () => floorClient.send(new QueryCommand(floorCustomerQuery(TABLES.requests, CUSTOMER, PAGE)))),
  ];
  const counters = {
    http: () => proxy.operations.length,
    dynamoDbMs: () => proxy.busyMs,
    sdk: () => sdkCalls,
    stdoutBytes: () => stdoutBytes,
    operationsSince: (mark: number) => proxy.operations.slice(mark),
  };
  const passes: report.Pass[] = [];
  for (const delay of [0, delayMs]) {
    const name = delay === 0 ? 'as is' : `+ ${delay} ms per call`;
    progress(`latency: DynamoDB Local ${name}...`);
    proxy.delayMs = delay;
    const rows = [createFloor, createTenFloor, ...pathRows('service', service, seeds.service)];
    rows.push(...pathRows('peer', peer, seeds.peer), ...readFloors, ...readRows('service', serviceGet, serviceList));
    const results = await measureLatency(rows, counters, warmup, iterations);
    passes.push({ name: delay === 0 ? 'as is' : `+${delay} ms`, results });
    say(report.latencyTable({ name, results }, iterations));
  }
  proxy.delayMs = 0;
  say(sizesTable);
  progress('the bundle against its source, each alone in a process...');
  const aloneRows = [
    {
      path: 'create',
      expect: 201,
      bundle: create.file,
      events: () => Array.from({ length: alonePerProcess }, () => eventOf(fresh(nextContract()))),
    },
    { path: 'GET one', expect: 200, bundle: getOne.file, events: () => [readEvent(readId)] },
    { path: 'GET list', expect: 200, bundle: getList.file, events: () => [readEvent()] },
  ].map((row) => ({ ...row, source: `functions/${basename(dirname(row.bundle))}.ts` }));
  const aloneWarmup = alonePerProcess - iterations;
  const alone = await measureAlone(aloneRows, { dir, warmup: aloneWarmup, iterations, httpCount: () => proxy.operations.length });
  say(report.aloneTable(alone, aloneWarmup, iterations));
  progress('lifecycle: decisions and publishing...');
  const lifecycleTables = await benchLifecycle({
    directEndpoint: db.endpoint,
    directClient: db.client,
    floorClient,
    requestsTable: TABLES.requests,
    customerId: CUSTOMER,
    createRequest: async () => {
      const { contractId, requestId } = await seed(service);
      return { contractId, requestId };
    },
    operations: () => proxy.operations,
    iterations,
    warmup,
  });
  for (const lifecycleTable of lifecycleTables) say(lifecycleTable);
  // What one create with ten documents writes and checks, sized as stored: the items the floor's
  // transaction left behind, read back.
  const sampleContract = nextContract();
  const sample = floorTransaction(floorTables, sampleContract, CUSTOMER, validBody(DESIRED_DATE, 10));
  await floorClient.send(new TransactWriteItemsCommand(sample));
  const stored = async (TableName: string, key: Record<string, string>) => {
    const { Item } = await floorClient.send(new GetItemCommand({ TableName, Key: marshall(key) }));
    if (Item === undefined) throw new Error(`bench: no item ${JSON.stringify(key)} in ${TableName}`);
    return Item;
  };
  const [contractItem, documentItem, limitItem] = await Promise.all([
    stored(TABLES.contracts, { contractId: sampleContract }),
    stored(TABLES.documents, { documentId: DOCUMENTS[0]?.documentId ?? '' }),
    stored(TABLES.floorRequests, { ...limitKeyOf(sampleContract, CUSTOMER) }),
  ]);
  const checked = (tableName: string | undefined) =>
    tableName === TABLES.documents ? { name: 'document', item: documentItem } : { name: 'contract', item: contractItem };
  say(report.itemsTable(transactionItems(sample, { checked, updated: limitItem }), 'with 10 documents'));

  progress('authorizer...');
  const key = makeSigningKey();
  const jwks = await startJwksServer(key.jwks, 0);
  stops.push(jwks.stop);
  Object.assign(process.env, { JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, JWKS_URI: jwks.uri });
  const token = signToken(key, { customerId: CUSTOMER, expiresIn: 3600 });
  say(report.authorizerTable(await measureAuthorizer(token, createPublicKey(key.privateKey), CUSTOMER, authorizerIterations)));
  say(report.bundlesTable(functions, bare));

  progress('cold starts...');
  const targets = [
    { name: 'create-termination-request', file: create.file, expect: 201, event: () => eventOf(fresh(nextContract())) },
    {
      name: 'bare DynamoDB client + 1 call',
      file: bare.file,
      expect: 201,
      event: () => floorTransaction(floorTables, nextContract(), CUSTOMER, validBody()),
    },
    // The runner counts an authorizer's Allow policy as 200.
    {
      name: 'authorize-customer (JWKS fetch included)',
      file: authorizer.file,
      expect: 200,
      event: () => authorizerEvent(`Bearer ${token}`),
    },
  ];
  const cold: report.Cold = targets.map(({ name }) => ({ name, runs: [] }));
  // Bundles take turns, so the machine's noise hits all alike.
  for (let run = 0; run < coldRuns; run++) {
    for (const [i, target] of targets.entries()) {
      const before = proxy.operations.length;
      const env = { BENCH_MODE: 'cold', BENCH_BUNDLE: target.file, BENCH_EVENT: JSON.stringify(target.event()) };
      const { lines, wallMs } = await runChild(runner.file, env);
      const [line] = lines;
      if (line?.['status'] !== target.expect) throw new Error(`cold start of ${target.name} answered ${JSON.stringify(line)}`);
      cold[i]?.runs.push({ ...line, wallMs, calls: proxy.operations.length - before });
    }
  }
  say(report.coldTable(cold));

  progress(`memory: ${memoryInvocations} invocations...`);
  const memoryEnv = {
    ...serviceEnv,
    // Straight to DynamoDB Local: nothing to count here, and the proxy would only add noise.
    DYNAMODB_ENDPOINT: db.endpoint,
    BENCH_MODE: 'memory',
    BENCH_BUNDLE: create.file,
    BENCH_INVOCATIONS: String(memoryInvocations),
    BENCH_CUSTOMER: CUSTOMER,
    BENCH_REPLAY: `${seeds.service.contractId},${seeds.service.key}`,
    BENCH_CLOSED: CLOSED,
    BENCH_END_DATE: END_DATE,
    BENCH_FRESH: Array.from({ length: Math.ceil(memoryInvocations / 50) }, nextContract).join(','),
    BENCH_BODY: JSON.stringify(seeds.service.body),
    BENCH_BODY_AFTER_END: JSON.stringify(validBody(DATE_AFTER_END)),
    BENCH_BODY_BAD_ACCOUNT: JSON.stringify({
      ...validBody(),
      bankDetails: { ...DEMO_BANK_DETAILS, accountNumber: '40817810700000000002' },
    }),
    BENCH_BODY_BAD_FIELDS: JSON.stringify({ ...validBody(), reasonCode: 'BORED', desiredTerminationDate: '2045-02-30' }),
  };
  const { lines, wallMs } = await runChild(runner.file, memoryEnv, ['--expose-gc']);
  const memory = { samples: lines.filter((l) => 'invocations' in l), statuses: lines.find((l) => !('invocations' in l)) ?? {}, wallMs };
  say(report.memoryTable(memory));

  say(report.verdictTable(passes, cold, memory, alone));
  const args = process.argv.slice(2).join(' ');
  say(
    `Finished in ${((performance.now() - began) / 1000).toFixed(0)} s, load average ${load()}. Reproduce: npm run bench${args ? ` -- ${args}` : ''}`,
  );
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] satisfies NodeJS.Signals[]) {
  process.on(signal, () => {
    if (!interrupted) console.error(`\nbench: ${signal}, stopping...`);
    interrupted = true;
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
main()
  .then(() => stopAll())
  .then(() => process.exit(0))
  .catch(async (error: unknown) => {
    // After Ctrl-C, a failure is only its echo.
    if (!interrupted) console.error('bench failed:', error);
    await stopAll();
    process.exit(interrupted ? 130 : 1);
  });
