import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEYS_PER_READ } from '../../lib/dynamodb/request-reads';
import { UNCONFIRMED_RECORDS_METRIC } from '../../lib/events/publish-request-events';
import { EVENT_SIGNING_KEYS_OBJECT_KEY, EVENT_SIGNING_KEYS_PATH } from '../../lib/events/event-signing-keys';
import { OUTCOMES } from '../../lib/http/outcomes';
import { LEGAL_MINIMUM_YEARS } from '../../lib/termination/retention';
import { TemplateResolver } from '../support/cfn-intrinsics';
import { at, jsonObject } from '../support/json';
import { stageParams } from '../support/serverless-yml';
import { BACK_OFFICE_JWKS_PATH, LOCAL_BACK_OFFICE_KEY } from '../../scripts/local/decision-event';
import {
  ofType,
  PACKAGED_BACK_OFFICE_EVENTS_TARGET_ARN,
  PACKAGED_DECISION_JWKS_URI,
  parameterDefault,
  resource,
  templatePackager,
  type Json,
} from '../support/packaged-template';

/*
 * Reads the CloudFormation that `serverless package` makes for prod and dev (offline, no AWS
 * credentials) and checks what production depends on, so a later change cannot drop it unseen.
 */

const { packageStage, cleanUp } = templatePackager();

let prod: Json;
let dev: Json;
let traced: Json;

beforeAll(async () => {
  // One after the other: two packagings at once share the framework's working files.
  prod = await packageStage('prod', { CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere' });
  dev = await packageStage('dev', {
    THROTTLE_RATE_LIMIT: '7',
    THROTTLE_BURST_LIMIT: '9',
    ALLOWED_ORIGINS: 'https://lk.bank.example,https://m.bank.example',
  });
  traced = await packageStage('dev', { TRACING: 'true' });
}, 300_000);

afterAll(() => cleanUp());

describe('the API', () => {
  it('has the seven routes, each behind the Lambda authorizer, proxied to its own function', () => {
    const methods = ofType(prod, 'AWS::ApiGateway::Method').map(([, method]) => ({
      method: at(method, 'Properties', 'HttpMethod'),
      authorization: at(method, 'Properties', 'AuthorizationType'),
      integration: at(method, 'Properties', 'Integration', 'Type'),
    }));
    expect(methods.map((m) => m.method).sort()).toEqual(['GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'POST']);
    for (const m of methods) expect(m).toMatchObject({ authorization: 'CUSTOM', integration: 'AWS_PROXY' });
  });

  it('caches the authorizer answer on the Authorization header', () => {
    const [[, authorizer] = []] = ofType(prod, 'AWS::ApiGateway::Authorizer');
    expect(at(authorizer, 'Properties', 'Type')).toBe('REQUEST');
    expect(at(authorizer, 'Properties', 'IdentitySource')).toBe('method.request.header.Authorization');
    expect(Number(at(authorizer, 'Properties', 'AuthorizerResultTtlInSeconds'))).toBe(60);
  });

  it("tells the authorizer the cache TTL API Gateway really uses, so no cached Allow outlives a token's exp", () => {
    const [[, authorizer] = []] = ofType(prod, 'AWS::ApiGateway::Authorizer');
    const variables = at(resource(prod, 'AuthorizeCustomerLambdaFunction'), 'Properties', 'Environment', 'Variables');
    expect(String(at(variables, 'AUTHORIZER_CACHE_TTL_SECONDS'))).toBe(
      String(at(authorizer, 'Properties', 'AuthorizerResultTtlInSeconds')),
    );
    expect(at(variables, 'JWT_CLOCK_SKEW_SECONDS')).toBe('30');
  });

  it.each([
    ['UNAUTHORIZED', '401'],
    ['ACCESS_DENIED', '403'],
    ['MISSING_AUTHENTICATION_TOKEN', '404'],
    ['RESOURCE_NOT_FOUND', '404'],
    ['DEFAULT_4XX', undefined],
    ['DEFAULT_5XX', undefined],
    ['AUTHORIZER_FAILURE', '503'],
    ['AUTHORIZER_CONFIGURATION_ERROR', '503'],
  ])('answers %s (status %s) as an error body with the correlation id', (type, status) => {
    const response = ofType(prod, 'AWS::ApiGateway::GatewayResponse').find(([, r]) => at(r, 'Properties', 'ResponseType') === type)?.[1];
    expect(at(response, 'Properties', 'StatusCode')).toBe(status);
    const template = String(at(response, 'Properties', 'ResponseTemplates', 'application/json'));
    for (const field of ['"errorCode"', '"message"', '"correlationId":"$context.requestId"', '"details"'])
      expect(template).toContain(field);
    // The gateway's request id in the header too, always there and the same as the body's (0011-error-body.md).
    expect(at(response, 'Properties', 'ResponseParameters', 'gatewayresponse.header.X-Correlation-Id')).toBe('context.requestId');
    expect(at(response, 'Properties', 'ResponseParameters', 'gatewayresponse.header.X-Content-Type-Options')).toBe("'nosniff'");
  });

  it('throttles the stage, declared as a resource of its own, with the configured rate and burst', () => {
    const settingsOf = (template: Json) => at(resource(template, 'ApiGatewayStage'), 'Properties', 'MethodSettings', 0);
    expect(settingsOf(prod)).toEqual({
      HttpMethod: '*',
      ResourcePath: '/*',
      ThrottlingRateLimit: 50,
      ThrottlingBurstLimit: 100,
      MetricsEnabled: true,
    });
    expect(settingsOf(dev)).toMatchObject({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 });
    const [[deploymentId, deployment] = []] = ofType(prod, 'AWS::ApiGateway::Deployment');
    expect(at(resource(prod, 'ApiGatewayStage'), 'Properties')).toMatchObject({
      StageName: 'prod',
      DeploymentId: { Ref: deploymentId },
      RestApiId: { Ref: 'ApiGatewayRestApi' },
    });
    // A StageName or StageDescription on the deployment would clash with the stage from the second deploy on.
    expect(Object.keys(jsonObject(at(deployment, 'Properties')))).toEqual(['RestApiId']);
  });

  it('deploys the gateway responses with the API: the deployment depends on each of them', () => {
    const dependsOn = at(ofType(prod, 'AWS::ApiGateway::Deployment')[0]?.[1], 'DependsOn');
    const responses = ofType(prod, 'AWS::ApiGateway::GatewayResponse').map(([id]) => id);
    expect(responses).toHaveLength(13);
    expect(dependsOn).toEqual(expect.arrayContaining(responses));
  });
});

describe('the functions', () => {
  it('run nodejs22.x on arm64 from their own bundle, with their own role', () => {
    const functions = ofType(prod, 'AWS::Lambda::Function');
    expect(functions.map(([name]) => name).sort()).toEqual([
      'ApplyStatusDecisionLambdaFunction',
      'AuthorizeCustomerLambdaFunction',
      'CreateTerminationRequestLambdaFunction',
      'GetTerminationRequestDetailsLambdaFunction',
      'GetTerminationRequestLambdaFunction',
      'ListCustomerTerminationRequestsLambdaFunction',
      'ListTerminationReasonsLambdaFunction',
      'ListTerminationRequestsLambdaFunction',
      'PublishRequestEventsLambdaFunction',
      'WithdrawTerminationRequestLambdaFunction',
    ]);
    for (const [, fn] of functions) {
      expect(at(fn, 'Properties', 'Runtime')).toBe('nodejs22.x');
      expect(at(fn, 'Properties', 'Architectures')).toEqual(['arm64']);
      expect(String(at(fn, 'Properties', 'Handler'))).toMatch(/^\.build\/[a-z-]+\/index\.handler$/);
    }
    expect(at(resource(prod, 'CreateTerminationRequestLambdaFunction'), 'Properties', 'Role')).toEqual({
      'Fn::GetAtt': ['CreateTerminationRequestRole', 'Arn'],
    });
    expect(at(resource(prod, 'AuthorizeCustomerLambdaFunction'), 'Properties', 'Role')).toEqual({
      'Fn::GetAtt': ['AuthorizerRole', 'Arn'],
    });
  });

  it("keep their logs, the API access log and the WAF's log, for a set time (90 days on prod)", () => {
    const groups = ofType(prod, 'AWS::Logs::LogGroup');
    expect(groups).toHaveLength(12);
    for (const [, group] of groups) expect(Number(at(group, 'Properties', 'RetentionInDays'))).toBe(90);
    for (const [, group] of ofType(dev, 'AWS::Logs::LogGroup')) expect(Number(at(group, 'Properties', 'RetentionInDays'))).toBe(30);
  });
});

/** Every statement of a role, with what it allows, but its use of the stage's key (checked in 'the stage's key'). */
function statements(template: Json, role: string): { actions: string[]; resource: unknown }[] {
  const policies = at(resource(template, role), 'Properties', 'Policies');
  if (!Array.isArray(policies)) return [];
  return policies
    .filter((policy: unknown) => at(policy, 'PolicyName') !== 'stage-key')
    .flatMap((policy: unknown) => {
      // Policies behind Fn::If (tracing) are checked separately.
      const list = at(policy, 'PolicyDocument', 'Statement');
      return Array.isArray(list)
        ? list.map((s: unknown) => ({ actions: [at(s, 'Action')].flat().map(String).sort(), resource: at(s, 'Resource') }))
        : [];
    });
}

describe('least privilege', () => {
  it('lets the create function put, update and get on its table, check and get on the contracts table, only check the documents table, and write its own logs: nothing else', () => {
    const allowed = statements(prod, 'CreateTerminationRequestRole');
    expect(allowed.map((s) => s.actions)).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      ['dynamodb:ConditionCheckItem', 'dynamodb:GetItem'],
      ['dynamodb:ConditionCheckItem'],
    ]);
    expect(JSON.stringify(allowed[0]?.resource)).toContain('log-group:/aws/lambda/contract-termination-prod-createTerminationRequest:*');
    expect(JSON.stringify(allowed[1]?.resource)).toContain('table/contract-termination-prod-requests');
    expect(JSON.stringify(allowed[2]?.resource)).toContain('table/contracts-owned-elsewhere');
    expect(JSON.stringify(allowed[3]?.resource)).toContain('table/documents-owned-elsewhere');
    for (const s of allowed) expect(JSON.stringify(s.resource)).not.toMatch(/"\*"|table\/\*/);
  });

  it('lets the withdrawal put, update, delete and get on its table and get the contracts table: nothing else', () => {
    const allowed = statements(prod, 'WithdrawTerminationRequestRole');
    expect(allowed.map((s) => s.actions)).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      ['dynamodb:GetItem'],
    ]);
    expect(JSON.stringify(allowed[0]?.resource)).toContain('log-group:/aws/lambda/contract-termination-prod-withdrawTerminationRequest:*');
    expect(JSON.stringify(allowed[1]?.resource)).toContain('table/contract-termination-prod-requests');
    expect(JSON.stringify(allowed[2]?.resource)).toContain('table/contracts-owned-elsewhere');
    const method = ofType(prod, 'AWS::ApiGateway::Method').find(([name]) => /Withdrawal.*Post/i.test(name));
    expect(at(method?.[1], 'Properties', 'AuthorizationType')).toBe('CUSTOM');
  });

  it('lets the reasons dictionary write its own logs and nothing else', () => {
    expect(statements(prod, 'ListTerminationReasonsRole').map((s) => s.actions)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents']]);
  });

  it('lets the reads get or query the requests table (the list only queries it, its limit record in the same Query) and get the contracts table: nothing else', () => {
    const get = statements(prod, 'GetTerminationRequestRole');
    expect(get.map((x) => x.actions)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents'], ['dynamodb:GetItem']]);
    expect(JSON.stringify(get[1]?.resource)).toMatch(/table\/contract-termination-prod-requests.*table\/contracts-owned-elsewhere/);
    const list = statements(prod, 'ListTerminationRequestsRole');
    expect(list.map((x) => x.actions)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents'], ['dynamodb:Query'], ['dynamodb:GetItem']]);
    expect(JSON.stringify(list[1]?.resource)).toContain('table/contract-termination-prod-requests');
    expect(JSON.stringify(list[2]?.resource)).toContain('table/contracts-owned-elsewhere');
    for (const x of [...get, ...list]) expect(JSON.stringify(x.resource)).not.toMatch(/"\*"|table\/\*/);
  });

  it("lets the details get the request and the contract, and the customer's list query the index by customer alone", () => {
    const details = statements(prod, 'GetTerminationRequestDetailsRole');
    expect(details.map((x) => x.actions)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents'], ['dynamodb:GetItem']]);
    expect(JSON.stringify(details[1]?.resource)).toMatch(/table\/contract-termination-prod-requests.*table\/contracts-owned-elsewhere/);
    const mine = statements(prod, 'ListCustomerTerminationRequestsRole');
    expect(mine.map((x) => x.actions)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents'], ['dynamodb:Query']]);
    // The index only: a Query of the table itself, or of any other index, is refused.
    expect(JSON.stringify(mine[1]?.resource)).toMatch(/table\/contract-termination-prod-requests\/index\/RequestsByCustomer"/);
  });

  it('lets the decision consumer update, delete and get on the requests table and send to its dead-letter queue: nothing else', () => {
    const allowed = statements(prod, 'ApplyStatusDecisionRole');
    expect(allowed.map((s) => s.actions)).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      ['sqs:SendMessage'],
    ]);
    expect(JSON.stringify(allowed[0]?.resource)).toContain('applyStatusDecision:*');
    expect(JSON.stringify(allowed[1]?.resource)).toContain('table/contract-termination-prod-requests');
    expect(JSON.stringify(allowed[1]?.resource)).not.toContain('contracts-owned-elsewhere');
    expect(allowed[2]?.resource).toEqual({ 'Fn::GetAtt': ['DecisionDeadLetterQueue', 'Arn'] });
    // Only items of contracts' partitions (requests and slots): never a key's or a number's.
    const conditions = at(
      resource(prod, 'ApplyStatusDecisionRole'),
      'Properties',
      'Policies',
      1,
      'PolicyDocument',
      'Statement',
      0,
      'Condition',
    );
    expect(conditions).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CONTRACT#*'] } });
  });

  it('lets the publisher read only its streams, request items and ledger entries, put events only on its bus, and send only to its dead-letter queue', () => {
    const allowed = statements(prod, 'PublishRequestEventsRole');
    expect(allowed.map((s) => s.actions)).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
      ['dynamodb:ListStreams'],
      ['dynamodb:BatchGetItem'],
      ['dynamodb:GetItem'],
      ['events:PutEvents'],
      ['sqs:SendMessage'],
    ]);
    // The requests table's stream and the erasure ledger's: the two the publisher's mappings read.
    expect(allowed[1]?.resource).toEqual([
      { 'Fn::GetAtt': ['RequestsTable', 'StreamArn'] },
      { 'Fn::GetAtt': ['ErasureLedgerTable', 'StreamArn'] },
    ]);
    // ListStreams has no resource-level permission: it names streams, it reads none.
    expect(allowed[2]?.resource).toBe('*');
    // It confirms each event against the request item: reads of contracts' partitions only, never a key's or a number's.
    expect(JSON.stringify(allowed[3]?.resource)).toContain('table/contract-termination-prod-requests');
    expect(JSON.stringify(allowed[3]?.resource)).not.toContain('contracts-owned-elsewhere');
    /** The condition of the publisher's statement at `position` of its service policy. */
    const publisherCondition = (position: number) =>
      at(resource(prod, 'PublishRequestEventsRole'), 'Properties', 'Policies', 1, 'PolicyDocument', 'Statement', position, 'Condition');
    const confirm = publisherCondition(2);
    expect(confirm).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CONTRACT#*'] } });
    // It reads an erasure's ledger entry back by its key before its event goes out: GetItem on the ledger, nothing else there.
    expect(allowed[4]?.resource).toEqual({ 'Fn::GetAtt': ['ErasureLedgerTable', 'Arn'] });
    expect(JSON.stringify(allowed[5]?.resource)).toContain('event-bus/contract-termination-prod-events');
    // It may put its own source only: never a decision in the back office's name.
    const putEvents = publisherCondition(4);
    // events:source holds one value per entry of the call: every one must be ours, and there must be one.
    expect(putEvents).toEqual({
      'ForAllValues:StringEquals': { 'events:source': ['bank.contract-termination'] },
      Null: { 'events:source': 'false' },
    });
    expect(allowed[6]?.resource).toEqual({ 'Fn::GetAtt': ['PublisherDeadLetterQueue', 'Arn'] });
    expect(JSON.stringify(allowed)).not.toMatch(/dynamodb:(PutItem|UpdateItem|DeleteItem|Query|Scan)/);
    expect(allowed.filter((s) => s.actions.includes('dynamodb:GetItem'))).toHaveLength(1);
  });

  it('lets the authorizer write its own logs and nothing else', () => {
    const allowed = statements(prod, 'AuthorizerRole');
    expect(allowed.map((s) => s.actions)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents']]);
    expect(JSON.stringify(allowed[0]?.resource)).toContain('authorizeCustomer:*');
  });

  it('gives each role a trust policy and inline policies only: no managed policies', () => {
    for (const role of [
      'CreateTerminationRequestRole',
      'AuthorizerRole',
      'GetTerminationRequestRole',
      'ListTerminationRequestsRole',
      'GetTerminationRequestDetailsRole',
      'ListCustomerTerminationRequestsRole',
      'ApplyStatusDecisionRole',
      'PublishRequestEventsRole',
      'WithdrawTerminationRequestRole',
      'ListTerminationReasonsRole',
    ]) {
      expect(Object.keys(jsonObject(at(resource(prod, role), 'Properties'))).sort()).toEqual(['AssumeRolePolicyDocument', 'Policies']);
      expect(at(resource(prod, role), 'Properties', 'AssumeRolePolicyDocument', 'Statement')).toEqual([
        {
          Effect: 'Allow',
          Principal: { Service: 'lambda.amazonaws.com' },
          Action: 'sts:AssumeRole',
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ]);
    }
  });

  it("grants X-Ray, and only the two X-Ray actions, to every function's role exactly when tracing is switched on", () => {
    const roles = ofType(prod, 'AWS::Lambda::Function').map(([, fn]) => String(at(fn, 'Properties', 'Role', 'Fn::GetAtt', 0)));
    expect(new Set(roles).size).toBe(10);
    // One policy, attached to every function's role, made only when traced (docs/deploy.md: no Fn::If in a role's list).
    const traces = resource(prod, 'WriteTracesPolicy');
    expect(at(traces, 'Condition')).toBe('TracingEnabled');
    expect(at(traces, 'Properties', 'PolicyDocument', 'Statement')).toEqual([
      { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
    ]);
    expect(at(traces, 'Properties', 'Roles')).toEqual(roles.map((role) => ({ Ref: role })));
    for (const role of roles) expect(JSON.stringify(resource(prod, role))).not.toContain('xray');
    expect(at(prod, 'Conditions', 'TracingEnabled')).toEqual({ 'Fn::Equals': [{ Ref: 'TracingSetting' }, 'true'] });
    expect([parameterDefault(prod, 'TracingSetting'), parameterDefault(traced, 'TracingSetting')]).toEqual(['false', 'true']);
    // Traced, a function is made only once its role may write traces.
    for (const [, fn] of ofType(traced, 'AWS::Lambda::Function')) expect(at(fn, 'DependsOn')).toContain('WriteTracesPolicy');
    for (const [, fn] of ofType(prod, 'AWS::Lambda::Function')) expect(JSON.stringify(fn)).not.toContain('WriteTracesPolicy');
  });

  it('switches X-Ray on for the functions and the stage with TRACING=true, and off without', () => {
    for (const [, fn] of ofType(traced, 'AWS::Lambda::Function')) expect(at(fn, 'Properties', 'TracingConfig')).toEqual({ Mode: 'Active' });
    for (const [, fn] of ofType(prod, 'AWS::Lambda::Function')) expect(at(fn, 'Properties', 'TracingConfig')).toBeUndefined();
    expect(at(resource(traced, 'ApiGatewayStage'), 'Properties', 'TracingEnabled')).toBe(true);
    expect(at(resource(prod, 'ApiGatewayStage'), 'Properties', 'TracingEnabled')).toBe(false);
  });
});

/** How the template names the stage's key wherever it is used. */
const STAGE_KEY = { 'Fn::GetAtt': ['StageKey', 'Arn'] };

/** The statements of the stage's key's policy; one made only with the stack's own audit trail (Fn::If OwnAuditTrail) as it then is. */
const keyStatements = (template: Json): unknown[] => {
  const list = at(resource(template, 'StageKey'), 'Properties', 'KeyPolicy', 'Statement');
  return (Array.isArray(list) ? list : []).map((statement: unknown) => {
    const made = at(statement, 'Fn::If');
    return Array.isArray(made) && made[0] === 'OwnAuditTrail' ? made[1] : statement;
  });
};

/** The statements of a role's policy for its use of the stage's key. */
const keyUse = (template: Json, role: string): unknown => {
  const policies = at(resource(template, role), 'Properties', 'Policies');
  const found = Array.isArray(policies) ? policies.find((policy: unknown) => at(policy, 'PolicyName') === 'stage-key') : undefined;
  return at(found, 'PolicyDocument', 'Statement');
};

/** The logical ids a value names through Ref, Fn::GetAtt or a ${Name} of Fn::Sub (parameters and pseudo parameters included). */
function referencedIds(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => referencedIds(item, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.add(inner);
      else if (key === 'Fn::GetAtt') found.add(String(Array.isArray(inner) ? inner[0] : String(inner).split('.')[0]));
      else if (key === 'Fn::Sub') {
        const text = String(Array.isArray(inner) ? inner[0] : inner);
        for (const [, name = ''] of text.matchAll(/\$\{([^}!.]+)[^}]*\}/g)) found.add(name);
        if (Array.isArray(inner)) referencedIds(inner[1], found);
      } else referencedIds(inner, found);
    }
  }
  return found;
}

/** The resources each resource waits for: those it references, and its DependsOn. */
function dependencies(template: Json): Map<string, string[]> {
  const all = jsonObject(template['Resources']);
  return new Map(
    Object.entries(all).map(([id, r]) => [
      id,
      [...new Set([...referencedIds(at(r, 'Properties')), ...[at(r, 'DependsOn') ?? []].flat().map(String)])].filter((d) => d in all),
    ]),
  );
}

/** A cycle among the resources, as the ids along it, or undefined: CloudFormation refuses a template with one. */
function cycleIn(template: Json): string[] | undefined {
  const graph = dependencies(template);
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string, path: string[]): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'open') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'open');
    for (const next of graph.get(id) ?? []) {
      const cycle = visit(next, [...path, id]);
      if (cycle !== undefined) return cycle;
    }
    state.set(id, 'done');
    return undefined;
  };
  for (const id of graph.keys()) {
    const cycle = visit(id, []);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

describe("the events' signing key", () => {
  /** The statements of the signing key's policy. */
  const statements = (template: Json): unknown[] => {
    const list = at(resource(template, 'EventSigningKey'), 'Properties', 'KeyPolicy', 'Statement');
    return Array.isArray(list) ? list : [];
  };
  const actionsOf = (statement: unknown): string[] => [at(statement, 'Action') ?? []].flat().map(String);

  it('is asymmetric, ECC_NIST_P256 for signing (moto makes every key symmetric: this is where the spec is checked), kept when the stack goes', () => {
    for (const [template, stage] of [
      [prod, 'prod'],
      [dev, 'dev'],
    ] as const) {
      expect(resource(template, 'EventSigningKey')).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' },
      });
      expect(at(resource(template, 'EventSigningKey'), 'Properties', 'EnableKeyRotation')).toBeUndefined();
      expect(at(resource(template, 'EventSigningKeyAlias'), 'Properties')).toEqual({
        AliasName: `alias/contract-termination-${stage}-event-signing`,
        TargetKeyId: { Ref: 'EventSigningKey' },
      });
      expect(at(template, 'Outputs', 'EventSigningKeyId', 'Value')).toEqual({ Ref: 'EventSigningKey' });
    }
  });

  it("lets the publisher's role alone sign, ES256 over the message, and no IAM policy grant it", () => {
    const signing = statements(prod).filter((statement) => actionsOf(statement).some((action) => /^kms:(Sign|\*)/.test(action)));
    expect(signing).toEqual([
      {
        Sid: 'OnlyThePublisherSigns',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::GetAtt': ['PublishRequestEventsRole', 'Arn'] } },
        Action: 'kms:Sign',
        Resource: '*',
        Condition: { StringEquals: { 'kms:SigningAlgorithm': 'ECDSA_SHA_256', 'kms:MessageType': 'RAW' } },
      },
    ]);
    // The role's own policies name no signing key, so the key may name the role without a cycle.
    expect([...referencedIds(at(resource(prod, 'PublishRequestEventsRole'), 'Properties'))]).not.toContain('EventSigningKey');
    for (const [id, role] of ofType(prod, 'AWS::IAM::Role'))
      expect([id, JSON.stringify(role)]).not.toEqual([id, expect.stringContaining('kms:Sign')]);
  });

  it('lets this account alone read the public key (the back office reads the published document), and the function sign with this key', () => {
    const reading = statements(prod).filter((statement) => actionsOf(statement).includes('kms:GetPublicKey'));
    expect(reading.map((statement) => [at(statement, 'Sid'), at(statement, 'Principal')])).toEqual([
      ['TheAccountAdministersTheKey', { AWS: { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' } }],
    ]);
    const environment = at(resource(prod, 'PublishRequestEventsLambdaFunction'), 'Properties', 'Environment', 'Variables');
    expect(at(environment, 'EVENT_SIGNING_KEY_ID')).toEqual({ Ref: 'EventSigningKey' });
    expect(at(environment, 'KMS_ENDPOINT')).toBe('');
  });

  it("keeps the document of its public keys in a bucket of its own: not public, TLS only, versioned, kept, readable by the back office's role alone, touched by no function", () => {
    for (const template of [prod, dev]) {
      const bucket = resource(template, 'EventSigningKeysBucket');
      expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(at(bucket, 'Properties')).toEqual({
        // Public keys: S3's own encryption, so that the back office's account needs no right on the stage's key.
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        VersioningConfiguration: { Status: 'Enabled' },
        LifecycleConfiguration: {
          Rules: [{ Id: 'earlier-documents', Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 365 } }],
        },
      });
      const statements = at(resource(template, 'EventSigningKeysBucketPolicy'), 'Properties', 'PolicyDocument', 'Statement');
      const list = Array.isArray(statements) ? statements : [];
      expect(list.map((statement: unknown) => [at(statement, 'Sid'), at(statement, 'Effect'), at(statement, 'Action')])).toEqual([
        ['TheBackOfficeReadsTheKeys', 'Allow', 's3:GetObject'],
        ['TlsOnly', 'Deny', 's3:*'],
      ]);
      const [reading, tls] = list;
      // The role that puts decisions on the bus, in the decisions' account; the one object, nothing else.
      expect(JSON.stringify(at(reading, 'Principal'))).toContain(':role/contract-termination-');
      expect(JSON.stringify(at(reading, 'Principal'))).toContain('BackOfficeInOtherAccount');
      expect(at(reading, 'Resource')).toEqual({ 'Fn::Sub': `\${EventSigningKeysBucket.Arn}/${EVENT_SIGNING_KEYS_OBJECT_KEY}` });
      expect(at(tls, 'Condition')).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
      expect(at(template, 'Outputs', 'EventSigningKeysBucket', 'Value')).toEqual({ Ref: 'EventSigningKeysBucket' });
      expect(JSON.stringify(at(template, 'Outputs', 'EventSigningKeysUrl', 'Value'))).toContain(EVENT_SIGNING_KEYS_PATH);
      const grants = ['AWS::IAM::Role', 'AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'].flatMap((type) => ofType(template, type));
      expect(grants.length).toBeGreaterThan(10);
      for (const [id, grant] of grants) expect([id, referencedIds(grant).has('EventSigningKeysBucket')]).toEqual([id, false]);
    }
  });
});

describe("the stage's key", () => {
  const CRYPTO = /^kms:(Decrypt|Encrypt|GenerateDataKey|ReEncrypt|CreateGrant|Sign|GenerateMac)/;
  const viaService = (service: string) => ({ 'Fn::Sub': `${service}.\${AWS::Region}.amazonaws.com` });

  it('is one customer-managed key per deployed stage, rotated yearly, kept when the stack goes (the requests table it protects is)', () => {
    for (const [template, stage] of [
      [prod, 'prod'],
      [dev, 'dev'],
    ] as const) {
      const keys = ofType(template, 'AWS::KMS::Key');
      // And the events' signing key (below), which protects nothing.
      expect(keys.map(([id]) => id)).toEqual(['StageKey', 'EventSigningKey']);
      expect(resource(template, 'StageKey')).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { EnableKeyRotation: true, KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT' },
      });
      expect(at(resource(template, 'StageKeyAlias'), 'Properties')).toEqual({
        AliasName: `alias/contract-termination-${stage}`,
        TargetKeyId: { Ref: 'StageKey' },
      });
    }
  });

  it('protects the requests table, the bus, every queue, every log group and the alarm topic', () => {
    for (const template of [prod, dev]) {
      expect(at(resource(template, 'RequestsTable'), 'Properties', 'SSESpecification', 'KMSMasterKeyId')).toEqual(STAGE_KEY);
      // moto accepts and ignores these two, so the rehearsal cannot show them: they are checked here.
      expect(at(resource(template, 'EventBus'), 'Properties', 'KmsKeyIdentifier')).toEqual(STAGE_KEY);
      const logGroups = ofType(template, 'AWS::Logs::LogGroup');
      expect(logGroups).toHaveLength(12);
      for (const [id, group] of logGroups) expect([id, at(group, 'Properties', 'KmsKeyId')]).toEqual([id, STAGE_KEY]);
      const queues = ofType(template, 'AWS::SQS::Queue');
      expect(queues).toHaveLength(2);
      for (const [id, queue] of queues) {
        expect([id, at(queue, 'Properties', 'KmsMasterKeyId')]).toEqual([id, STAGE_KEY]);
        expect(at(queue, 'Properties', 'SqsManagedSseEnabled')).toBeUndefined();
      }
      for (const [id, topic] of ofType(template, 'AWS::SNS::Topic'))
        expect([id, at(topic, 'Properties', 'KmsMasterKeyId')]).toEqual([id, STAGE_KEY]);
    }
  });

  it('is open to no one: every statement names the account or a service, the account administers it unconditionally and uses it only through DynamoDB and SQS, and reads the audit log through S3', () => {
    const statements = keyStatements(prod);
    expect(statements.length).toBeGreaterThan(0);
    const root = { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' };
    for (const statement of statements) {
      const sid = String(at(statement, 'Sid'));
      expect([sid, at(statement, 'Effect')]).toEqual([sid, 'Allow']);
      const principal = at(statement, 'Principal');
      expect(JSON.stringify(principal), sid).not.toMatch(/"\*"/);
      expect(Object.keys(jsonObject(principal)), sid).toHaveLength(1);
      const actions = [at(statement, 'Action')].flat().map(String);
      if (at(principal, 'AWS') !== undefined) {
        expect(at(principal, 'AWS'), sid).toEqual(root);
        // The account's own use is only ever through DynamoDB or SQS, for the principals its IAM policies name.
        if (actions.some((action) => CRYPTO.test(action))) {
          expect(at(statement, 'Condition', 'StringEquals', 'kms:CallerAccount'), sid).toEqual({ Ref: 'AWS::AccountId' });
          const services = [at(statement, 'Condition', 'StringEquals', 'kms:ViaService')].flat();
          expect(services.length, sid).toBeGreaterThan(0);
          // Through S3 only to decrypt: the audit trail's log files (audit.yml), never to write with the key.
          const allowed = actions.every((action) => action === 'kms:Decrypt') ? ['dynamodb', 's3', 'sqs'] : ['dynamodb', 'sqs'];
          for (const service of services) expect(allowed.map(viaService), sid).toContainEqual(service);
        } else expect(at(statement, 'Condition'), sid).toBeUndefined();
      } else {
        // A service uses it only for this stack's log groups, bus, rule and alarms.
        expect(Object.keys(jsonObject(at(statement, 'Condition'))).length, sid).toBeGreaterThan(0);
        const tested = JSON.stringify(at(statement, 'Condition'));
        expect(tested, sid).toMatch(/contract-termination-prod/);
      }
    }
    const services = statements.map((st) => at(st, 'Principal', 'Service')).filter((service) => service !== undefined);
    expect(new Set(services)).toEqual(
      new Set([
        { 'Fn::Sub': 'logs.${AWS::Region}.amazonaws.com' },
        'events.amazonaws.com',
        'cloudwatch.amazonaws.com',
        'cloudtrail.amazonaws.com',
      ]),
    );
  });

  it("lets CloudWatch Logs use it for the stack's log groups only, and EventBridge for the stack's bus and decision rule only", () => {
    const by = (sid: string) => keyStatements(prod).find((st) => at(st, 'Sid') === sid);
    expect(at(by('CloudWatchLogsForTheStacksLogGroups'), 'Condition')).toEqual({
      ArnLike: {
        'kms:EncryptionContext:aws:logs:arn': [
          { 'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/contract-termination-prod-*' },
          {
            'Fn::Sub':
              'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/apigateway/contract-termination-prod-access',
          },
          { 'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:aws-waf-logs-contract-termination-prod' },
        ],
      },
    });
    // Every log group's name is one that condition matches.
    for (const [, group] of ofType(prod, 'AWS::Logs::LogGroup'))
      expect(String(at(group, 'Properties', 'LogGroupName'))).toMatch(
        /^(\/aws\/(lambda\/contract-termination-prod-|apigateway\/contract-termination-prod-access$)|aws-waf-logs-contract-termination-prod$)/,
      );
    const bus = { 'Fn::Sub': 'arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/contract-termination-prod-events' };
    expect(at(by('EventBridgeForTheBus'), 'Condition', 'StringEquals')).toEqual({
      'aws:SourceAccount': { Ref: 'AWS::AccountId' },
      'aws:SourceArn': bus,
      'kms:EncryptionContext:aws:events:event-bus:arn': bus,
    });
    expect(at(resource(prod, 'EventBus'), 'Properties', 'Name')).toBe('contract-termination-prod-events');
    expect(at(by('EventBridgeForTheDecisionRulesDeadLetters'), 'Condition')).toEqual({
      ArnEquals: {
        'aws:SourceArn': {
          'Fn::Sub':
            'arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:rule/contract-termination-prod-events/contract-termination-prod-status-decisions',
        },
      },
    });
    expect(at(resource(prod, 'DecisionRule'), 'Properties', 'Name')).toBe('contract-termination-prod-status-decisions');
  });

  it('names no role and no resource of the stack in its policy, so what is under the key makes no cycle', () => {
    expect([...referencedIds(at(resource(prod, 'StageKey'), 'Properties'))].filter((id) => !id.startsWith('AWS::'))).toEqual([]);
    for (const template of [prod, dev, traced]) expect(cycleIn(template)).toBeUndefined();
  });

  it.each([
    ['CreateTerminationRequestRole', ['dynamodb']],
    ['WithdrawTerminationRequestRole', ['dynamodb']],
    ['GetTerminationRequestRole', ['dynamodb']],
    ['ListTerminationRequestsRole', ['dynamodb']],
    ['GetTerminationRequestDetailsRole', ['dynamodb']],
    ['ListCustomerTerminationRequestsRole', ['dynamodb']],
    ['ApplyStatusDecisionRole', ['dynamodb', 'sqs']],
    ['PublishRequestEventsRole', ['dynamodb', 'sqs']],
    ['AuthorizerRole', []],
    ['ListTerminationReasonsRole', []],
  ])("gives %s the key's use through %j and nothing else", (role, services) => {
    const use = keyUse(prod, role);
    if (services.length === 0) {
      expect(use).toBeUndefined();
      return;
    }
    expect(use).toEqual(
      services.map((service) => ({
        Sid: expect.any(String),
        Effect: 'Allow',
        // Reading the table or its stream decrypts; sending to a queue makes a data key too.
        Action: service === 'sqs' ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:Decrypt'],
        Resource: STAGE_KEY,
        Condition: { StringEquals: { 'kms:ViaService': viaService(service) } },
      })),
    );
  });

  it('gives on-call one policy of its own: find requests without their personal data and redrive the dead letters, under the key through DynamoDB and SQS only', () => {
    const [[id, policy] = []] = ofType(prod, 'AWS::IAM::ManagedPolicy');
    expect(id).toBe('OnCallPolicy');
    expect(at(policy, 'Properties', 'ManagedPolicyName')).toBe('contract-termination-prod-on-call');
    const statements = at(policy, 'Properties', 'PolicyDocument', 'Statement');
    const requests = expect.objectContaining({ 'Fn::Sub': expect.stringContaining('table/contract-termination-prod-requests') });
    expect(Array.isArray(statements) ? statements.map((st: unknown) => [at(st, 'Sid'), at(st, 'Action'), at(st, 'Resource')]) : []).toEqual(
      [
        ['ReadRequestsWithoutPersonalData', ['dynamodb:GetItem'], requests],
        [
          'FindRequestsWithoutPersonalData',
          ['dynamodb:Scan', 'dynamodb:Query'],
          [requests, { 'Fn::Sub': expect.stringMatching(/table\/contract-termination-prod-requests\/index\/RequestsByNumber$/) }],
        ],
        [
          'RedriveDeadLetters',
          ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'],
          [{ 'Fn::GetAtt': ['DecisionDeadLetterQueue', 'Arn'] }, { 'Fn::GetAtt': ['PublisherDeadLetterQueue', 'Arn'] }],
        ],
        // No read of the stream: the publisher reads the batches it is handed back (npm run redrive).
        [
          'HandBackToTheFunctions',
          ['lambda:InvokeFunction'],
          [{ 'Fn::GetAtt': ['ApplyStatusDecisionLambdaFunction', 'Arn'] }, { 'Fn::GetAtt': ['PublishRequestEventsLambdaFunction', 'Arn'] }],
        ],
        ['ReadUnderTheKey', ['kms:Decrypt'], STAGE_KEY],
      ],
    );
    // The attributes it may read: none that the record of processing holds personal (tests/deploy/operator-roles.test.ts simulates them).
    const attributes = at(statements, 0, 'Condition', 'ForAllValues:StringEquals', 'dynamodb:Attributes');
    expect(at(statements, 1, 'Condition', 'ForAllValues:StringEquals', 'dynamodb:Attributes')).toEqual(attributes);
    for (const personal of ['customerId', 'bankDetails', 'comment', 'documentIds', 'statusReason', 'statusHistory'])
      expect(attributes).not.toContain(personal);
    expect(at(statements, 4, 'Condition')).toEqual({ StringEquals: { 'kms:ViaService': [viaService('dynamodb'), viaService('sqs')] } });
    // Nobody is given it by the stack: the bank attaches it to the role on-call signs in with.
    expect(at(policy, 'Properties', 'Roles')).toBeUndefined();
  });
});

describe('least exposure', () => {
  it('keeps no sampled requests in the WAF, for the web ACL or any rule; its metrics stay', () => {
    const acl = resource(prod, 'WebAcl');
    const configs = [at(acl, 'Properties', 'VisibilityConfig')];
    const rules = at(acl, 'Properties', 'Rules');
    for (const rule of Array.isArray(rules) ? rules : []) configs.push(at(rule, 'VisibilityConfig'));
    expect(configs).toHaveLength(9);
    for (const config of configs) expect(config).toMatchObject({ SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true });
  });

  it("logs what the WAF blocks or counts with Authorization redacted, under the stage's key, kept as the other logs", () => {
    expect(at(resource(prod, 'WafLogging'), 'Properties')).toEqual({
      ResourceArn: { 'Fn::GetAtt': ['WebAcl', 'Arn'] },
      LogDestinationConfigs: [{ 'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:${WafLogGroup}' }],
      RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
      LoggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          {
            Behavior: 'KEEP',
            Requirement: 'MEETS_ANY',
            Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }],
          },
        ],
      },
    });
    expect(at(resource(prod, 'WafLogGroup'), 'Properties')).toMatchObject({
      LogGroupName: 'aws-waf-logs-contract-termination-prod',
      KmsKeyId: STAGE_KEY,
    });
    expect(Number(at(resource(prod, 'WafLogGroup'), 'Properties', 'RetentionInDays'))).toBe(90);
    for (const id of ['WafLogGroup', 'WafLogging']) expect(at(resource(prod, id), 'Condition')).toBe('WafEnabled');
  });

  it("records every data event of the requests table's items in a trail of its own, under the stage's key, in a bucket nobody outside reads", () => {
    expect(at(resource(prod, 'AuditTrail'), 'Properties')).toEqual({
      TrailName: 'contract-termination-prod-requests-audit',
      IsLogging: true,
      S3BucketName: { Ref: 'AuditLogBucket' },
      KMSKeyId: STAGE_KEY,
      EnableLogFileValidation: true,
      IncludeGlobalServiceEvents: false,
      IsMultiRegionTrail: false,
      AdvancedEventSelectors: [
        {
          Name: 'requests-table-items',
          FieldSelectors: [
            { Field: 'eventCategory', Equals: ['Data'] },
            { Field: 'resources.type', Equals: ['AWS::DynamoDB::Table'] },
            { Field: 'resources.ARN', Equals: [{ 'Fn::GetAtt': ['RequestsTable', 'Arn'] }] },
          ],
        },
      ],
    });
    const bucket = resource(prod, 'AuditLogBucket');
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(at(bucket, 'Properties', 'BucketEncryption', 'ServerSideEncryptionConfiguration', 0, 'ServerSideEncryptionByDefault')).toEqual({
      SSEAlgorithm: 'aws:kms',
      KMSMasterKeyID: STAGE_KEY,
    });
    expect(at(bucket, 'Properties', 'PublicAccessBlockConfiguration')).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(Number(at(bucket, 'Properties', 'LifecycleConfiguration', 'Rules', 0, 'ExpirationInDays'))).toBe(1827);
    // Only the trail writes to it; nothing but TLS reaches it.
    const statements = at(resource(prod, 'AuditLogBucketPolicy'), 'Properties', 'PolicyDocument', 'Statement');
    expect(Array.isArray(statements) ? statements.map((st: unknown) => [at(st, 'Effect'), at(st, 'Principal')]) : []).toEqual([
      ['Allow', { Service: 'cloudtrail.amazonaws.com' }],
      ['Allow', { Service: 'cloudtrail.amazonaws.com' }],
      ['Deny', '*'],
    ]);
  });

  it("makes no trail, bucket or grant of its own for the audit log when packaged with the bank's organisation trail (AUDIT_TRAIL_ARN)", async () => {
    const own = ['AuditTrail', 'AuditLogBucket', 'AuditLogBucketPolicy'];
    for (const id of own) expect(at(resource(prod, id), 'Condition')).toBe('OwnAuditTrail');
    expect(parameterDefault(prod, 'AuditTrailArnSetting')).toBe('');
    const trail = 'arn:aws:cloudtrail:eu-central-1:111122223333:trail/bank-organisation';
    const organised = new TemplateResolver(await packageStage('prod', { CONTRACTS_TABLE_NAME: 'c', AUDIT_TRAIL_ARN: trail }));
    expect(organised.resourcesOfType('AWS::CloudTrail::Trail')).toEqual([]);
    expect(organised.resourcesOfType('AWS::S3::Bucket').map(([id]) => id)).not.toContain('AuditLogBucket');
    expect(organised.resourcesOfType('AWS::S3::BucketPolicy').map(([id]) => id)).not.toContain('AuditLogBucketPolicy');
    // Neither the key's policy nor the data-protection role names the stack's trail or bucket any more.
    const keyStatements = [jsonObject(organised.property('StageKey', 'KeyPolicy'))['Statement']].flat().map(jsonObject);
    expect(keyStatements.map((st) => st['Sid'])).not.toContain('CloudTrailForTheAuditTrail');
    expect(keyStatements.map((st) => st['Sid'])).not.toContain('PrincipalsOfTheAccountReadTheAuditLogThroughS3');
    const roleStatements = [organised.property('DataProtectionRole', 'Policies')]
      .flat()
      .flatMap((policy) => [jsonObject(jsonObject(policy)['PolicyDocument'])['Statement']].flat().map(jsonObject));
    expect(roleStatements.map((st) => st['Sid'])).not.toContain('ReadTheAuditTrail');
    expect(roleStatements.length).toBeGreaterThan(0);
    // Packaged without it, the stack's own trail is there, with its grants.
    const withOwn = new TemplateResolver(prod);
    expect(withOwn.resourcesOfType('AWS::CloudTrail::Trail').map(([id]) => id)).toEqual(['AuditTrail']);
    expect([jsonObject(withOwn.property('StageKey', 'KeyPolicy'))['Statement']].flat().map((st) => jsonObject(st)['Sid'])).toContain(
      'CloudTrailForTheAuditTrail',
    );
  }, 60_000);

  it("delivers the service's events to the back office through one rule of its own, to the bus or queue it was packaged with", () => {
    const rule = at(resource(prod, 'BackOfficeEventsRule'), 'Properties');
    expect(rule).toMatchObject({
      Name: 'contract-termination-prod-to-back-office',
      EventPattern: {
        source: ['bank.contract-termination'],
        'detail-type': ['TerminationRequestSubmitted', 'TerminationRequestStatusChanged', 'TerminationRequestErased'],
      },
      State: 'ENABLED',
    });
    expect(at(rule, 'Targets', 0, 'Arn')).toEqual({ Ref: 'BackOfficeEventsTargetSetting' });
    expect(parameterDefault(prod, 'BackOfficeEventsTargetSetting')).toBe(PACKAGED_BACK_OFFICE_EVENTS_TARGET_ARN);
    // A bus is put to with a role of its own, allowed PutEvents on that bus only; a queue takes the rule by its own policy.
    expect(at(rule, 'Targets', 0, 'RoleArn')).toEqual({
      'Fn::If': ['BackOfficeEventsToBus', { 'Fn::GetAtt': ['BackOfficeEventsDeliveryRole', 'Arn'] }, { Ref: 'AWS::NoValue' }],
    });
    expect(at(resource(prod, 'BackOfficeEventsDeliveryRole'), 'Properties', 'Policies', 0, 'PolicyDocument', 'Statement')).toEqual([
      { Effect: 'Allow', Action: ['events:PutEvents'], Resource: { Ref: 'BackOfficeEventsTargetSetting' } },
    ]);
  });
});

/** The back office's account in the rule and the bus policy: this account unless one is named. */
const BACK_OFFICE_ACCOUNT = { 'Fn::If': ['BackOfficeInOtherAccount', '', { Ref: 'AWS::AccountId' }] };

describe('the lifecycle (docs/events.md)', () => {
  it("streams the requests table's changes with both images", () => {
    expect(at(resource(prod, 'RequestsTable'), 'Properties', 'StreamSpecification')).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it("streams the erasure ledger's new entries (new images: an entry never changes)", () => {
    expect(at(resource(prod, 'ErasureLedgerTable'), 'Properties', 'StreamSpecification')).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it('feeds the publisher two streams, the requests table’s and the erasure ledger’s, and no other', () => {
    expect(
      ofType(prod, 'AWS::Lambda::EventSourceMapping').map(([id, mapping]) => [id, at(mapping, 'Properties', 'EventSourceArn')]),
    ).toEqual([
      ['RequestEventsStreamMapping', { 'Fn::GetAtt': ['RequestsTable', 'StreamArn'] }],
      ['ErasureEventsStreamMapping', { 'Fn::GetAtt': ['ErasureLedgerTable', 'StreamArn'] }],
    ]);
  });

  it("feeds the ledger's stream to the same publisher: new erasure entries only (never an expiry), as the requests stream is handled", () => {
    const mapping = at(resource(prod, 'ErasureEventsStreamMapping'), 'Properties');
    const requests = jsonObject(at(resource(prod, 'RequestEventsStreamMapping'), 'Properties'));
    const { EventSourceArn: _source, FilterCriteria: _filter, ...handling } = requests;
    expect(mapping).toMatchObject(handling);
    expect(JSON.parse(String(at(mapping, 'FilterCriteria', 'Filters', 0, 'Pattern')))).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { kind: { S: ['ERASURE'] } } },
    });
    expect(at(mapping, 'FilterCriteria', 'Filters', 1)).toBeUndefined();
  });

  it('feeds the stream to the publisher: request items only, partial failures, bisection, bounded retries, then the dead-letter queue', () => {
    const mapping = resource(prod, 'RequestEventsStreamMapping');
    expect(at(mapping, 'Properties')).toMatchObject({
      FunctionName: { 'Fn::GetAtt': ['PublishRequestEventsLambdaFunction', 'Arn'] },
      EventSourceArn: { 'Fn::GetAtt': ['RequestsTable', 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: '10',
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['PublisherDeadLetterQueue', 'Arn'] } } },
    });
    const [filter] = [at(mapping, 'Properties', 'FilterCriteria', 'Filters', 0, 'Pattern')];
    expect(JSON.parse(String(filter))).toEqual({ dynamodb: { NewImage: { kind: { S: ['REQUEST'] } } } });
    // A batch's requests are read in one BatchGetItem, which takes as many keys as a batch has records at most.
    expect(Number(at(mapping, 'Properties', 'BatchSize'))).toBeLessThanOrEqual(MAX_KEYS_PER_READ);
  });

  it("routes only the back office's decisions to the consumer, with a dead-letter queue for what cannot be delivered", () => {
    const rule = at(resource(prod, 'DecisionRule'), 'Properties');
    expect(at(rule, 'EventPattern')).toEqual({
      source: ['bank.back-office'],
      'detail-type': ['TerminationRequestStatusChanged'],
      account: [BACK_OFFICE_ACCOUNT],
    });
    expect(at(rule, 'Targets', 0, 'Arn')).toEqual({ 'Fn::GetAtt': ['ApplyStatusDecisionLambdaFunction', 'Arn'] });
    expect(at(rule, 'Targets', 0, 'DeadLetterConfig')).toEqual({ Arn: { 'Fn::GetAtt': ['DecisionDeadLetterQueue', 'Arn'] } });
    expect(at(resource(prod, 'DecisionRulePermission'), 'Properties', 'SourceArn')).toEqual({ 'Fn::GetAtt': ['DecisionRule', 'Arn'] });
    // Only that rule may drop letters into the queue.
    expect(at(resource(prod, 'DecisionDeadLetterQueuePolicy'), 'Properties', 'PolicyDocument', 'Statement', 0, 'Condition')).toEqual({
      ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': ['DecisionRule', 'Arn'] } },
    });
  });

  it('lets only the configured back-office role send decisions on the bus', () => {
    const policy = at(resource(prod, 'DecisionSendersPolicy'), 'Properties');
    expect(at(policy, 'EventBusName')).toEqual({
      'Fn::If': ['CreateEventBus', { 'Fn::GetAtt': ['EventBus', 'Name'] }, 'contract-termination-prod-events'],
    });
    expect(at(policy, 'Statement')).toEqual({
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/contract-termination-prod-events' },
      Condition: {
        'ForAnyValue:StringEquals': { 'events:source': ['bank.back-office'] },
        ArnNotEquals: {
          'aws:PrincipalArn': {
            'Fn::Sub': [
              'arn:${AWS::Partition}:iam::${Account}:role/contract-termination-prod-back-office',
              { Account: BACK_OFFICE_ACCOUNT },
            ],
          },
        },
      },
    });
    // The back office in this account needs no grant; another account gets one, for decisions only.
    expect(at(prod, 'Conditions', 'BackOfficeInOtherAccount')).toEqual({
      'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'BackOfficeAccountIdSetting' }, ''] }],
    });
    expect(parameterDefault(prod, 'BackOfficeAccountIdSetting')).toBe('');
    expect(at(resource(prod, 'BackOfficeAccountPolicy'), 'Condition')).toBe('BackOfficeInOtherAccount');
  });

  it('names another account and role for the back office when told to', async () => {
    const other = await packageStage('prod', {
      CONTRACTS_TABLE_NAME: 'c',
      BACK_OFFICE_ACCOUNT_ID: '210987654321',
      BACK_OFFICE_ROLE_NAME: 'decider',
    });
    expect(parameterDefault(other, 'BackOfficeAccountIdSetting')).toBe('210987654321');
    expect(JSON.stringify(at(resource(other, 'DecisionSendersPolicy'), 'Properties', 'Statement'))).toContain(':role/decider');
    expect(at(resource(other, 'BackOfficeAccountPolicy'), 'Properties', 'Statement')).toMatchObject({
      Effect: 'Allow',
      Principal: { AWS: { 'Fn::Sub': 'arn:${AWS::Partition}:iam::210987654321:root' } },
      Action: 'events:PutEvents',
      Condition: { 'ForAllValues:StringEquals': { 'events:source': ['bank.back-office'] }, Null: { 'events:source': 'false' } },
    });
  }, 60_000);

  it("lets only the publisher's role put this service's source on the bus", () => {
    const policy = at(resource(prod, 'ServiceEventSendersPolicy'), 'Properties');
    expect(at(policy, 'EventBusName')).toEqual(at(resource(prod, 'DecisionSendersPolicy'), 'Properties', 'EventBusName'));
    expect(at(policy, 'Statement')).toEqual({
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/contract-termination-prod-events' },
      Condition: {
        'ForAnyValue:StringEquals': { 'events:source': ['bank.contract-termination'] },
        ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': ['PublishRequestEventsRole', 'Arn'] } },
      },
    });
  });

  it('lets nobody but the rule and the consumer send to the decision dead letters, nobody but the publisher to its own', () => {
    const statements = (name: string) => at(resource(prod, name), 'Properties', 'PolicyDocument', 'Statement');
    expect(at(statements('DecisionDeadLetterQueuePolicy'), 1)).toEqual({
      Sid: 'OnlyTheRuleAndTheConsumerSend',
      Effect: 'Deny',
      Principal: '*',
      Action: 'sqs:SendMessage',
      Resource: { 'Fn::GetAtt': ['DecisionDeadLetterQueue', 'Arn'] },
      Condition: {
        ArnNotEquals: {
          'aws:SourceArn': { 'Fn::GetAtt': ['DecisionRule', 'Arn'] },
          'aws:PrincipalArn': { 'Fn::GetAtt': ['ApplyStatusDecisionRole', 'Arn'] },
        },
      },
    });
    expect(at(resource(prod, 'PublisherDeadLetterQueuePolicy'), 'Properties', 'Queues')).toEqual([{ Ref: 'PublisherDeadLetterQueue' }]);
    expect(statements('PublisherDeadLetterQueuePolicy')).toEqual([
      {
        Sid: 'OnlyThePublisherSends',
        Effect: 'Deny',
        Principal: '*',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': ['PublisherDeadLetterQueue', 'Arn'] },
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': ['PublishRequestEventsRole', 'Arn'] } } },
      },
    ]);
  });

  it("tells the consumer the one account decisions come from, the rule's own", () => {
    const env = (template: Json) => at(resource(template, 'ApplyStatusDecisionLambdaFunction'), 'Properties', 'Environment', 'Variables');
    expect(at(env(prod), 'DECISION_ACCOUNT_ID')).toEqual(BACK_OFFICE_ACCOUNT);
    expect(at(resource(prod, 'DecisionRule'), 'Properties', 'EventPattern', 'account')).toEqual([at(env(prod), 'DECISION_ACCOUNT_ID')]);
  });

  it("gives no deployed stage the local back office's key: the consumer checks decisions against the JWKS the stage was packaged with", () => {
    const env = (template: Json) => at(resource(template, 'ApplyStatusDecisionLambdaFunction'), 'Properties', 'Environment', 'Variables');
    for (const template of [prod, dev]) {
      expect(at(env(template), 'DECISION_JWKS_URI')).toBe(PACKAGED_DECISION_JWKS_URI);
      const text = JSON.stringify(template);
      expect(text).not.toContain(BACK_OFFICE_JWKS_PATH);
      expect(text).not.toContain(LOCAL_BACK_OFFICE_KEY.kid);
    }
    // In serverless.yml, the stages' params: only `local` names a back office's JWKS; every other stage takes the environment's.
    const stages = Object.entries(stageParams()).map(([stage, params]) => ({ stage, value: at(params, 'decisionJwksUri') }));
    expect(stages.map((s) => s.stage)).toEqual(expect.arrayContaining(['default', 'prod', 'local']));
    for (const { stage, value } of stages) {
      if (stage === 'default') expect(value).toBe("${env:DECISION_JWKS_URI, ''}");
      else if (stage === 'local') expect(value).toContain(BACK_OFFICE_JWKS_PATH);
      else expect(value, stage).toBeUndefined();
    }
  });

  it('lets only the rule invoke the consumer', () => {
    const permissions = ofType(prod, 'AWS::Lambda::Permission').filter(([, p]) =>
      JSON.stringify(at(p, 'Properties', 'FunctionName')).includes('ApplyStatusDecisionLambdaFunction'),
    );
    expect(permissions.map(([name]) => name)).toEqual(['DecisionRulePermission']);
    expect(at(resource(prod, 'DecisionRulePermission'), 'Properties')).toMatchObject({
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': ['DecisionRule', 'Arn'] },
      SourceAccount: { Ref: 'AWS::AccountId' },
    });
  });

  it('retries a failed decision twice, then hands it to the same dead-letter queue', () => {
    expect(at(resource(prod, 'ApplyStatusDecisionInvokeConfig'), 'Properties')).toMatchObject({
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['DecisionDeadLetterQueue', 'Arn'] } } },
    });
    expect(
      at(resource(prod, 'ApplyStatusDecisionLambdaFunction'), 'Properties', 'Environment', 'Variables', 'DECISION_DEAD_LETTER_QUEUE_URL'),
    ).toEqual({
      Ref: 'DecisionDeadLetterQueue',
    });
  });

  it("keeps dead letters 14 days, encrypted with the stage's key", () => {
    for (const queue of ['DecisionDeadLetterQueue', 'PublisherDeadLetterQueue']) {
      expect(at(resource(prod, queue), 'Properties')).toMatchObject({ MessageRetentionPeriod: 1209600, KmsMasterKeyId: STAGE_KEY });
    }
  });

  it('makes its own bus unless told to use one that exists', async () => {
    expect(at(prod, 'Conditions', 'CreateEventBus')).toEqual({ 'Fn::Equals': [{ Ref: 'CreateEventBusSetting' }, 'true'] });
    expect(parameterDefault(prod, 'CreateEventBusSetting')).toBe('true');
    const shared = await packageStage('prod', { CONTRACTS_TABLE_NAME: 'c', CREATE_EVENT_BUS: 'false', EVENT_BUS_NAME: 'bank-bus' });
    expect(parameterDefault(shared, 'CreateEventBusSetting')).toBe('false');
    expect(JSON.stringify(statements(shared, 'PublishRequestEventsRole'))).toContain('event-bus/bank-bus');
  }, 60_000);

  it.each([
    ['DecisionDeadLettersAlarm', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible'],
    ['PublisherDeadLettersAlarm', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible'],
    ['StreamIteratorAgeAlarm', 'AWS/Lambda', 'IteratorAge'],
    ['DecisionRuleFailuresAlarm', 'AWS/Events', 'FailedInvocations'],
  ])('%s watches %s %s and tells the alarm topic', (name, namespace, metric) => {
    const alarm = at(resource(prod, name), 'Properties');
    expect(at(alarm, 'Namespace')).toBe(namespace);
    expect(at(alarm, 'MetricName')).toBe(metric);
    expect(at(alarm, 'AlarmActions')).toEqual([{ Ref: 'AlarmTopic' }]);
  });
});

describe('the tables', () => {
  it('keep requests on demand, with TTL on expiresAt, point-in-time recovery, encryption and deletion protection on prod', () => {
    const table = at(resource(prod, 'RequestsTable'), 'Properties');
    expect(at(table, 'BillingMode')).toBe('PAY_PER_REQUEST');
    expect(at(table, 'TimeToLiveSpecification')).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(at(table, 'PointInTimeRecoverySpecification', 'PointInTimeRecoveryEnabled')).toBe(true);
    expect(at(table, 'SSESpecification')).toEqual({ SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: STAGE_KEY });
    expect(at(table, 'DeletionProtectionEnabled')).toBe('true');
    expect(at(resource(dev, 'RequestsTable'), 'Properties', 'DeletionProtectionEnabled')).toBe('false');
  });

  it('leave the contracts table to its owner on prod, and make one on dev', () => {
    expect(at(prod, 'Conditions', 'CreateContractsTable')).toEqual({ 'Fn::Equals': [{ Ref: 'CreateContractsTableSetting' }, 'true'] });
    expect([parameterDefault(prod, 'CreateContractsTableSetting'), parameterDefault(dev, 'CreateContractsTableSetting')]).toEqual([
      'false',
      'true',
    ]);
    expect(at(resource(prod, 'ContractsTable'), 'Condition')).toBe('CreateContractsTable');
  });

  it('leave the documents table to the documents service on prod, and make one on dev, keyed by documentId', () => {
    expect(at(prod, 'Conditions', 'CreateDocumentsTable')).toEqual({ 'Fn::Equals': [{ Ref: 'CreateDocumentsTableSetting' }, 'true'] });
    expect([parameterDefault(prod, 'CreateDocumentsTableSetting'), parameterDefault(dev, 'CreateDocumentsTableSetting')]).toEqual([
      'false',
      'true',
    ]);
    expect(at(resource(dev, 'DocumentsTable'), 'Condition')).toBe('CreateDocumentsTable');
    expect(at(resource(dev, 'DocumentsTable'), 'Properties', 'TableName')).toBe('contract-termination-dev-documents');
    expect(at(resource(dev, 'DocumentsTable'), 'Properties', 'KeySchema')).toEqual([{ AttributeName: 'documentId', KeyType: 'HASH' }]);
  });
});

describe('alarms', () => {
  it.each([
    [
      'Api5xxRateAlarm',
      'AWS/ApiGateway',
      '5XXError',
      () => ({ Name: 'ApiName', Value: at(resource(prod, 'ApiGatewayRestApi'), 'Properties', 'Name') }),
    ],
    [
      'ApiLatencyP99Alarm',
      'AWS/ApiGateway',
      'Latency',
      () => ({ Name: 'ApiName', Value: at(resource(prod, 'ApiGatewayRestApi'), 'Properties', 'Name') }),
    ],
    [
      'LambdaThrottlesAlarm',
      'AWS/Lambda',
      'Throttles',
      () => ({ Name: 'FunctionName', Value: at(resource(prod, 'CreateTerminationRequestLambdaFunction'), 'Properties', 'FunctionName') }),
    ],
  ])('%s watches %s %s of this stack and tells the alarm topic', (name, namespace, metric, dimension) => {
    const alarm = at(resource(prod, name), 'Properties');
    expect(at(alarm, 'Namespace')).toBe(namespace);
    expect(at(alarm, 'MetricName')).toBe(metric);
    expect(at(alarm, 'Dimensions')).toEqual([dimension()]);
    expect(at(alarm, 'AlarmActions')).toEqual([{ Ref: 'AlarmTopic' }]);
  });

  it('watches read and write throttle events of the requests table (series that exist per table)', () => {
    const alarm = at(resource(prod, 'DynamoDbThrottlesAlarm'), 'Properties');
    const table = at(resource(prod, 'RequestsTable'), 'Properties', 'TableName');
    const metrics = at(alarm, 'Metrics');
    expect(Array.isArray(metrics) ? metrics.map((m: unknown) => at(m, 'MetricStat', 'Metric', 'MetricName')).filter(Boolean) : []).toEqual([
      'WriteThrottleEvents',
      'ReadThrottleEvents',
    ]);
    expect(JSON.stringify(metrics).match(/"TableName","Value":"([^"]+)"/g)).toEqual([
      `"TableName","Value":"${String(table)}"`,
      `"TableName","Value":"${String(table)}"`,
    ]);
    expect(at(alarm, 'AlarmActions')).toEqual([{ Ref: 'AlarmTopic' }]);
  });

  it("sends alarms to a topic under the stage's key, which lets this stack's alarms publish (an AWS-managed key would not)", () => {
    expect(at(resource(prod, 'AlarmTopic'), 'Properties', 'KmsMasterKeyId')).toEqual(STAGE_KEY);
    const statement = keyStatements(prod).find((st) => at(st, 'Principal', 'Service') === 'cloudwatch.amazonaws.com');
    expect(at(statement, 'Condition', 'ArnLike', 'aws:SourceArn')).toEqual({
      'Fn::Sub': 'arn:${AWS::Partition}:cloudwatch:${AWS::Region}:${AWS::AccountId}:alarm:contract-termination-prod-*',
    });
    for (const [, alarm] of ofType(prod, 'AWS::CloudWatch::Alarm'))
      expect(String(at(alarm, 'Properties', 'AlarmName'))).toMatch(/^contract-termination-prod-/);
  });

  it('reads p99 for latency', () => {
    expect(at(resource(prod, 'ApiLatencyP99Alarm'), 'Properties', 'ExtendedStatistic')).toBe('p99');
  });
});

describe('production protections', () => {
  it('keeps the dead letters and every log group when the prod stack is deleted or replaced; says so explicitly elsewhere', () => {
    const holders = (template: Json) =>
      [...ofType(template, 'AWS::SQS::Queue'), ...ofType(template, 'AWS::Logs::LogGroup')].map(([id, r]) => [
        id,
        at(r, 'DeletionPolicy'),
        at(r, 'UpdateReplacePolicy'),
      ]);
    expect(holders(prod)).toHaveLength(2 + 12);
    for (const [id, deletion, replace] of holders(prod)) expect([id, deletion, replace]).toEqual([id, 'Retain', 'Retain']);
    for (const [id, deletion, replace] of holders(dev)) expect([id, deletion, replace]).toEqual([id, 'Delete', 'Delete']);
    for (const template of [prod, dev]) expect(at(resource(template, 'RequestsTable'), 'DeletionPolicy')).toBe('Retain');
  });

  it('names no dependency a reference already makes: the framework adds them, an engine that lints (moto) refuses them', () => {
    for (const template of [prod, dev, traced]) {
      for (const [id, r] of Object.entries(jsonObject(template['Resources']))) {
        const properties = JSON.stringify(at(r, 'Properties') ?? {});
        for (const dependency of [at(r, 'DependsOn') ?? []].flat().map(String)) {
          expect(properties, `${id} depends on ${dependency}`).not.toContain(`{"Ref":"${dependency}"}`);
          expect(properties, `${id} depends on ${dependency}`).not.toContain(`{"Fn::GetAtt":["${dependency}"`);
        }
      }
    }
  });

  it('puts a WAF on the prod stage: a per-IP rate limit answering 429, and the AWS common rules; off elsewhere', () => {
    const acl = resource(prod, 'WebAcl');
    const rules = at(acl, 'Properties', 'Rules');
    expect(at(rules, 0, 'Statement', 'RateBasedStatement')).toMatchObject({ AggregateKeyType: 'IP', Limit: expect.anything() });
    // The rate rules (per address, per token) label; the next two answer 429 in Russian or English
    // (tests/deploy/gateway-answers.test.ts); the managed rules come last.
    expect(at(rules, 1, 'Statement', 'RateBasedStatement')).toMatchObject({ AggregateKeyType: 'CUSTOM_KEYS' });
    expect(at(rules, 2, 'Action', 'Block', 'CustomResponse', 'ResponseCode')).toBe(429);
    expect(at(rules, 7, 'Statement', 'ManagedRuleGroupStatement', 'Name')).toBe('AWSManagedRulesCommonRuleSet');
    expect(Array.isArray(rules) ? rules.length : 0).toBe(8);
    expect(at(resource(prod, 'WebAclAssociation'), 'Properties', 'ResourceArn')).toEqual({
      'Fn::Sub': expect.stringContaining('/restapis/${ApiGatewayRestApi}/stages/prod'),
    });
    expect(at(prod, 'Conditions', 'WafEnabled')).toEqual({ 'Fn::Equals': [{ Ref: 'WafEnabledSetting' }, 'true'] });
    expect([parameterDefault(prod, 'WafEnabledSetting'), parameterDefault(dev, 'WafEnabledSetting')]).toEqual(['true', 'false']);
  });

  it("writes an access log line per call as JSON: request id, source IP, status, response type, latency; never the customer's id", () => {
    const setting = at(resource(prod, 'ApiGatewayStage'), 'Properties', 'AccessLogSetting');
    expect(at(setting, 'DestinationArn')).toEqual({ 'Fn::GetAtt': ['ApiAccessLogGroup', 'Arn'] });
    const format = jsonObject(JSON.parse(String(at(setting, 'Format'))));
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      sourceIp: '$context.identity.sourceIp',
      status: '$context.status',
      responseType: '$context.error.responseType',
      latencyMs: '$context.responseLatency',
    });
    // Next to the address and the client, a customer id would make the line say who called from where (docs/data-protection.md).
    expect(JSON.stringify(format)).not.toMatch(/customer|authorizer|principalId/i);
    expect(at(resource(prod, 'ApiGatewayAccount'), 'Properties', 'CloudWatchRoleArn')).toBeDefined();
  });

  it('reserves concurrency per function on prod (configurable), none by default elsewhere', () => {
    const reserved = (template: Json, fn: string) => at(resource(template, fn), 'Properties', 'ReservedConcurrentExecutions');
    expect(reserved(prod, 'CreateTerminationRequestLambdaFunction')).toBe(100);
    expect(reserved(prod, 'AuthorizeCustomerLambdaFunction')).toBe(50);
    // The withdrawal, a customer's act like the create, keeps its own share.
    expect(reserved(prod, 'WithdrawTerminationRequestLambdaFunction')).toBe(20);
    expect(reserved(dev, 'CreateTerminationRequestLambdaFunction')).toBeUndefined();
    expect(reserved(dev, 'WithdrawTerminationRequestLambdaFunction')).toBeUndefined();
    for (const fn of ['GetTerminationRequestDetailsLambdaFunction', 'ListCustomerTerminationRequestsLambdaFunction']) {
      expect(reserved(prod, fn)).toBe(20);
      expect(reserved(dev, fn)).toBeUndefined();
    }
  });

  it('keeps the requests table when the stack is deleted or the table replaced', () => {
    expect(resource(prod, 'RequestsTable')).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('raises an alarm on any internal error', () => {
    expect(at(resource(prod, 'InternalErrorsAlarm'), 'Properties')).toMatchObject({
      MetricName: 'InternalErrors',
      Namespace: 'ContractTermination',
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
  });

  it('has the dashboard docs/operations.md describes: API, outcomes, Lambda and DynamoDB', () => {
    const body = String(at(resource(prod, 'Dashboard'), 'Properties', 'DashboardBody', 'Fn::Sub'));
    for (const metric of [
      '5XXError',
      'Latency',
      'RequestsCreated',
      'RequestsWithdrawn',
      'DestinationDeliveryFailures',
      'InternalErrors',
      'ConcurrentExecutions',
      'Throttles',
      'WriteThrottleEvents',
    ]) {
      expect(body).toContain(`"${metric}"`);
    }
    expect(body).toContain('contract-termination-prod-createTerminationRequest');
    // Every metric an answer counts in (lib/http/outcomes.ts) is on it, the withdrawal's 409 included, and the publisher's own.
    for (const metric of new Set([...Object.values(OUTCOMES).map((row) => row.metric), UNCONFIRMED_RECORDS_METRIC]))
      expect(body, metric).toContain(`"${metric}"`);
  });

  it('raises an alarm on any stream record the requests table does not confirm: someone is forging records, or the table was edited by hand', () => {
    expect(at(resource(prod, 'UnconfirmedRecordsAlarm'), 'Properties')).toMatchObject({
      AlarmName: 'contract-termination-prod-unconfirmed-records',
      Namespace: 'ContractTermination',
      MetricName: UNCONFIRMED_RECORDS_METRIC,
      Dimensions: [{ Name: 'service', Value: 'contract-termination' }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
  });

  it('refuses to package a deployed stage without its identity provider, naming what is missing', async () => {
    /** What the framework printed when packaging failed. */
    const failure = (stage: string, env: Record<string, string> = {}) =>
      packageStage(stage, env).then(
        () => 'packaged',
        (error: unknown) => `${String(at(error, 'stdout'))}${String(at(error, 'stderr'))}`,
      );
    // Nor without the one recipient of its events, the back office's bus or queue.
    const noIdentity = { JWT_ISSUER: '', JWT_AUDIENCE: '', JWKS_URI: '', DECISION_JWKS_URI: '', BACK_OFFICE_EVENTS_TARGET_ARN: '' };
    expect(await failure('dev', noIdentity)).toMatch(
      /Cannot package stage "dev": JWT_ISSUER, JWT_AUDIENCE, JWKS_URI, DECISION_JWKS_URI, BACK_OFFICE_EVENTS_TARGET_ARN are not set/,
    );
    // Without the back office's keys no deployed stage packages: none can fall back on the local back office's.
    expect(await failure('prod', { CONTRACTS_TABLE_NAME: 'contracts', DECISION_JWKS_URI: '' })).toMatch(
      /Cannot package stage "prod": DECISION_JWKS_URI is not set/,
    );
    // Prod also names the tables other systems own: the contracts and the documents tables.
    expect(await failure('prod', { DOCUMENTS_TABLE_NAME: '' })).toMatch(
      /Cannot package stage "prod": CONTRACTS_TABLE_NAME, DOCUMENTS_TABLE_NAME are not set/,
    );
    expect(await failure('dev', { ALLOWED_ORIGINS: 'https://lk.bank.example/' })).toMatch(/ALLOWED_ORIGINS must list origins/);
  });

  it("refuses to package prod with fewer years' retention than the records laws', or with a test stage's days", async () => {
    const failure = (env: Record<string, string>) =>
      packageStage('prod', { CONTRACTS_TABLE_NAME: 'contracts', ...env }).then(
        () => 'packaged',
        (error: unknown) => `${String(at(error, 'stdout'))}${String(at(error, 'stderr'))}`,
      );
    expect(await failure({ REQUEST_RETENTION_YEARS: String(LEGAL_MINIMUM_YEARS - 1) })).toMatch(
      new RegExp(`Cannot package stage "prod": REQUEST_RETENTION_YEARS must be at least ${LEGAL_MINIMUM_YEARS}`),
    );
    expect(await failure({ REQUEST_RETENTION_DAYS: '2' })).toMatch(
      /Cannot package stage "prod": REQUEST_RETENTION_DAYS is for test stages only/,
    );
    // Prod packages with the default years (the other tests' template), and keeps them.
    for (const fn of ['WithdrawTerminationRequestLambdaFunction', 'ApplyStatusDecisionLambdaFunction'])
      expect(at(resource(prod, fn), 'Properties', 'Environment', 'Variables')).toMatchObject({
        REQUEST_RETENTION_YEARS: String(LEGAL_MINIMUM_YEARS),
        REQUEST_RETENTION_DAYS: '',
        BUSINESS_TIME_ZONE: 'Europe/Moscow',
      });
  });
});

describe('browsers (CORS)', () => {
  it('answers preflights on each route without the authorizer, echoing only the configured origins', () => {
    const preflights = ofType(dev, 'AWS::ApiGateway::Method').filter(([, m]) => at(m, 'Properties', 'HttpMethod') === 'OPTIONS');
    expect(preflights).toHaveLength(6);
    for (const [, method] of preflights) {
      expect(at(method, 'Properties', 'AuthorizationType')).toBe('NONE');
      const response = at(method, 'Properties', 'Integration', 'IntegrationResponses', 0);
      expect(at(response, 'ResponseParameters', 'method.response.header.Access-Control-Allow-Headers')).toBe(
        "'Authorization,Content-Type,Idempotency-Key,X-Correlation-Id,Accept-Language'",
      );
      expect(at(response, 'ResponseParameters', 'method.response.header.Access-Control-Allow-Credentials')).toBeUndefined();
      const template = String(at(response, 'ResponseTemplates', 'application/json'));
      expect(template).toContain('$origin.matches("https://lk[.]bank[.]example")');
      expect(template).toContain('$origin.matches("https://m[.]bank[.]example")');
    }
  });

  it("lets every allowed origin read the gateway's own answers: they carry no customer data", () => {
    for (const [, response] of ofType(dev, 'AWS::ApiGateway::GatewayResponse')) {
      expect(at(response, 'Properties', 'ResponseParameters', 'gatewayresponse.header.Access-Control-Allow-Origin')).toBe("'*'");
    }
  });

  it('gives the functions the same origins, and a stage without any no preflight at all', () => {
    expect(at(resource(dev, 'GetTerminationRequestLambdaFunction'), 'Properties', 'Environment', 'Variables', 'ALLOWED_ORIGINS')).toBe(
      'https://lk.bank.example,https://m.bank.example',
    );
    expect(ofType(prod, 'AWS::ApiGateway::Method').filter(([, m]) => at(m, 'Properties', 'HttpMethod') === 'OPTIONS')).toEqual([]);
  });
});
