import { runSimulation, type EvaluationResult, type RequestAnalysis, type RunSimulationResults } from '@cloud-copilot/iam-simulate';
import { ACCOUNT_ID, REGION, busArn, queueArn, roleArn, streamArn, tableArn, type TemplateResolver } from './cfn-intrinsics';
import { jsonObject } from './json';
import type { Access, SdkCall } from './sdk-calls';

/*
 * The IAM check of tests/integration/iam-calls.test.ts: the prod template's role of each
 * function, the calls recorded in the test process mapped onto the prod resources they stand
 * for, each simulated with @cloud-copilot/iam-simulate, and the grants no recorded call needed.
 */

export interface RolePolicy {
  name: string;
  document: Record<string, unknown>;
}

/** A function of the template, its role and its prod environment, all resolved. */
export interface FunctionRole {
  /** The entry point's file name in functions/, without .ts. */
  functionName: string;
  logicalId: string;
  role: string;
  environment: Record<string, string>;
  policies: RolePolicy[];
}

/** A recorded access, on the prod resource it stands for. */
export interface ProdAccess {
  functionName: string;
  operation: string;
  action: string;
  /** The resource's ARN, or * for an action IAM authorizes on * only. */
  resource: string;
  context: Record<string, string | string[]>;
}

/** One (action, resource) an Allow statement of a role grants. */
export interface Grant {
  role: string;
  policy: string;
  statement: string;
  action: string;
  resource: string;
  condition: unknown;
}

/** `Role action resource`, and the statement's Sid when a condition makes it one grant among several of that action and resource. */
export const grantText = (grant: Pick<Grant, 'role' | 'action' | 'resource' | 'statement' | 'condition'>): string =>
  `${grant.role} ${grant.action} ${grant.resource}${grant.condition === undefined ? '' : ` (${grant.statement})`}`;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** Every function of the template with its role, found by its handler's bundle (.build/<name>/index.handler). */
export function functionRoles(resolver: TemplateResolver): FunctionRole[] {
  return resolver.resourcesOfType('AWS::Lambda::Function').map(([logicalId, definition]) => {
    const properties = jsonObject(definition['Properties']);
    const handler = resolver.string(properties['Handler'], `${logicalId}.Handler`);
    const functionName = /^\.build\/([a-z-]+)\/index\.handler$/.exec(handler)?.[1];
    if (functionName === undefined) throw new Error(`${logicalId} has the handler ${handler}, not .build/<name>/index.handler`);
    const getAtt = jsonObject(properties['Role'])['Fn::GetAtt'];
    const [role, attribute] = Array.isArray(getAtt) ? getAtt : [];
    if (typeof role !== 'string' || attribute !== 'Arn') throw new Error(`${logicalId}'s Role is not Fn::GetAtt [<role>, Arn]`);
    const roleProperties = jsonObject(resolver.resource(role)['Properties']);
    if (roleProperties['ManagedPolicyArns'] !== undefined)
      throw new Error(`${role} has managed policies: the IAM check reads inline policies only`);
    const policies = list(resolver.resolve(roleProperties['Policies'])).map((policy) => {
      const { PolicyName, PolicyDocument } = jsonObject(policy);
      if (typeof PolicyName !== 'string' || !isRecord(PolicyDocument)) throw new Error(`${role} has a policy without a name or document`);
      return { name: PolicyName, document: PolicyDocument };
    });
    const variables = jsonObject(resolver.resolve(jsonObject(properties['Environment'])['Variables']));
    const environment = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, String(value)]));
    return { functionName, logicalId, role, environment, policies };
  });
}

/** The prod value of the function's environment variables that hold `local` in the test process. */
function prodValue(fn: FunctionRole, localEnv: Record<string, string | undefined>, local: string): string {
  const names = Object.keys(fn.environment).filter((name) => localEnv[name] === local);
  const values = [...new Set(names.map((name) => fn.environment[name]))];
  const [value] = values;
  if (values.length !== 1 || value === undefined || value === '') {
    throw new Error(
      `${fn.functionName} used "${local}", which no prod environment variable of its own names (${Object.keys(fn.environment).join(', ')})`,
    );
  }
  return value;
}

/**
 * The partition key of the template's table of this name (created here or not: the contracts table
 * belongs to another system in prod), or of its index when the call named one: what
 * dynamodb:LeadingKeys is then about.
 */
function partitionKeyOf(resolver: TemplateResolver, tableName: string, indexName?: string): string {
  const table = resolver
    .resourcesOfType('AWS::DynamoDB::Table', false)
    .find(([logicalId]) => resolver.property(logicalId, 'TableName') === tableName);
  if (table === undefined) throw new Error(`The template defines no table ${tableName}: its partition key is unknown`);
  const index = list(resolver.property(table[0], 'GlobalSecondaryIndexes'))
    .map(jsonObject)
    .find((candidate) => candidate['IndexName'] === indexName);
  if (indexName !== undefined && index === undefined) throw new Error(`${table[0]} has no index ${indexName}`);
  const hash = list(index === undefined ? resolver.property(table[0], 'KeySchema') : index['KeySchema'])
    .map(jsonObject)
    .find((key) => key['KeyType'] === 'HASH');
  const name = hash?.['AttributeName'];
  if (typeof name !== 'string') throw new Error(`${table[0]} has no HASH key`);
  return name;
}

const arnOfQueueUrl = (url: string): string => {
  const match = /^https:\/\/sqs\.[^/]+\/(\d{12})\/([^/]+)$/.exec(url);
  if (match?.[2] === undefined) throw new Error(`${url} is not an SQS queue URL`);
  return queueArn(match[2]);
};

/** A recorded access on the prod resource its local name stands for, with the condition keys IAM sees. */
export function toProdAccess(
  resolver: TemplateResolver,
  fn: FunctionRole,
  localEnv: Record<string, string | undefined>,
  call: SdkCall,
  access: Access,
): ProdAccess {
  const { resource: local } = access;
  const context: Record<string, string | string[]> = {
    'aws:PrincipalArn': roleArn(fn.role),
    'aws:PrincipalAccount': ACCOUNT_ID,
    ...access.context,
  };
  let resource: string;
  switch (local.kind) {
    case 'table': {
      const name = prodValue(fn, localEnv, local.name);
      resource = local.index === undefined ? tableArn(name) : `${tableArn(name)}/index/${local.index}`;
      if (Object.keys(access.attributes).length > 0) {
        const partitionKey = partitionKeyOf(resolver, name, local.index);
        const value = access.attributes[partitionKey];
        if (value === undefined) throw new Error(`${call.operation} of ${fn.functionName} on ${name} names no ${partitionKey}`);
        context['dynamodb:LeadingKeys'] = [value];
      }
      break;
    }
    case 'stream': {
      const table = /:table\/([^/]+)\/stream\//.exec(local.arn)?.[1];
      if (table === undefined) throw new Error(`${local.arn} is not a stream ARN`);
      resource = streamArn(prodValue(fn, localEnv, table));
      break;
    }
    case 'queue':
      resource = arnOfQueueUrl(prodValue(fn, localEnv, local.url));
      break;
    case 'bus':
      resource = busArn(local.name === 'default' ? 'default' : prodValue(fn, localEnv, local.name));
      break;
    case 'key': {
      // The prod value is the key's Ref (its id): the template's key with that id, by its ARN.
      const id = prodValue(fn, localEnv, local.id);
      const key = resolver.resourcesOfType('AWS::KMS::Key').find(([logicalId]) => resolver.resolve({ Ref: logicalId }) === id);
      if (key === undefined) throw new Error(`${fn.functionName} signs with ${id}, which is no key of the template`);
      resource = String(resolver.resolve({ 'Fn::GetAtt': [key[0], 'Arn'] }));
      break;
    }
    case 'all':
      resource = '*';
      break;
    case 'unknown':
      throw new Error(`${fn.functionName} made ${call.operation}, whose resource the recorder cannot place: ${local.why}`);
  }
  return { functionName: fn.functionName, operation: call.operation, action: access.action, resource, context };
}

/** The ARN of the KMS key the template's table or queue with this ARN is encrypted with, if one of its own. */
function keyOf(resolver: TemplateResolver, arn: string): string | undefined {
  const table = /^(arn:[^:]+:dynamodb:[^:]+:\d+:table\/[^/]+)/.exec(arn)?.[1];
  const stores: [string, string, (id: string) => unknown][] = [
    ['AWS::DynamoDB::Table', 'Arn', (id) => jsonObject(resolver.property(id, 'SSESpecification'))['KMSMasterKeyId']],
    ['AWS::SQS::Queue', 'Arn', (id) => resolver.property(id, 'KmsMasterKeyId')],
  ];
  for (const [type, attribute, key] of stores) {
    for (const [logicalId] of resolver.resourcesOfType(type)) {
      if (resolver.resolve({ 'Fn::GetAtt': [logicalId, attribute] }) !== (table ?? arn)) continue;
      const found = key(logicalId);
      return typeof found === 'string' && found.startsWith('arn:') ? found : undefined;
    }
  }
  return undefined;
}

/**
 * The uses of a KMS key AWS authorizes, with the caller's own permissions, for an access to a
 * table (its items or its stream) or a queue encrypted with a key of the template: DynamoDB
 * decrypts the table's key, SQS makes a data key to send and decrypts it to receive. KMS sees
 * them as calls through that service (kms:ViaService) from the caller's account.
 */
export function keyAccesses(resolver: TemplateResolver, access: ProdAccess): ProdAccess[] {
  const service = access.action.split(':')[0] ?? '';
  if (!['dynamodb', 'sqs'].includes(service) || access.resource === '*') return [];
  const key = keyOf(resolver, access.resource);
  if (key === undefined) return [];
  const context = {
    'aws:PrincipalArn': access.context['aws:PrincipalArn'] ?? '',
    'aws:PrincipalAccount': ACCOUNT_ID,
    'kms:CallerAccount': ACCOUNT_ID,
    'kms:ViaService': `${service}.${REGION}.amazonaws.com`,
  };
  const actions = access.action === 'sqs:SendMessage' ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:Decrypt'];
  return actions.map((action) => ({ ...access, operation: `${access.operation} (${access.action})`, action, resource: key, context }));
}

/**
 * The resource policy AWS also evaluates for a request on this resource: the event buses' and
 * queues' policies of the template that this deployment creates, and its KMS keys' policies.
 */
export function resourcePolicyFor(resolver: TemplateResolver, arn: string): Record<string, unknown> | undefined {
  for (const [logicalId] of resolver.resourcesOfType('AWS::KMS::Key')) {
    if (resolver.resolve({ 'Fn::GetAtt': [logicalId, 'Arn'] }) === arn) return jsonObject(resolver.property(logicalId, 'KeyPolicy'));
  }
  const statements: unknown[] = [];
  for (const [logicalId] of resolver.resourcesOfType('AWS::Events::EventBusPolicy')) {
    const bus = resolver.string(resolver.property(logicalId, 'EventBusName'), `${logicalId}.EventBusName`);
    if ((bus.startsWith('arn:') ? bus : busArn(bus)) !== arn) continue;
    statements.push({ Sid: resolver.property(logicalId, 'StatementId'), ...jsonObject(resolver.property(logicalId, 'Statement')) });
  }
  for (const [logicalId] of resolver.resourcesOfType('AWS::SQS::QueuePolicy')) {
    const queues = list(resolver.property(logicalId, 'Queues')).map(String).map(arnOfQueueUrl);
    if (queues.includes(arn)) statements.push(...list(jsonObject(resolver.property(logicalId, 'PolicyDocument'))['Statement']));
  }
  return statements.length === 0 ? undefined : { Version: '2012-10-17', Statement: statements };
}

/**
 * A copy of the policy where a single-valued operator on one of `keys` reads as the set
 * operator its effect means: an Allow holds when every value matches (ForAllValues), a Deny
 * when any does (ForAnyValue). See READ_AS_SET_OPERATOR in tests/integration/iam-calls.test.ts.
 */
export function withSetOperators(document: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const wanted = new Set(keys.map((key) => key.toLowerCase()));
  const statements = list(document['Statement']).map((statement) => {
    const { Condition, Effect } = jsonObject(statement);
    if (!isRecord(Condition)) return statement;
    const prefix = Effect === 'Deny' ? 'ForAnyValue:' : 'ForAllValues:';
    const condition: Record<string, Record<string, unknown>> = {};
    for (const [operator, tests] of Object.entries(Condition)) {
      for (const [key, values] of Object.entries(jsonObject(tests))) {
        const read = !operator.includes(':') && wanted.has(key.toLowerCase()) ? `${prefix}${operator}` : operator;
        condition[read] = { ...condition[read], [key]: values };
      }
    }
    return { ...jsonObject(statement), Condition: condition };
  });
  return { ...document, Statement: statements };
}

type StatementAnalysis = NonNullable<RequestAnalysis['identityAnalysis']>['unmatchedStatements'][number];

export interface Verdict {
  result: EvaluationResult | 'error';
  /** Why, when not Allowed: the statements for the action and what of each did not match. */
  why: string;
  /**
   * Context keys the policies test that the simulator dropped as not applying to the action: a
   * sign the check tests less than it seems.
   */
  ignoredContextKeys: string[];
}

function whyNot(results: RunSimulationResults): string {
  if (results.resultType === 'error') return JSON.stringify(results.errors);
  const analysis = results.resultType === 'single' ? results.result.analysis : results.results[0]?.analysis;
  const describe = (kind: string, statements: StatementAnalysis[] = []) =>
    statements
      .filter((statement) => statement.actionMatch)
      .map(
        (statement) =>
          `${kind} ${statement.policyId} ${statement.explain.identifier}: resource ${statement.resourceMatch ? 'matches' : 'differs'}, ` +
          `condition ${statement.conditionMatch}${JSON.stringify(statement.explain.conditions ?? [])}`,
      );
  const lines = [
    ...describe('identity allow', analysis?.identityAnalysis?.unmatchedStatements),
    ...describe('identity deny', analysis?.identityAnalysis?.denyStatements),
    ...describe('resource deny', analysis?.resourceAnalysis?.denyStatements),
  ];
  return lines.length === 0 ? 'no statement of the role names this action' : lines.join('; ');
}

/** The condition keys the policies' statements test, lower-cased. */
function conditionKeys(documents: (Record<string, unknown> | undefined)[]): Set<string> {
  const keys = new Set<string>();
  for (const document of documents) {
    for (const statement of list(document?.['Statement'])) {
      for (const tests of Object.values(jsonObject(jsonObject(statement)['Condition']))) {
        for (const key of Object.keys(jsonObject(tests))) keys.add(key.toLowerCase());
      }
    }
  }
  return keys;
}

/** Simulates one access by the function's role, with the resource's policy when it has one. */
export async function simulate(
  fn: FunctionRole,
  access: ProdAccess,
  options: { policies?: RolePolicy[]; resourcePolicy?: Record<string, unknown> | undefined; setOperatorKeys?: readonly string[] } = {},
): Promise<Verdict> {
  const keys = options.setOperatorKeys ?? [];
  const policies = options.policies ?? fn.policies;
  const results = await runSimulation(
    {
      request: {
        principal: `arn:aws:sts::${ACCOUNT_ID}:assumed-role/${fn.role}/${fn.functionName}`,
        action: access.action,
        resource: { resource: access.resource, accountId: ACCOUNT_ID },
        contextVariables: access.context,
      },
      identityPolicies: policies.map((policy) => ({ name: policy.name, policy: withSetOperators(policy.document, keys) })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(options.resourcePolicy === undefined ? {} : { resourcePolicy: withSetOperators(options.resourcePolicy, keys) }),
    },
    { simulationMode: 'Strict' },
  );
  if (results.resultType === 'error') return { result: 'error', why: whyNot(results), ignoredContextKeys: [] };
  const ignored =
    results.resultType === 'single' ? results.result.ignoredContextKeys : results.results.flatMap((r) => r.ignoredContextKeys ?? []);
  const tested = conditionKeys([...policies.map((policy) => policy.document), options.resourcePolicy]);
  return {
    result: results.overallResult,
    why: results.overallResult === 'Allowed' ? '' : whyNot(results),
    ignoredContextKeys: (ignored ?? []).filter((key) => tested.has(key.toLowerCase())),
  };
}

/** Every (action, resource) the Allow statements of the role's policies grant. */
export function grantsOf(fn: FunctionRole): Grant[] {
  return fn.policies.flatMap((policy) =>
    list(policy.document['Statement']).flatMap((raw, index) => {
      const statement = jsonObject(raw);
      if (statement['Effect'] !== 'Allow') return [];
      if (statement['NotAction'] !== undefined || statement['NotResource'] !== undefined) {
        throw new Error(`${fn.role} ${policy.name} has NotAction or NotResource: the grant check does not read them`);
      }
      const sid = typeof statement['Sid'] === 'string' ? statement['Sid'] : `#${index}`;
      return list(statement['Action']).flatMap((action) =>
        list(statement['Resource']).map((resource) => ({
          role: fn.role,
          policy: policy.name,
          statement: sid,
          action: String(action),
          resource: String(resource),
          condition: statement['Condition'],
        })),
      );
    }),
  );
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * True when one of the accesses is allowed by this grant alone (with the resource's own policy,
 * which a KMS key's use needs besides).
 */
export async function grantUsed(
  fn: FunctionRole,
  grant: Grant,
  accesses: ProdAccess[],
  setOperatorKeys: readonly string[],
  resourcePolicyOf: (arn: string) => Record<string, unknown> | undefined = () => undefined,
): Promise<boolean> {
  const pattern = new RegExp(`^${grant.action.split('*').map(escapeRegExp).join('.*')}$`, 'i');
  const document = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: grant.action,
        Resource: grant.resource,
        ...(grant.condition === undefined ? {} : { Condition: grant.condition }),
      },
    ],
  };
  for (const access of accesses.filter((a) => pattern.test(a.action))) {
    const verdict = await simulate(fn, access, {
      policies: [{ name: grant.policy, document }],
      resourcePolicy: resourcePolicyOf(access.resource),
      setOperatorKeys,
    });
    if (verdict.result === 'Allowed') return true;
  }
  return false;
}
