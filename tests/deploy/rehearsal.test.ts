import {
  CloudFormationClient,
  DescribeStackEventsCommand,
  DescribeStacksCommand,
  type Stack,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeEventBusCommand,
  EventBridgeClient,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import { GetEventSourceMappingCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateKeyCommand, GetKeyRotationStatusCommand, KMSClient, ListAliasesCommand, ListKeysCommand } from '@aws-sdk/client-kms';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiEvent } from '../../scripts/local/api-event';
import { signedDetail, verifyEvent, type EventKey } from '../../lib/events/event-signature';
import { EVENT_SIGNING_KEYS_OBJECT_KEY } from '../../lib/events/event-signing-keys';
import { kmsSignerFor } from '../../lib/aws/kms-signer';
import { USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';
import { matchesPattern } from '../../scripts/local/event-pattern';
import { lambdaRecord } from '../../lib/aws/dynamodb-streams';
import { validBody, headersWithKey } from '../support/bodies';
import {
  deployedFunctions,
  deployedTemplate,
  invokeDeployed,
  invokeDeployedWithOutput,
  stackResources,
  type DeployedFunction,
} from '../support/deployed-functions';
import { TemplateResolver } from '../support/cfn-intrinsics';
import { at, jsonObject, parsedObject } from '../support/json';
import { serviceFolder } from '../support/packaged-template';
import { MOTO_ACCOUNT_ID, motoInstalled, startMoto, type Moto } from '../support/moto';
import { motoEccKeys, type EccKeys } from '../support/moto-ecc-keys';
import { signDecision } from '../../scripts/local/decision-event';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { makeSigningKey } from '../../scripts/local/signing-key';

/*
 * The deploy, rehearsed: `npm run deploy -- --stage prod`, the very command and template
 * production gets, run twice (create, then update) against moto's CloudFormation, then the
 * deployed stack exercised with the deployed code and configuration (docs/deploy.md, Rehearsal).
 * moto cannot run Lambda (no Docker): each function's artifact is taken from the deployment
 * bucket and run here in Node 22 with its deployed environment, and where EventBridge would
 * invoke a function the test routes to a queue of its own and hands the event on. Last, the
 * docs' rollback and removal commands, and what removal keeps.
 */

const installed = motoInstalled();
if (!installed)
  console.log("moto_server is not on PATH: the deploy rehearsal (tests/deploy/rehearsal.test.ts) is skipped. pip install 'moto[server]'");

const STAGE = 'prod';
const STACK = `contract-termination-${STAGE}`;
/** The table another system owns in production: the rehearsal makes it, as that system would. */
const CONTRACTS_TABLE = 'bank-contracts';
/** And the documents service's, which the rehearsal makes as that service would. */
const DOCUMENTS_TABLE = 'bank-documents';
const CUSTOMER = 'customer-rehearsal';
const DOCUMENT_ID = randomUUID();
const DEPLOY_TIMEOUT_MS = 240_000;

let moto: Moto;
/** KMS as the deploy and the publisher meet it: the stack's signing key ECC_NIST_P256, as in AWS (tests/support/moto-ecc-keys.ts). */
let eccKeys: EccKeys;
/** A key of the stage's before a rotation: an ECC_NIST_P256 key made through the KMS API, still in its window. */
let previousKeyId: string;
let work: string;
/** The checkout the deploy runs in: links to this one, with its own bundles and framework files. */
let service: { dir: string; remove: () => void };
let cloudFormation: CloudFormationClient;
let dynamodb: DynamoDBClient;
let events: EventBridgeClient;
let sqs: SQSClient;
/** The back office of the rehearsal: its own signing key, its JWKS served on loopback. */
const backOffice = { key: makeSigningKey('rehearsal-back-office'), jwksUri: '', stop: () => Promise.resolve() };
const deploys: { ms: number; output: string }[] = [];
/** The back office's queue for the service's events, made before the deploy as the back office would. */
const backOfficeEvents = { url: '', arn: '' };

async function deploy(stage: string, env: Record<string, string> = {}): Promise<{ ms: number; output: string }> {
  const started = Date.now();
  const { stdout, stderr } = await promisify(execFile)('npm', ['run', 'deploy', '--', '--stage', stage], {
    cwd: service.dir,
    env: {
      ...process.env,
      ...moto.env,
      AWS_ENDPOINT_URL_KMS: eccKeys.endpoint,
      JWT_ISSUER: 'https://issuer.rehearsal.example',
      JWT_AUDIENCE: 'termination-api',
      JWKS_URI: 'https://issuer.rehearsal.example/.well-known/jwks.json',
      // The back office's keys: a JWKS of the test's own, on loopback, where the deployed consumer (run here) fetches it.
      DECISION_JWKS_URI: backOffice.jwksUri,
      // The back office's queue, the one recipient of the service's events (the stack's BackOfficeEventsRule).
      BACK_OFFICE_EVENTS_TARGET_ARN: backOfficeEvents.arn,
      CONTRACTS_TABLE_NAME: CONTRACTS_TABLE,
      DOCUMENTS_TABLE_NAME: DOCUMENTS_TABLE,
      ...env,
    },
    timeout: DEPLOY_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { ms: Date.now() - started, output: stdout + stderr };
}

/**
 * The document of the events' public keys the deploy wrote, read from the stack's bucket as the
 * back office reads it. (The stack's outputs name the bucket in AWS; moto's change sets leave the
 * outputs as the stack's creation made them, so the bucket is found among the stack's resources.)
 */
async function keysDocument(bucketName?: string): Promise<{ contentType?: string; cacheControl?: string; jwks: { keys: EventKey[] } }> {
  const bucket =
    bucketName ??
    (await stackResources(cloudFormation, STACK)).find((r) => r.LogicalResourceId === 'EventSigningKeysBucket')?.PhysicalResourceId;
  const s3 = new S3Client({
    region: moto.env['AWS_REGION'],
    endpoint: moto.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'r', secretAccessKey: 'r' },
  });
  const answer = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: EVENT_SIGNING_KEYS_OBJECT_KEY }));
  const parsed = jsonObject(JSON.parse((await answer.Body?.transformToString()) ?? '{}'));
  const keys = Array.isArray(parsed['keys']) ? parsed['keys'].map((key) => jsonObject(key)) : [];
  return { contentType: answer.ContentType, cacheControl: answer.CacheControl, jwks: { keys } };
}

async function stack(name: string): Promise<Stack> {
  const { Stacks = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: name }));
  const [found] = Stacks;
  if (found === undefined) throw new Error(`No stack ${name}`);
  return found;
}

const stackStatus = async (name: string): Promise<string | undefined> => (await stack(name)).StackStatus;

/** How many updates of the stack itself completed. */
async function stackUpdates(name: string): Promise<number> {
  const { StackEvents = [] } = await cloudFormation.send(new DescribeStackEventsCommand({ StackName: name }));
  return StackEvents.filter((e) => e.LogicalResourceId === name && e.ResourceStatus === 'UPDATE_COMPLETE').length;
}

async function failedEvents(name: string): Promise<string[]> {
  const { StackEvents = [] } = await cloudFormation.send(new DescribeStackEventsCommand({ StackName: name }));
  return StackEvents.filter((e) => e.ResourceStatus?.endsWith('FAILED')).map((e) => `${e.LogicalResourceId}: ${e.ResourceStatusReason}`);
}

/** A queue of the test's own. */
async function queue(name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { url: QueueUrl, arn: Attributes['QueueArn'] ?? '' };
}

/** The events a queue of the test's own received, waiting up to 20 s for `count` of them. */
async function receive(target: { url: string }, count: number): Promise<Record<string, unknown>[]> {
  const bodies: Record<string, unknown>[] = [];
  const deadline = Date.now() + 20_000;
  while (bodies.length < count && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: target.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    bodies.push(...Messages.map((m) => parsedObject(m.Body ?? '')));
  }
  return bodies;
}

describe.runIf(installed)('npm run deploy, rehearsed on moto', () => {
  beforeAll(async () => {
    moto = await startMoto();
    eccKeys = await motoEccKeys(moto.endpoint, moto.env['AWS_REGION'] ?? '');
    const jwks = await startJwksServer(backOffice.key.jwks, 0);
    Object.assign(backOffice, { jwksUri: jwks.uri, stop: jwks.stop });
    work = mkdtempSync(join(tmpdir(), 'rehearsal-'));
    service = serviceFolder({ linkBundles: false });
    const client = { region: moto.env['AWS_REGION'], endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
    cloudFormation = new CloudFormationClient(client);
    dynamodb = new DynamoDBClient(client);
    events = new EventBridgeClient(client);
    sqs = new SQSClient(client);
    const { KeyMetadata } = await new KMSClient({ ...client, endpoint: eccKeys.endpoint }).send(
      new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }),
    );
    previousKeyId = KeyMetadata?.KeyId ?? '';
    Object.assign(backOfficeEvents, await queue('back-office-events'));
    await dynamodb.send(
      new CreateTableCommand({
        TableName: CONTRACTS_TABLE,
        KeySchema: [{ AttributeName: 'contractId', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'contractId', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await dynamodb.send(
      new CreateTableCommand({
        TableName: DOCUMENTS_TABLE,
        KeySchema: [{ AttributeName: 'documentId', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'documentId', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  }, 90_000);

  afterAll(async () => {
    await eccKeys.stop();
    await moto.stop();
    await backOffice.stop();
    service.remove();
    rmSync(work, { recursive: true, force: true });
  });

  it(
    'creates the prod stack, then updates it, with no resource failed',
    async () => {
      await expect(stackStatus(STACK)).rejects.toThrow(/does not exist/);
      deploys.push(await deploy(STAGE));
      expect(await stackUpdates(STACK)).toBe(1);
      // The framework creates the stack with its deployment bucket, then updates it to the template.
      const created = await stack(STACK);
      expect(created.StackStatus).toBe('UPDATE_COMPLETE');
      // The stack up, the deploy wrote the document of the events' public keys: the stack's key alone.
      const signingKeyId = (await stackResources(cloudFormation, STACK)).find(
        (r) => r.LogicalResourceId === 'EventSigningKey',
      )?.PhysicalResourceId;
      expect((await keysDocument()).jwks.keys.map((key) => key.kid)).toEqual([signingKeyId]);
      expect(deploys[0]?.output).toContain(`The events' public keys: s3://`);
      // The second deploy names a previous key still in its window (a rotation's): it is kept, after the key that signs.
      deploys.push(await deploy(STAGE, { EVENT_SIGNING_PREVIOUS_KEY_IDS: previousKeyId }));
      expect((await keysDocument()).jwks.keys.map((key) => key.kid)).toEqual([signingKeyId, previousKeyId]);
      const updated = await stack(STACK);
      expect(updated.StackStatus).toBe('UPDATE_COMPLETE');
      expect(updated.CreationTime).toEqual(created.CreationTime);
      expect(await stackUpdates(STACK)).toBe(2);
      expect(await failedEvents(STACK)).toEqual([]);
      const resources = await stackResources(cloudFormation, STACK);
      const unfinished = resources.filter((r) => r.ResourceType && !/^(CREATE|UPDATE)_COMPLETE$/.test(r.ResourceStatus ?? ''));
      expect(unfinished).toEqual([]);
    },
    2 * DEPLOY_TIMEOUT_MS,
  );

  it('creates every resource moto models, and skips only the types docs/deploy.md lists with the test that covers each', async () => {
    const template = await deployedTemplate(cloudFormation, STACK);
    // The prod stack's conditions, from its parameters' defaults (the deploy passes none).
    const resolver = new TemplateResolver(template);
    const inStack = Object.entries(jsonObject(template['Resources'])).filter(([, r]) => {
      const condition = at(r, 'Condition');
      return typeof condition !== 'string' || resolver.condition(condition);
    });
    const skippedTypes = moto.unsupportedTypes();
    const skipped = inStack.filter(([, r]) => skippedTypes.includes(String(at(r, 'Type'))));
    const created = (await stackResources(cloudFormation, STACK)).filter((r: StackResourceSummary) => r.ResourceType);
    expect(created.length + skipped.length).toBe(inStack.length);
    console.log(
      `Rehearsal: ${inStack.length} resources in the prod stack, ${created.length} created by moto, ${skipped.length} (of ${skippedTypes.length} types) skipped; ` +
        `deploys ${deploys.map((d) => `${(d.ms / 1000).toFixed(1)} s`).join(', ')}`,
    );

    const doc = readFileSync('docs/deploy.md', 'utf8');
    const table = doc.slice(doc.indexOf('## What the rehearsal cannot create'));
    const rows = [...table.matchAll(/^\| `(AWS::[\w:]+)` \| (.+) \| (.+) \|$/gm)];
    expect(rows.map((row) => row[1]).sort()).toEqual(skippedTypes);
    for (const row of rows) {
      for (const [, file] of (row[3] ?? '').matchAll(/`(tests\/[\w/.-]+\.ts)`/g)) expect(() => readFileSync(file ?? '')).not.toThrow();
    }
  });

  it("makes the stage's own key, rotated, found by its alias, and encrypts both dead-letter queues with it", async () => {
    const client = { region: moto.env['AWS_REGION'], endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
    const kms = new KMSClient(client);
    const resources = await stackResources(cloudFormation, STACK);
    const keyId = resources.find((r) => r.LogicalResourceId === 'StageKey')?.PhysicalResourceId ?? '';
    // moto keeps the policy of a key its CloudFormation made as an object, and then fails DescribeKey
    // (which reads the policy as text): the key is found by ListKeys instead.
    const { Keys = [] } = await kms.send(new ListKeysCommand({}));
    const keyArn = Keys.find((key) => key.KeyId === keyId)?.KeyArn;
    expect(keyArn).toMatch(/^arn:aws:kms:/);
    expect((await kms.send(new GetKeyRotationStatusCommand({ KeyId: keyId }))).KeyRotationEnabled).toBe(true);
    const { Aliases = [] } = await kms.send(new ListAliasesCommand({ KeyId: keyId }));
    expect(Aliases.map((alias) => alias.AliasName)).toEqual([`alias/${STACK}`]);
    // moto keeps a table's SSESpecification from its CloudFormation but reports it only under the
    // API's own name for it (Enabled, not SSEEnabled): the table's key is checked in the template
    // (tests/deploy/template.test.ts), like the bus's and the log groups', which moto ignores.
    const queues = resources.filter((r) => r.ResourceType === 'AWS::SQS::Queue');
    expect(queues).toHaveLength(2);
    for (const q of queues) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: q.PhysicalResourceId ?? '', AttributeNames: ['KmsMasterKeyId'] }),
      );
      expect([q.LogicalResourceId, Attributes['KmsMasterKeyId']]).toEqual([q.LogicalResourceId, keyArn]);
    }
  });

  describe('the deployed stack, run with its deployed code and configuration', () => {
    let functions: Map<string, DeployedFunction>;
    const fn = (logicalId: string): DeployedFunction => {
      const found = functions.get(logicalId);
      if (found === undefined) throw new Error(`No deployed function ${logicalId}`);
      return found;
    };
    const call = async (logicalId: string, event: unknown): Promise<unknown> => invokeDeployed(fn(logicalId), event, moto.env);
    const callApi = async (logicalId: string, event: unknown) => {
      const result = jsonObject(await call(logicalId, event));
      return { status: result['statusCode'], body: parsedObject(String(result['body'])) };
    };
    let contractId: string;
    let requestId: string;
    let resources: StackResourceSummary[];
    const physicalId = (logicalId: string): string => resources.find((r) => r.LogicalResourceId === logicalId)?.PhysicalResourceId ?? '';

    /**
     * The batch Lambda would hand the publisher through the deployed mapping: every item the
     * requests table holds, as the INSERT record its stream carries, through the mapping's filter.
     * moto keeps the mapping but, unable to run the function, drops the records it hands it, so
     * the records are made from the items themselves, in the stream's shape.
     */
    async function streamBatch(publisher: DeployedFunction): Promise<DynamoDBStreamEvent> {
      const client = { region: moto.env['AWS_REGION'], endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
      const mapping = await new LambdaClient(client).send(
        new GetEventSourceMappingCommand({ UUID: physicalId('RequestEventsStreamMapping') }),
      );
      expect(mapping.FunctionArn).toContain(`function:${publisher.functionName}`);
      const filters = (mapping.FilterCriteria?.Filters ?? []).map((filter): unknown => JSON.parse(filter.Pattern ?? ''));
      expect(filters).toHaveLength(1);
      const { Items = [] } = await dynamodb.send(new ScanCommand({ TableName: physicalId('RequestsTable'), ConsistentRead: true }));
      const streamArn = mapping.EventSourceArn ?? '';
      const records = Items.map((item, index) =>
        lambdaRecord(
          {
            eventID: `rehearsal-${String(index)}`,
            eventName: 'INSERT',
            eventVersion: '1.1',
            awsRegion: moto.env['AWS_REGION'],
            dynamodb: {
              ApproximateCreationDateTime: new Date(),
              Keys: { pk: item['pk'] ?? { S: '' }, sk: item['sk'] ?? { S: '' } },
              NewImage: item,
              SequenceNumber: String(1000 + index),
              StreamViewType: 'NEW_AND_OLD_IMAGES',
            },
          },
          streamArn,
        ),
      );
      const kept = records.filter((record) => filters.some((pattern) => matchesPattern(pattern, record)));
      // The create wrote its key, number and the contract's slot too: the filter passes the request alone.
      expect(kept.map((record) => record.dynamodb?.NewImage?.['kind']?.S)).toEqual(['REQUEST']);
      expect(records.length).toBeGreaterThan(kept.length);
      return { Records: kept };
    }

    beforeAll(async () => {
      const client = { region: moto.env['AWS_REGION'], endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
      functions = await deployedFunctions(
        { cloudFormation, lambda: new LambdaClient(client), s3: new S3Client({ ...client, forcePathStyle: true }) },
        STACK,
        work,
      );
      resources = await stackResources(cloudFormation, STACK);
      contractId = randomUUID();
      await dynamodb.send(
        new PutItemCommand({
          TableName: CONTRACTS_TABLE,
          Item: { contractId: { S: contractId }, customerId: { S: CUSTOMER }, status: { S: 'ACTIVE' } },
        }),
      );
      await dynamodb.send(
        new PutItemCommand({
          TableName: DOCUMENTS_TABLE,
          Item: { documentId: { S: DOCUMENT_ID }, customerId: { S: CUSTOMER }, status: { S: USABLE_DOCUMENT_STATUS } },
        }),
      );
    }, 120_000);

    it('runs all ten functions on nodejs22.x, each with every table, bus and queue its settings name in existence', async () => {
      expect(functions.size).toBe(10);
      for (const deployed of functions.values()) {
        expect(deployed.runtime).toBe('nodejs22.x');
        for (const [name, value] of Object.entries(deployed.environment)) {
          if (name.endsWith('_TABLE_NAME'))
            await expect(dynamodb.send(new DescribeTableCommand({ TableName: value }))).resolves.toBeDefined();
          if (name.endsWith('_BUS_NAME')) await expect(events.send(new DescribeEventBusCommand({ Name: value }))).resolves.toBeDefined();
          if (name.endsWith('_QUEUE_URL'))
            await expect(sqs.send(new GetQueueAttributesCommand({ QueueUrl: value, AttributeNames: ['QueueArn'] }))).resolves.toBeDefined();
        }
      }
    });

    it("creates a request naming the customer's document (201), replays it (200), refuses a second key on the contract (409) and another's document (422)", async () => {
      const key = randomUUID();
      const body = validBody({ documentIds: [DOCUMENT_ID] });
      const create = (k: string) => apiEvent({ contractId, customerId: CUSTOMER, body, headers: headersWithKey(k) });
      const first = await callApi('CreateTerminationRequestLambdaFunction', create(key));
      expect(first.status).toBe(201);
      requestId = String(first.body['requestId']);
      const replay = await callApi('CreateTerminationRequestLambdaFunction', create(key));
      expect([replay.status, replay.body['requestId']]).toEqual([200, requestId]);
      const other = await callApi('CreateTerminationRequestLambdaFunction', create(randomUUID()));
      expect([other.status, other.body['errorCode']]).toEqual([409, 'ACTIVE_REQUEST_ALREADY_EXISTS']);
      // Another customer naming this customer's document, on a contract of their own.
      const otherContractId = randomUUID();
      await dynamodb.send(
        new PutItemCommand({
          TableName: CONTRACTS_TABLE,
          Item: { contractId: { S: otherContractId }, customerId: { S: 'customer-other' }, status: { S: 'ACTIVE' } },
        }),
      );
      const elsewhere = await callApi(
        'CreateTerminationRequestLambdaFunction',
        apiEvent({ contractId: otherContractId, customerId: 'customer-other', body, headers: headersWithKey() }),
      );
      expect([elsewhere.status, elsewhere.body['errorCode']]).toEqual([422, 'DOCUMENT_NOT_AVAILABLE']);
    });

    it("publishes the table's stream, as its deployed mapping filters it, on the deployed bus: TerminationRequestSubmitted", async () => {
      const publisher = fn('PublishRequestEventsLambdaFunction');
      // What the back office receives, through the stack's own rule to its queue.
      const published = backOfficeEvents;
      const batch = await streamBatch(publisher);
      // The stack's signing key is the publisher's, and it signs with it as deployed: moto's
      // CloudFormation made it symmetric, so its Sign and GetPublicKey are answered by an
      // ECC_NIST_P256 key of moto's KMS API under the stack key's id (tests/support/moto-ecc-keys.ts).
      const kid = physicalId('EventSigningKey');
      expect(publisher.environment['EVENT_SIGNING_KEY_ID']).toBe(kid);
      const { result } = await invokeDeployedWithOutput(publisher, batch, { ...moto.env, AWS_ENDPOINT_URL_KMS: eccKeys.endpoint });
      expect(result).toEqual({ batchItemFailures: [] });
      const [event] = await receive(published, 1);
      expect([at(event, 'detail-type'), at(event, 'detail', 'requestId'), at(event, 'detail', 'contractId')]).toEqual([
        'TerminationRequestSubmitted',
        requestId,
        contractId,
      ]);
      // The back office's check, with the document the deploy wrote, fetched as the back office
      // fetches it, and the event as the bus delivered it.
      const document = await keysDocument();
      expect([document.contentType, document.cacheControl]).toEqual(['application/jwk-set+json', 'max-age=300']);
      const received = {
        source: String(at(event, 'source')),
        'detail-type': String(at(event, 'detail-type')),
        detail: jsonObject(at(event, 'detail')),
      };
      expect(verifyEvent(received, document.jwks)).toMatchObject({ ok: true, kid });
      expect(verifyEvent({ ...received, detail: { ...received.detail, customerId: 'customer-other' } }, document.jwks)).toEqual({
        ok: false,
        why: 'the detail is not the one signed',
      });
      // What the previous key signed before the rotation still verifies: its kid is kept for the events' retention.
      const { signature: _signature, ...fields } = received.detail;
      const earlier = await signedDetail(
        { source: received.source, detailType: received['detail-type'], detail: fields },
        kmsSignerFor({ kms: { region: moto.env['AWS_REGION'] ?? '', endpoint: eccKeys.endpoint }, signingKeyId: previousKeyId }),
      );
      expect(verifyEvent({ ...received, detail: earlier }, document.jwks)).toMatchObject({ ok: true, kid: previousKeyId });
      // The deployed publisher checked that record against the deployed table; one with another recipient it refuses, and counts.
      const forged = structuredClone(batch);
      const details = forged.Records[0]?.dynamodb?.NewImage?.['bankDetails']?.M;
      if (details === undefined) throw new Error('The request record has no bankDetails');
      details['recipientName'] = { S: 'Mallory' };
      const refused = await invokeDeployedWithOutput(publisher, forged, moto.env);
      expect(refused.result).toEqual({ batchItemFailures: [] });
      expect(refused.output).toContain('"UnconfirmedRecords":1');
      expect(refused.output).toContain('"why":"other-content"');
    });

    it("maps the erasure ledger's stream to the same deployed publisher, filtered to new erasure entries", async () => {
      const publisher = fn('PublishRequestEventsLambdaFunction');
      const client = { region: moto.env['AWS_REGION'], endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
      const mapping = await new LambdaClient(client).send(
        new GetEventSourceMappingCommand({ UUID: physicalId('ErasureEventsStreamMapping') }),
      );
      expect(mapping.FunctionArn).toContain(`function:${publisher.functionName}`);
      const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: publisher.environment['ERASURE_LEDGER_TABLE_NAME'] }));
      expect(Table?.StreamSpecification).toMatchObject({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
      expect(mapping.EventSourceArn).toBe(Table?.LatestStreamArn);
      expect((mapping.FilterCriteria?.Filters ?? []).map((filter): unknown => JSON.parse(filter.Pattern ?? ''))).toEqual([
        { eventName: ['INSERT'], dynamodb: { NewImage: { kind: { S: ['ERASURE'] } } } },
      ]);
    });

    it("matches a signed decision by the deployed rule, and the deployed consumer checks the back office's signature and applies it: the request is final, the contract free", async () => {
      const consumer = fn('ApplyStatusDecisionLambdaFunction');
      const rule = physicalId('DecisionRule');
      const bus = fn('PublishRequestEventsLambdaFunction').environment['EVENT_BUS_NAME'] ?? '';
      // moto cannot invoke the rule's function: a queue of the test's own takes its place on the deployed rule.
      const { Targets = [] } = await events.send(new ListTargetsByRuleCommand({ Rule: rule, EventBusName: bus }));
      expect(Targets.map((t) => t.Arn)).toEqual([expect.stringContaining(`function:${consumer.functionName}`)]);
      await events.send(new RemoveTargetsCommand({ Rule: rule, EventBusName: bus, Ids: Targets.map((t) => t.Id ?? '') }));
      const routed = await queue('rehearsal-decisions');
      await events.send(new PutTargetsCommand({ Rule: rule, EventBusName: bus, Targets: [{ Id: 'rehearsal', Arn: routed.arn }] }));

      const fields = {
        eventId: `bo-${randomUUID()}`,
        requestId,
        contractId,
        status: 'REJECTED',
        reason: 'The contract is pledged',
        occurredAt: new Date().toISOString(),
      } as const;
      // The consumer trusts the back office's JWKS the stack was deployed with, and no other.
      expect(consumer.environment['DECISION_JWKS_URI']).toBe(backOffice.jwksUri);
      const decisionSource = consumer.environment['DECISION_SOURCE'] ?? '';
      // Signed by the back office's key, as docs/events.md tells the back office to sign.
      const signature = signDecision(fields, { key: backOffice.key }, decisionSource);
      const decision = (source: string) => ({
        EventBusName: bus,
        Source: source,
        DetailType: consumer.environment['DECISION_DETAIL_TYPE'],
        Detail: JSON.stringify({ ...fields, signature }),
      });
      // The rule's pattern passes the back office's decision and nothing in another source's name.
      await events.send(
        new PutEventsCommand({ Entries: [decision('bank.someone-else'), decision(consumer.environment['DECISION_SOURCE'] ?? '')] }),
      );
      const delivered = await receive(routed, 1);
      expect(delivered.map((event) => [at(event, 'source'), at(event, 'detail', 'requestId')])).toEqual([['bank.back-office', requestId]]);
      // moto matched the rule's account but leaves `account` out of what it hands a queue; EventBridge
      // hands the target the whole event, account included, and the consumer reads it.
      const [event] = delivered;
      expect(at(event, 'account')).toBeUndefined();
      // The deployed consumer fetched the back office's JWKS from its deployed DECISION_JWKS_URI and verified the signature.
      expect(await call('ApplyStatusDecisionLambdaFunction', { ...event, account: MOTO_ACCOUNT_ID })).toEqual({ outcome: 'applied' });
      const read = await callApi(
        'GetTerminationRequestLambdaFunction',
        apiEvent({ method: 'GET', contractId, requestId, customerId: CUSTOMER }),
      );
      expect([read.status, read.body['status']]).toEqual([200, 'REJECTED']);
      const again = await callApi(
        'CreateTerminationRequestLambdaFunction',
        apiEvent({ contractId, customerId: CUSTOMER, body: validBody({ documentIds: [] }), headers: headersWithKey() }),
      );
      expect(again.status).toBe(201);
    });
  });

  it(
    "rolls back and removes with docs/deploy.md's commands; removal keeps the requests, the dead letters, the logs of prod, the keys and their published document",
    async () => {
      const serverless = async (...args: string[]) =>
        (
          await promisify(execFile)('npx', ['serverless', ...args, '--stage', STAGE], {
            env: { ...process.env, ...moto.env, SLS_TELEMETRY_DISABLED: '1' },
            timeout: DEPLOY_TIMEOUT_MS,
          })
        ).stdout;
      const timestamps = [...(await serverless('deploy', 'list')).matchAll(/Timestamp: (\d+)/g)].map((match) => match[1] ?? '');
      expect(timestamps).toHaveLength(2);
      await serverless('rollback', '--timestamp', timestamps[0] ?? '');
      expect(await stackStatus(STACK)).toMatch(/^UPDATE_COMPLETE$/);
      const kept = (await stackResources(cloudFormation, STACK)).filter((r) =>
        ['AWS::DynamoDB::Table', 'AWS::SQS::Queue', 'AWS::Logs::LogGroup', 'AWS::KMS::Key'].includes(r.ResourceType ?? ''),
      );
      // The requests table and the erasure ledger, the dead letters, the functions', access and WAF logs, the stage's key and the events' signing key.
      expect(kept).toHaveLength(2 + 2 + 12 + 2);
      const keysBucket = (await stackResources(cloudFormation, STACK)).find(
        (r) => r.LogicalResourceId === 'EventSigningKeysBucket',
      )?.PhysicalResourceId;
      const published = await keysDocument(keysBucket);
      await serverless('remove');
      await expect(stackStatus(STACK)).rejects.toThrow(/does not exist/);
      // The document of the events' public keys stays with its bucket: events already sent still verify.
      expect(await keysDocument(keysBucket)).toEqual(published);
      const client = { region: moto.env['AWS_REGION'], endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
      const logs = new CloudWatchLogsClient(client);
      const kms = new KMSClient(client);
      for (const resource of kept) {
        const name = resource.PhysicalResourceId ?? '';
        if (resource.ResourceType === 'AWS::DynamoDB::Table')
          await expect(dynamodb.send(new DescribeTableCommand({ TableName: name }))).resolves.toBeDefined();
        if (resource.ResourceType === 'AWS::SQS::Queue')
          await expect(sqs.send(new GetQueueAttributesCommand({ QueueUrl: name, AttributeNames: ['QueueArn'] }))).resolves.toBeDefined();
        // The keys stay: the table and, on prod, the queues and logs kept are encrypted with the
        // stage's; the events' signatures are checked with the signing key's public half.
        if (resource.ResourceType === 'AWS::KMS::Key') {
          const { Keys = [] } = await kms.send(new ListKeysCommand({}));
          expect(Keys.map((key) => key.KeyId)).toContain(name);
          if (resource.LogicalResourceId === 'StageKey')
            expect((await kms.send(new GetKeyRotationStatusCommand({ KeyId: name }))).KeyRotationEnabled).toBe(true);
        }
        if (resource.ResourceType === 'AWS::Logs::LogGroup') {
          const { logGroups = [] } = await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: name }));
          expect(logGroups.map((group) => group.logGroupName)).toContain(name);
        }
      }
    },
    3 * DEPLOY_TIMEOUT_MS,
  );
});
