import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../scripts/local/dynamodb-local';
import { freePort } from '../scripts/local/free-port';
import { DEMO_BANK_DETAILS } from '../scripts/local/demo-data';
import { startJwksServer } from '../scripts/local/jwks-server';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, signToken } from '../scripts/local/signing-key';
import { apiEvent, authorizerEvent } from './api-event';
import { measureAuthorizer } from './authorizer';
import { buildBundles } from './bundles';
import { installExitHandlers, onCleanup, stopAll, wasInterrupted } from './cleanup';
import { measureColdStarts } from './cold-start';
import { startCountingProxy } from './counting-proxy';
import {
  CLOSED_CONTRACT,
  ContractPool,
  createBenchTables,
  CUSTOMER,
  DATE_AFTER_END,
  END_DATE_CONTRACT,
  freshContracts,
  loadDemoContracts,
  TABLES,
  validBody,
} from './fixtures';
import { floorTransaction, transactionItemSizes } from './floor';
import { measure, type ScenarioResult } from './latency';
import { checkpointsFor, measureMemory } from './memory';
import { readOptions } from './options';
import { assertLambdaNode } from '../scripts/lambda-node';
import { createPeerHandler } from './peer-handler';
import { authorizerTable, bundlesTable, coldTable, floorItemsTable, latencyTable, memoryTable } from './report';
import { buildScenarios, seed, type Handler } from './scenarios';
import { countCalls, installSendHook, sdkCalls } from './sdk-call-counter';
import { captureStdout } from './stdout-sink';
import { judge, verdictTable } from './targets';

/*
 * npm run bench: one process, one DynamoDB Local (started here, on a free port), every figure
 * and ratio from this one run. See docs/performance.md for what the tables mean.
 */

const REGION = 'eu-central-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const stdout = captureStdout();
onCleanup('stdout capture', () => stdout.restore());
const say = (text: string) => stdout.print(`${text}\n\n`);
const progress = (text: string) => console.error(`bench: ${text}`);

function handlerOf(mod: unknown, name: string): Handler {
  const handler: unknown = mod !== null && typeof mod === 'object' ? Reflect.get(mod, 'handler') : undefined;
  if (typeof handler !== 'function') throw new Error(`${name} exports no handler`);
  return async (event, context) => {
    const result: unknown = await handler(event, context);
    return result;
  };
}

async function main(): Promise<void> {
  assertLambdaNode();
  const options = readOptions();
  const began = performance.now();
  say(
    `Contract termination service: performance bench (node ${process.version}, ${cpus().length} CPUs, load average ${load()}; ${options.iterations} calls per row after ${options.warmup} warm-up, delay pass +${options.delayMs} ms per DynamoDB call)`,
  );

  progress('building bundles and starting DynamoDB Local...');
  // Both at once; allSettled so that DynamoDB Local is registered for stopping even if the build fails.
  const [built, started] = await Promise.allSettled([
    buildBundles(),
    freePort().then(async (port) => {
      const running = await startDynamoDbLocal({ port });
      onCleanup('DynamoDB Local', () => running.stop());
      return running;
    }),
  ]);
  if (built.status === 'rejected') throw built.reason;
  if (started.status === 'rejected') throw started.reason;
  const bundles = built.value;
  const db = started.value;
  const proxy = await startCountingProxy(db.endpoint);
  onCleanup('counting proxy', () => proxy.stop());

  const setupDoc = DynamoDBDocumentClient.from(db.client);
  await createBenchTables(db.client);
  await loadDemoContracts(setupDoc);
  const perPass = options.warmup + options.iterations;
  const memoryCreates = Math.ceil(options.memoryInvocations / 50);
  const ids = await freshContracts(setupDoc, 2 * 4 * perPass + 2 + 2 * options.coldRuns + memoryCreates);
  let cursor = 0;
  const slice = (count: number) => ids.slice(cursor, (cursor += count));

  // The service reads its configuration at import: point it at the proxy first. Logs and
  // metrics as deployed (serverless.yml): INFO, EMF metrics on.
  const serviceEnv = {
    DYNAMODB_ENDPOINT: proxy.endpoint,
    REQUESTS_TABLE_NAME: TABLES.requests,
    CONTRACTS_TABLE_NAME: TABLES.contracts,
    AWS_REGION: REGION,
    POWERTOOLS_SERVICE_NAME: 'contract-termination',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    POWERTOOLS_METRICS_NAMESPACE: 'ContractTermination',
    POWERTOOLS_METRICS_DISABLED: 'false',
  };
  Object.assign(process.env, serviceEnv);
  installSendHook();
  const service: Handler = (await import('../functions/create-termination-request')).handler;
  const bundle = handlerOf(await import(pathToFileURL(bundles.create).href), bundles.create);

  const sdkClient = () => {
    const client = new DynamoDBClient({ region: REGION, endpoint: proxy.endpoint, credentials: LOCAL_CREDENTIALS, maxAttempts: 3 });
    countCalls(client);
    onCleanup('SDK client', () => client.destroy());
    return client;
  };
  const floorClient = sdkClient();
  const peer = createPeerHandler(sdkClient(), {
    idempotency: TABLES.peerIdempotency,
    requests: TABLES.peerRequests,
    contracts: TABLES.contracts,
  });

  const [serviceSeedContract = '', peerSeedContract = ''] = slice(2);
  const seeds = { service: await seed(service, serviceSeedContract, 'service'), peer: await seed(peer, peerSeedContract, 'peer') };
  if (sdkCalls.total() === 0) throw new Error("bench: the SDK hook did not see the service handler's DynamoDB client");

  const counters = { http: proxy.total, dynamoDbMs: proxy.busyMs, sdk: sdkCalls.total, stdoutBytes: stdout.bytes, httpSince: proxy.since };
  const passes: { name: string; results: ScenarioResult[] }[] = [];
  for (const [name, delay] of [
    ['DynamoDB Local as is', 0],
    [`DynamoDB Local + ${options.delayMs} ms per call`, options.delayMs],
  ] as const) {
    progress(`latency: ${name}...`);
    proxy.setDelay(delay);
    const pools = {
      floor: new ContractPool('floor', slice(perPass)),
      service: new ContractPool('service', slice(perPass)),
      bundle: new ContractPool('bundle', slice(perPass)),
      peer: new ContractPool('peer', slice(perPass)),
    };
    // The bundle runs the same code as the TypeScript handler: measured as is only, to keep the run short.
    const impls = { floorClient, service, bundle: delay === 0 ? bundle : undefined, peer };
    const results = await measure(buildScenarios(impls, pools, seeds), counters, options);
    passes.push({ name: delay === 0 ? 'as is' : `+${delay} ms`, results });
    say(latencyTable(`Latency, ${name}`, results));
  }
  proxy.setDelay(0);
  const sample = floorTransaction(
    { requests: TABLES.floorRequests, contracts: TABLES.contracts },
    'a1a1a1a1-0000-4000-8000-000000000001',
    CUSTOMER,
  );
  say(
    floorItemsTable(
      transactionItemSizes(sample, {
        contractId: { S: 'a1a1a1a1-0000-4000-8000-000000000001' },
        customerId: { S: CUSTOMER },
        status: { S: 'ACTIVE' },
      }),
    ),
  );

  progress('authorizer...');
  const key = makeSigningKey();
  const jwks = await startJwksServer(key.jwks, 0);
  onCleanup('JWKS server', () => jwks.stop());
  say(authorizerTable(await measureAuthorizer(key, jwks.uri, options.authorizerIterations)));
  say(bundlesTable(bundles));

  progress('cold starts...');
  const coldCreate = slice(options.coldRuns);
  const coldBare = slice(options.coldRuns);
  const token = signToken(key, { customerId: CUSTOMER, expiresIn: 3600 });
  const cold = await measureColdStarts(
    bundles.coldStartRunner,
    [
      {
        name: 'create-termination-request',
        bundle: bundles.create,
        event: (run) =>
          apiEvent({ customerId: CUSTOMER, contractId: coldCreate[run] ?? '', idempotencyKey: randomUUID(), body: validBody() }),
        expectStatus: 201,
        env: serviceEnv,
      },
      {
        name: 'bare DynamoDB client + 1 call',
        bundle: bundles.bare.path,
        event: (run) => floorTransaction({ requests: TABLES.floorRequests, contracts: TABLES.contracts }, coldBare[run] ?? '', CUSTOMER),
        expectStatus: 201,
        env: serviceEnv,
      },
      {
        name: 'authorize-customer (JWKS fetch included)',
        bundle: bundles.authorizer,
        event: () => authorizerEvent(token),
        expectStatus: undefined,
        env: { JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, JWKS_URI: jwks.uri, POWERTOOLS_LOG_LEVEL: 'INFO' },
      },
    ],
    options.coldRuns,
    proxy.total,
  );
  say(coldTable(cold, options.coldRuns));

  progress(`memory: ${options.memoryInvocations} invocations...`);
  const memory = await measureMemory(
    bundles.memoryRunner,
    {
      bundle: bundles.create,
      invocations: options.memoryInvocations,
      checkpoints: checkpointsFor(options.memoryInvocations),
      customerId: CUSTOMER,
      replay: seeds.service.call,
      closedContract: CLOSED_CONTRACT,
      endDateContract: END_DATE_CONTRACT,
      freshContracts: slice(memoryCreates),
      bodies: {
        valid: validBody(),
        afterEnd: validBody(DATE_AFTER_END),
        badAccount: { ...validBody(), bankDetails: { ...DEMO_BANK_DETAILS, accountNumber: '40817810700000000002' } },
        badFields: { ...validBody(), reasonCode: 'BORED', desiredTerminationDate: '2045-02-30' },
      },
    },
    // Straight to DynamoDB Local: nothing to count here, and the proxy would only add noise.
    { ...serviceEnv, DYNAMODB_ENDPOINT: db.endpoint },
  );
  say(memoryTable(memory));

  const verdicts = judge(passes, cold, memory);
  say(verdictTable(verdicts));
  say(
    `Finished in ${((performance.now() - began) / 1000).toFixed(0)} s, load average ${load()}. Reproduce: npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  );
}

installExitHandlers();
main()
  .then(async () => {
    await stopAll();
    process.exit(0);
  })
  .catch(async (error: unknown) => {
    if (!wasInterrupted()) console.error('bench failed:', error);
    await stopAll();
    process.exit(1);
  });
