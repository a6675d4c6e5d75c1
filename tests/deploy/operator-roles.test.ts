import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ID, REGION, TemplateResolver, keyArn, queueArn, streamArn, tableArn } from '../support/cfn-intrinsics';
import { keyAccesses, simulate, toProdAccess, type FunctionRole, type ProdAccess } from '../support/iam-check';
import { jsonObject } from '../support/json';
import { templatePackager } from '../support/packaged-template';
import { CustomerData } from '../../lib/dynamodb/customer-data';
import { ERASURE_RULES } from '../../lib/termination/erasure';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { localClient } from '../../scripts/local/dynamodb-local';
import { createLedgerTable } from '../../scripts/local/tables';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf } from '../support/handler';
import { useFreshTables } from '../support/local-tables';
import { callsDuring, installSdkRecorder, type SdkCall } from '../support/sdk-calls';

/*
 * The two roles people work with, simulated on the packaged prod template with
 * @cloud-copilot/iam-simulate (tests/support/iam-check.ts): on-call (OnCallPolicy) reads no
 * personal data of the requests table and the data-protection role (DataProtectionRole) reads and
 * erases it; every `aws dynamodb` command of docs/operations.md is allowed to the role it says it
 * runs as, and on-call's would be refused asking for one more attribute.
 *
 * What the simulation cannot prove: it evaluates the policy against the request context this test
 * writes. That DynamoDB fills `dynamodb:Attributes` with the projection's and the key's names,
 * and `dynamodb:Select` with SPECIFIC_ATTRIBUTES for a projection, is AWS's documented behaviour
 * (fine-grained access control), not something a simulator can show; nor that an attribute named
 * only in a filter or condition expression is outside `dynamodb:Attributes` (AWS does not count
 * it), so a filter on a personal attribute can still test its value. Only a call against a
 * deployed table shows the first (docs/security.md, What only a deployed stack can show). The
 * simulator drops kms:EncryptionContext:* keys: the key's S3 statement is read, not simulated.
 */

const { packageStage, cleanUp } = templatePackager();
let resolver: TemplateResolver;

const TABLE = 'contract-termination-prod-requests';
const REQUESTS = tableArn(TABLE);
const KEY = keyArn('StageKey');

beforeAll(async () => {
  resolver = new TemplateResolver(await packageStage('prod', { CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere' }));
}, 120_000);
afterAll(() => cleanUp());

/** On-call's managed policy, as the one policy of a person's role. */
const onCall = (): FunctionRole => ({
  functionName: 'on-call',
  logicalId: 'OnCallPolicy',
  role: 'on-call',
  environment: {},
  policies: [{ name: 'on-call', document: jsonObject(resolver.property('OnCallPolicy', 'PolicyDocument')) }],
});

/** The data-protection role with its inline policies. */
const dataProtection = (): FunctionRole => ({
  functionName: 'data-protection',
  logicalId: 'DataProtectionRole',
  role: 'contract-termination-prod-data-protection',
  environment: {},
  policies: [resolver.property('DataProtectionRole', 'Policies')].flat().map((policy) => {
    const { PolicyName, PolicyDocument } = jsonObject(policy);
    return { name: String(PolicyName), document: jsonObject(PolicyDocument) };
  }),
});

const access = (action: string, resource: string, context: Record<string, string | string[]> = {}): ProdAccess => ({
  functionName: '',
  operation: action,
  action,
  resource,
  context: { 'aws:PrincipalAccount': ACCOUNT_ID, ...context },
});

/** The verdict on an access, with the key's policy where the resource is the stage's key. */
async function verdict(role: FunctionRole, request: ProdAccess): Promise<string> {
  const keyPolicy = request.resource === KEY ? jsonObject(resolver.property('StageKey', 'KeyPolicy')) : undefined;
  const result = await simulate(role, request, { resourcePolicy: keyPolicy });
  expect(result.ignoredContextKeys, request.action).toEqual([]);
  return result.result;
}

const NO_PERSONAL_DATA = ['requestNumber', 'status', 'createdAt', 'updatedAt', 'statusChangedAt', 'expiresAt'];
const PERSONAL = ['customerId', 'bankDetails', 'comment', 'documentIds', 'statusReason', 'statusHistory', 'idempotencyKey'];
const viaDynamoDb = { 'kms:ViaService': `dynamodb.${REGION}.amazonaws.com`, 'kms:CallerAccount': ACCOUNT_ID };

describe('on-call (OnCallPolicy)', () => {
  it('gets a request item or a number item naming only attributes that hold no personal data', async () => {
    for (const leadingKey of ['CONTRACT#c-1', 'NUMBER#TR-7KQM-X2PF'])
      expect(
        await verdict(
          onCall(),
          access('dynamodb:GetItem', REQUESTS, {
            'dynamodb:Attributes': ['pk', 'sk', ...NO_PERSONAL_DATA],
            'dynamodb:LeadingKeys': [leadingKey],
          }),
        ),
      ).toBe('Allowed');
  });

  it.each(PERSONAL)('is refused a GetItem that also asks for %s', async (attribute) => {
    const context = { 'dynamodb:Attributes': ['pk', 'sk', 'status', attribute], 'dynamodb:LeadingKeys': ['CONTRACT#c-1'] };
    expect(await verdict(onCall(), access('dynamodb:GetItem', REQUESTS, context))).toBe('ImplicitlyDenied');
  });

  it('is refused a GetItem that names no attributes (the whole item), and one of a key record', async () => {
    expect(await verdict(onCall(), access('dynamodb:GetItem', REQUESTS, { 'dynamodb:LeadingKeys': ['CONTRACT#c-1'] }))).toBe(
      'ImplicitlyDenied',
    );
    const keyRecord = { 'dynamodb:Attributes': ['pk', 'sk'], 'dynamodb:LeadingKeys': ['IDEMPOTENCY#customer-anna#k'] };
    expect(await verdict(onCall(), access('dynamodb:GetItem', REQUESTS, keyRecord))).toBe('ImplicitlyDenied');
  });

  it('scans and queries for attributes without personal data, and only with SPECIFIC_ATTRIBUTES', async () => {
    const specific = { 'dynamodb:Attributes': ['requestNumber'], 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' };
    for (const action of ['dynamodb:Scan', 'dynamodb:Query']) {
      expect(await verdict(onCall(), access(action, REQUESTS, specific))).toBe('Allowed');
      expect(await verdict(onCall(), access(action, REQUESTS, { ...specific, 'dynamodb:Select': 'ALL_ATTRIBUTES' }))).toBe(
        'ImplicitlyDenied',
      );
      expect(await verdict(onCall(), access(action, REQUESTS, { 'dynamodb:Select': 'ALL_ATTRIBUTES' }))).toBe('ImplicitlyDenied');
      expect(await verdict(onCall(), access(action, REQUESTS, { ...specific, 'dynamodb:Attributes': ['requestNumber', 'comment'] }))).toBe(
        'ImplicitlyDenied',
      );
    }
  });

  it('queries the index by number for the ids of a request, never the index by customer', async () => {
    const ids = { 'dynamodb:Attributes': ['kind', 'requestId', 'contractId'], 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' };
    expect(await verdict(onCall(), access('dynamodb:Query', `${REQUESTS}/index/RequestsByNumber`, ids))).toBe('Allowed');
    expect(await verdict(onCall(), access('dynamodb:Query', `${REQUESTS}/index/RequestsByCustomer`, ids))).toBe('ImplicitlyDenied');
  });

  it('neither writes nor deletes an item', async () => {
    for (const action of ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'])
      expect(await verdict(onCall(), access(action, REQUESTS, { 'dynamodb:LeadingKeys': ['CONTRACT#c-1'] }))).toBe('ImplicitlyDenied');
  });

  it("never reads the requests table's stream: it hands the publisher a dead letter's stream positions, and the publisher reads them", async () => {
    for (const action of ['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream'])
      expect(await verdict(onCall(), access(action, streamArn(TABLE)))).toBe('ImplicitlyDenied');
    expect(await verdict(onCall(), access('dynamodb:ListStreams', '*'))).toBe('ImplicitlyDenied');
    const publisher = String(resolver.resolve({ 'Fn::GetAtt': ['PublishRequestEventsLambdaFunction', 'Arn'] }));
    const consumer = String(resolver.resolve({ 'Fn::GetAtt': ['ApplyStatusDecisionLambdaFunction', 'Arn'] }));
    expect(await verdict(onCall(), access('lambda:InvokeFunction', publisher))).toBe('Allowed');
    expect(await verdict(onCall(), access('lambda:InvokeFunction', consumer))).toBe('Allowed');
    expect(await verdict(onCall(), access('lambda:InvokeFunction', `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:another`))).toBe(
      'ImplicitlyDenied',
    );
  });

  it('redrives the dead letters and uses the key through DynamoDB and SQS, never through S3 (the audit log)', async () => {
    for (const queue of ['decision-dead-letters', 'publisher-dead-letters'])
      expect(await verdict(onCall(), access('sqs:ReceiveMessage', queueArn(`contract-termination-prod-${queue}`)))).toBe('Allowed');
    expect(await verdict(onCall(), access('kms:Decrypt', KEY, viaDynamoDb))).toBe('Allowed');
    expect(await verdict(onCall(), access('kms:Decrypt', KEY, { ...viaDynamoDb, 'kms:ViaService': `s3.${REGION}.amazonaws.com` }))).toBe(
      'ImplicitlyDenied',
    );
  });
});

describe('the data-protection role (DataProtectionRole)', () => {
  it('gets whole request items, queries the index by customer (not the table), and deletes them', async () => {
    const role = dataProtection();
    expect(await verdict(role, access('dynamodb:GetItem', REQUESTS, { 'dynamodb:LeadingKeys': ['CONTRACT#c-1'] }))).toBe('Allowed');
    expect(await verdict(role, access('dynamodb:Query', `${REQUESTS}/index/RequestsByCustomer`))).toBe('Allowed');
    expect(await verdict(role, access('dynamodb:Query', REQUESTS, { 'dynamodb:Select': 'ALL_ATTRIBUTES' }))).toBe('ImplicitlyDenied');
    expect(await verdict(role, access('dynamodb:DeleteItem', REQUESTS, { 'dynamodb:LeadingKeys': ['CONTRACT#c-1'] }))).toBe('Allowed');
    expect(await verdict(role, access('kms:Decrypt', KEY, viaDynamoDb))).toBe('Allowed');
  });

  it('reads the audit trail under the key through S3', async () => {
    const role = dataProtection();
    const bucket = String(resolver.resolve({ 'Fn::GetAtt': ['AuditLogBucket', 'Arn'] }));
    expect(await verdict(role, access('s3:GetObject', `${bucket}/AWSLogs/${ACCOUNT_ID}/x.json.gz`))).toBe('Allowed');
    const viaS3 = { ...viaDynamoDb, 'kms:ViaService': `s3.${REGION}.amazonaws.com` };
    // Its own policy allows the key's use through S3; the key's policy, through S3, only for the
    // trail's files, by their encryption context, a key the simulator does not evaluate (it drops
    // kms:EncryptionContext:*): read from the template instead.
    const own = role.policies.flatMap((policy) => [policy.document['Statement']].flat().map(jsonObject));
    expect(own.find((statement) => statement['Sid'] === 'ReadUnderTheKey')?.['Condition']).toEqual({
      StringEquals: { 'kms:ViaService': [`dynamodb.${REGION}.amazonaws.com`, `s3.${REGION}.amazonaws.com`] },
    });
    expect(await verdict(role, access('kms:Decrypt', KEY, viaS3))).toBe('ImplicitlyDenied');
    const statements = [jsonObject(resolver.property('StageKey', 'KeyPolicy'))['Statement']].flat().map(jsonObject);
    const throughS3 = statements.find((statement) => statement['Sid'] === 'PrincipalsOfTheAccountReadTheAuditLogThroughS3');
    expect(throughS3?.['Action']).toBe('kms:Decrypt');
    expect(jsonObject(jsonObject(throughS3?.['Condition'])['StringEquals'])).toEqual({
      'kms:CallerAccount': ACCOUNT_ID,
      'kms:ViaService': `s3.${REGION}.amazonaws.com`,
      'kms:EncryptionContext:aws:cloudtrail:arn': `arn:aws:cloudtrail:${REGION}:${ACCOUNT_ID}:trail/contract-termination-prod-requests-audit`,
    });
  });

  it('neither scans the table, nor puts or updates an item without a key it may, nor reads the stream, the dead letters or another table', async () => {
    const role = dataProtection();
    for (const action of ['dynamodb:Scan', 'dynamodb:PutItem', 'dynamodb:UpdateItem'])
      expect(await verdict(role, access(action, REQUESTS))).toBe('ImplicitlyDenied');
    expect(await verdict(role, access('dynamodb:GetRecords', streamArn(TABLE)))).toBe('ImplicitlyDenied');
    expect(await verdict(role, access('sqs:ReceiveMessage', queueArn('contract-termination-prod-decision-dead-letters')))).toBe(
      'ImplicitlyDenied',
    );
    expect(await verdict(role, access('dynamodb:GetItem', tableArn('contracts-owned-elsewhere')))).toBe('ImplicitlyDenied');
    expect(await verdict(role, access('lambda:InvokeFunction', `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:x`))).toBe(
      'ImplicitlyDenied',
    );
  });

  it('is assumed only with MFA, by principals of this account', () => {
    const trust = jsonObject(resolver.property('DataProtectionRole', 'AssumeRolePolicyDocument'));
    expect(trust['Statement']).toEqual([
      {
        Effect: 'Allow',
        Principal: { AWS: `arn:aws:iam::${ACCOUNT_ID}:root` },
        Action: 'sts:AssumeRole',
        Condition: { Bool: { 'aws:MultiFactorAuthPresent': 'true' } },
      },
    ]);
  });
});

/** An `aws dynamodb` command of the runbook, with the role it says it runs as. */
interface RunbookCommand {
  role: 'on-call' | 'the data-protection role';
  operation: string;
  options: Map<string, string>;
  text: string;
}

/** Every `aws dynamodb` command of docs/operations.md's shell blocks, each under the last `# as <role>` line before it. */
function runbookCommands(): RunbookCommand[] {
  const blocks = [...readFileSync('docs/operations.md', 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  return blocks.flatMap((block) => {
    let role: RunbookCommand['role'] | undefined;
    const commands: RunbookCommand[] = [];
    for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
      const said = /^# as (on-call|the data-protection role)$/.exec(line.trim())?.[1];
      if (said === 'on-call' || said === 'the data-protection role') role = said;
      const command = /^aws dynamodb ([a-z-]+) (.*)$/.exec(line.replace(/\s+#.*$/, '').trim());
      if (command === null) continue;
      if (role === undefined) throw new Error(`docs/operations.md runs "${line.slice(0, 60)}" without saying as whom (# as on-call)`);
      const options = new Map(
        [...(command[2] ?? '').matchAll(/--([a-z-]+)(?: ('[^']*'|[^\s-][^\s]*))?/g)].map((m) => [
          m[1] ?? '',
          (m[2] ?? '').replace(/^'|'$/g, ''),
        ]),
      );
      commands.push({ role, operation: command[1] ?? '', options, text: line.trim() });
    }
    return commands;
  });
}

const ACTIONS: Record<string, string> = { 'get-item': 'GetItem', scan: 'Scan', query: 'Query', 'delete-item': 'DeleteItem' };

/** What IAM sees of a command: its action and the condition keys DynamoDB fills from it (see the head of this file). */
function accessOf(command: RunbookCommand): ProdAccess {
  const names = jsonObject(JSON.parse(command.options.get('expression-attribute-names') ?? '{}'));
  const projection = command.options.get('projection-expression');
  const nameOf = (written: string): string => {
    const named = names[written];
    return typeof named === 'string' ? named : written;
  };
  const attributes = projection === undefined ? [] : projection.split(',').map((name) => nameOf(name.trim()));
  const key = command.options.get('key');
  const keyNames = key === undefined ? [] : Object.keys(jsonObject(JSON.parse(key)));
  const leadingKey = key === undefined ? undefined : String(jsonObject(jsonObject(JSON.parse(key))['pk'])['S']);
  const select = command.options.get('select');
  const index = command.options.get('index-name');
  const resource = index === undefined ? tableArn(TABLE) : `${tableArn(TABLE)}/index/${index}`;
  return access(`dynamodb:${ACTIONS[command.operation] ?? command.operation}`, resource, {
    ...(attributes.length > 0 ? { 'dynamodb:Attributes': [...keyNames, ...attributes] } : {}),
    ...(leadingKey === undefined ? {} : { 'dynamodb:LeadingKeys': [leadingKey] }),
    ...(select === undefined ? {} : { 'dynamodb:Select': select }),
  });
}

describe("docs/operations.md's DynamoDB commands", () => {
  it('each runs as the role it says it runs as, and on-call names only attributes without personal data', async () => {
    const commands = runbookCommands();
    expect(commands.filter((command) => command.role === 'on-call').length).toBeGreaterThanOrEqual(3);
    // The erasure itself is npm run erase (tests/integration/erasure.test.ts); the limit record's delete stays a command.
    expect(commands.filter((command) => command.role === 'the data-protection role').length).toBeGreaterThanOrEqual(1);
    for (const command of commands) {
      expect(command.options.get('table-name'), command.text).toBe('contract-termination-<stage>-requests');
      const role = command.role === 'on-call' ? onCall() : dataProtection();
      expect([command.text, await verdict(role, accessOf(command))]).toEqual([command.text, 'Allowed']);
      if (command.role !== 'on-call') continue;
      // The same command asking for one personal attribute more is refused.
      const greedy = accessOf(command);
      const attributes = greedy.context['dynamodb:Attributes'];
      expect(Array.isArray(attributes), command.text).toBe(true);
      greedy.context['dynamodb:Attributes'] = [...(Array.isArray(attributes) ? attributes : []), 'bankDetails'];
      expect([command.text, await verdict(onCall(), greedy)]).toEqual([command.text, 'ImplicitlyDenied']);
    }
  });
});

describe('npm run subject-access and npm run erase, every call they make', () => {
  /** Each access the commands made (recorded on DynamoDB Local), on the prod resource, with the key's uses it brings. */
  let accesses: ProdAccess[];
  let operations: string[];

  beforeAll(async () => {
    const tables = await useFreshTables();
    const ledger = `erasures-${randomUUID().slice(0, 8)}`;
    await createLedgerTable(localClient(tables.endpoint), ledger);
    const anna = DEMO_CUSTOMERS.anna;
    // A withdrawn request (final, with a create key and a withdrawal key) and an active one, on two contracts.
    const made = [];
    for (const contractId of [await newContract(tables), await newContract(tables)]) {
      const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
      expect(answer.status).toBe(201);
      made.push({ contractId, requestId: String(answer.body['requestId']) });
    }
    const [withdrawn] = made;
    if (withdrawn === undefined) throw new Error('No request made');
    expect((await callHandler(withdrawalOf(withdrawn, anna.customerId))).status).toBe(200);
    const before = await tables.contractItems(withdrawn.contractId);

    const data = new CustomerData(tables.doc, { requests: tables.names.requests, ledger }, ERASURE_RULES);
    const uninstall = installSdkRecorder();
    let calls: SdkCall[];
    try {
      const since = new Date(Date.now() - 60_000);
      const recorded = (run: () => Promise<unknown>) => callsDuring('data-protection', run).then((done) => done.calls);
      const access = await recorded(async () => expect((await data.subjectAccess(anna.customerId)).requests).toHaveLength(2));
      const erasure = await recorded(async () =>
        expect((await data.erase(anna.customerId, { ledgerDays: 90 })).erased.map((e) => e.requestId)).toEqual([
          withdrawn.requestId,
          undefined,
        ]),
      );
      // A restore brings the erased items back (not recorded: the officer does not put them); the reapply erases them again.
      for (const restored of before) await tables.doc.send(new PutCommand({ TableName: tables.names.requests, Item: restored }));
      const reapply = await recorded(async () => expect((await data.reapplySince(since)).erasedAgain.length).toBeGreaterThanOrEqual(4));
      calls = [...access, ...erasure, ...reapply];
    } finally {
      uninstall();
    }
    const prod = {
      functionName: 'data-protection',
      logicalId: 'DataProtectionRole',
      role: 'contract-termination-prod-data-protection',
      environment: { REQUESTS: TABLE, LEDGER: 'contract-termination-prod-erasures' },
      policies: [],
    };
    const local = { REQUESTS: tables.names.requests, LEDGER: ledger };
    operations = [...new Set(calls.map((call) => call.operation))].sort();
    accesses = calls.flatMap((call) => call.accesses.map((recorded) => toProdAccess(resolver, prod, local, call, recorded)));
    accesses.push(...accesses.flatMap((access) => keyAccesses(resolver, access)));
  }, 60_000);

  it('reads through the index and by key, erases in transactions, empties key records and keeps the ledger: no scan', () => {
    expect(operations).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:TransactWriteItems',
      'dynamodb:UpdateItem',
    ]);
    expect(new Set(accesses.map((access) => `${access.action} ${access.resource.replace(/.*:/, '')}`))).toEqual(
      new Set([
        'dynamodb:Query table/contract-termination-prod-requests/index/RequestsByCustomer',
        'dynamodb:BatchGetItem table/contract-termination-prod-requests',
        'dynamodb:GetItem table/contract-termination-prod-requests',
        'dynamodb:DeleteItem table/contract-termination-prod-requests',
        'dynamodb:UpdateItem table/contract-termination-prod-requests',
        'dynamodb:PutItem table/contract-termination-prod-erasures',
        'dynamodb:Query table/contract-termination-prod-erasures',
        `kms:Decrypt ${KEY.replace(/.*:/, '')}`,
      ]),
    );
  });

  it('every one of them is allowed to the data-protection role', async () => {
    for (const request of accesses)
      expect([request.action, request.resource, request.context, await verdict(dataProtection(), request)]).toEqual([
        request.action,
        request.resource,
        request.context,
        'Allowed',
      ]);
  });

  it('every one of them is refused to on-call: each reads or writes a whole item, a customer-keyed record or the ledger', async () => {
    for (const request of accesses.filter((a) => a.action.startsWith('dynamodb:')))
      expect([request.action, request.resource, await verdict(onCall(), request)]).toEqual([
        request.action,
        request.resource,
        'ImplicitlyDenied',
      ]);
  });

  it('the role deletes only request, number and limit items, and empties only key records', async () => {
    const role = dataProtection();
    expect(await verdict(role, access('dynamodb:DeleteItem', REQUESTS, { 'dynamodb:LeadingKeys': ['IDEMPOTENCY#anna#k'] }))).toBe(
      'ImplicitlyDenied',
    );
    expect(await verdict(role, access('dynamodb:UpdateItem', REQUESTS, { 'dynamodb:LeadingKeys': ['CONTRACT#c-1'] }))).toBe(
      'ImplicitlyDenied',
    );
    expect(await verdict(role, access('dynamodb:DeleteItem', tableArn('contract-termination-prod-erasures')))).toBe('ImplicitlyDenied');
  });
});
