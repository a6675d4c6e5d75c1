import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ERROR_CODES, OUTCOMES } from '../lib/http/outcomes';
import { at } from './local/template-file';

/*
 * npm run docs:inventory: writes docs/inventory.md, what the prod stack is made of, from the
 * template `serverless package` makes for prod and from the error map the answers use: the
 * routes, the functions with their triggers, the exact grants of each role, on-call's policy, the
 * stage's key (what it protects, its policy, who uses it), the stack's buckets and their policies, the alarms, and the error codes. Other docs link to it instead of restating counts and lists that drift;
 * tests/deploy/inventory-doc.test.ts fails when the file and the template disagree. It writes
 * docs/operations.md's table of who may delete what, too.
 */

export const INVENTORY_DOC = 'docs/inventory.md';

/** Placeholder identity settings: packaging needs them, the inventory does not show them. */
export const PLACEHOLDER_SETTINGS = {
  JWT_ISSUER: 'https://issuer.example',
  JWT_AUDIENCE: 'termination-api',
  JWKS_URI: 'https://issuer.example/.well-known/jwks.json',
  DECISION_JWKS_URI: 'https://back-office.example/.well-known/jwks.json',
  BACK_OFFICE_EVENTS_TARGET_ARN: 'arn:aws:sqs:eu-central-1:123456789012:back-office-events',
  CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere',
  DOCUMENTS_TABLE_NAME: 'documents-owned-elsewhere',
};

type Template = Record<string, unknown>;

const entries = (value: unknown): [string, unknown][] => (typeof value === 'object' && value !== null ? Object.entries(value) : []);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);
const ofType = (template: Template, type: string): [string, unknown][] =>
  entries(at(template, 'Resources')).filter(([, resource]) => at(resource, 'Type') === type);
const code = (text: string) => `\`${text}\``;

/** A resource of a statement, or a reference, as a person reads it. */
function described(value: unknown): string {
  if (typeof value === 'string') return value === '*' ? '`*`' : code(value.replace(/^arn:[^:]*:[^:]*:[^:]*:[^:]*:/, ''));
  const sub = at(value, 'Fn::Sub');
  if (sub !== undefined) {
    const text = String(Array.isArray(sub) ? sub[0] : sub);
    return code(text.replace(/^arn:\$\{AWS::Partition\}:[a-z0-9-]+:(\$\{AWS::Region\})?:(\$\{AWS::AccountId\})?:/, ''));
  }
  const getAtt = at(value, 'Fn::GetAtt');
  if (Array.isArray(getAtt)) return `${code(String(getAtt[0]))}${getAtt[1] === 'Arn' ? '' : ` (${String(getAtt[1])})`}`;
  const ref = at(value, 'Ref');
  if (typeof ref === 'string') return code(ref);
  return code(JSON.stringify(value));
}

/** The logical id of the function an integration, a target or a mapping names. */
function functionNamed(value: unknown): string | undefined {
  return /"([A-Za-z0-9]+LambdaFunction)"/.exec(JSON.stringify(value))?.[1];
}

function routes(template: Template): { method: string; path: string; fn: string }[] {
  const resources = new Map(ofType(template, 'AWS::ApiGateway::Resource'));
  const pathOf = (id: unknown): string => {
    const ref = at(id, 'Ref');
    const resource = typeof ref === 'string' ? resources.get(ref) : undefined;
    if (resource === undefined) return '';
    return `${pathOf(at(resource, 'Properties', 'ParentId'))}/${String(at(resource, 'Properties', 'PathPart'))}`;
  };
  return ofType(template, 'AWS::ApiGateway::Method')
    .filter(([, method]) => at(method, 'Properties', 'HttpMethod') !== 'OPTIONS')
    .map(([, method]) => ({
      method: String(at(method, 'Properties', 'HttpMethod')),
      path: pathOf(at(method, 'Properties', 'ResourceId')),
      fn: functionNamed(at(method, 'Properties', 'Integration')) ?? '?',
    }))
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

function triggers(template: Template): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const add = (fn: string | undefined, what: string) => {
    if (fn !== undefined) found.set(fn, [...(found.get(fn) ?? []), what]);
  };
  for (const route of routes(template)) add(route.fn, `${route.method} ${code(route.path)}`);
  for (const [, authorizer] of ofType(template, 'AWS::ApiGateway::Authorizer'))
    add(functionNamed(at(authorizer, 'Properties', 'AuthorizerUri')), 'API Gateway, before every route (authorizer)');
  for (const [id, rule] of ofType(template, 'AWS::Events::Rule'))
    for (const target of list(at(rule, 'Properties', 'Targets'))) add(functionNamed(at(target, 'Arn')), `EventBridge rule ${code(id)}`);
  for (const [id, mapping] of ofType(template, 'AWS::Lambda::EventSourceMapping')) {
    // The stream's table, by its logical id: the source's `Fn::GetAtt: [<table>, StreamArn]`.
    const table = list(at(mapping, 'Properties', 'EventSourceArn', 'Fn::GetAtt'))[0];
    add(functionNamed(at(mapping, 'Properties', 'FunctionName')), `the stream of ${code(String(table))} (${code(id)})`);
  }
  return found;
}

/** The services a kms:ViaService condition names, as `dynamodb`, `sqs`. */
function viaServices(condition: unknown): string[] {
  return list(at(condition, 'StringEquals', 'kms:ViaService')).map((service) =>
    code(
      described(service)
        .replace(/^`|`$/g, '')
        .replace(/\.\$\{AWS::Region\}\.amazonaws\.com$/, ''),
    ),
  );
}

/** A condition as a person reads it: each key with its values. */
function conditionText(condition: unknown): string {
  return entries(condition)
    .flatMap(([operator, tests]) =>
      entries(tests).map(([key, values]) => {
        const shown = list(values).map((value) =>
          at(value, 'Ref') === 'AWS::AccountId'
            ? 'this account'
            : (typeof value === 'string' ? code(value) : described(value)).replaceAll('${AWS::Region}', '<region>'),
        );
        return `${code(key)} ${operator.replace(/^String|^Arn/, '').toLowerCase() || 'equals'} ${shown.join(' or ')}`;
      }),
    )
    .join('; ');
}

/** One statement of an identity policy as a line: its actions on its resources, and what its condition says. */
function statementLine(statement: unknown): string {
  const actions = list(at(statement, 'Action')).map((a) => code(String(a)));
  const resources = list(at(statement, 'Resource')).map(described);
  const condition = at(statement, 'Condition');
  const services = viaServices(condition);
  const when = condition === undefined ? '' : services.length > 0 ? `, only through ${services.join(' or ')}` : ', with a condition';
  return `${actions.join(', ')} on ${resources.join(', ')}${when}`;
}

function grants(template: Template, role: string): string[] {
  const policies = list(at(template, 'Resources', role, 'Properties', 'Policies'));
  const rows = policies.flatMap((policy) => list(at(policy, 'PolicyDocument', 'Statement')).map(statementLine));
  const traced = ofType(template, 'AWS::IAM::Policy').filter(([, policy]) =>
    list(at(policy, 'Properties', 'Roles')).some((r) => at(r, 'Ref') === role),
  );
  for (const [id, policy] of traced) {
    const actions = list(at(policy, 'Properties', 'PolicyDocument', 'Statement')).flatMap((s) =>
      list(at(s, 'Action')).map((a) => code(String(a))),
    );
    rows.push(`${actions.join(', ')} on \`*\`, when traced (${code(id)})`);
  }
  return rows;
}

const COMPARISONS: Record<string, string> = {
  GreaterThanThreshold: '>',
  GreaterThanOrEqualToThreshold: '≥',
  LessThanThreshold: '<',
  LessThanOrEqualToThreshold: '≤',
};

function alarms(template: Template): string[] {
  return ofType(template, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => {
    const properties = at(alarm, 'Properties');
    const metric =
      at(properties, 'MetricName') === undefined
        ? list(at(properties, 'Metrics'))
            .map((m) => at(m, 'MetricStat', 'Metric', 'MetricName'))
            .filter((m) => m !== undefined)
            .map(String)
            .join(' + ')
        : `${String(at(properties, 'Namespace'))} ${String(at(properties, 'MetricName'))}`;
    const name = String(at(properties, 'AlarmName')).replace(/^contract-termination-prod-/, '');
    const operator = COMPARISONS[String(at(properties, 'ComparisonOperator'))] ?? String(at(properties, 'ComparisonOperator'));
    return `| ${code(id)} | ${code(name)} | ${metric} | ${operator} ${String(at(properties, 'Threshold'))} |`;
  });
}

/** What is encrypted with a KMS key of the template, by the property that names it. */
const KEY_PROPERTIES: Record<string, string[]> = {
  'AWS::DynamoDB::Table': ['SSESpecification', 'KMSMasterKeyId'],
  'AWS::Events::EventBus': ['KmsKeyIdentifier'],
  'AWS::SQS::Queue': ['KmsMasterKeyId'],
  'AWS::Logs::LogGroup': ['KmsKeyId'],
  'AWS::SNS::Topic': ['KmsMasterKeyId'],
};

/** The key section: the key, what it protects, its policy, and the IAM policies that use it. */
function keySection(template: Template): string {
  const keys = ofType(template, 'AWS::KMS::Key');
  if (keys.length === 0) return 'No customer-managed key: every store uses an AWS key.';
  return keys
    .map(([keyId, key]) => {
      const aliases = ofType(template, 'AWS::KMS::Alias')
        .filter(([, alias]) => at(alias, 'Properties', 'TargetKeyId', 'Ref') === keyId)
        .map(([, alias]) => code(String(at(alias, 'Properties', 'AliasName'))));
      const protectedBy = Object.entries(KEY_PROPERTIES).flatMap(([type, path]) =>
        ofType(template, type)
          .filter(([, r]) => at(at(r, 'Properties'), ...path, 'Fn::GetAtt', 0) === keyId)
          .map(([id, r]) => `${code(id)}${at(r, 'Condition') === undefined ? '' : ' (when made)'}`),
      );
      const policy = list(at(key, 'Properties', 'KeyPolicy', 'Statement')).map((statement) => {
        const principal = at(statement, 'Principal');
        const who =
          at(principal, 'AWS') === undefined
            ? `the service ${described(at(principal, 'Service'))}`
            : `principals of this account${list(at(statement, 'Action')).some((a) => /^kms:(Decrypt|Encrypt|GenerateDataKey|ReEncrypt|CreateGrant)/.test(String(a))) ? ' whose own IAM policy allows it' : ''}`;
        const actions = list(at(statement, 'Action')).map((a) => code(String(a)));
        const condition = at(statement, 'Condition');
        return `| ${code(String(at(statement, 'Sid')))} | ${who} | ${actions.join(', ')} | ${condition === undefined ? 'always' : conditionText(condition)} |`;
      });
      const users = [
        ...ofType(template, 'AWS::IAM::Role').flatMap(([roleId, role]) =>
          list(at(role, 'Properties', 'Policies')).flatMap((p) =>
            list(at(p, 'PolicyDocument', 'Statement'))
              .filter((st) => at(st, 'Resource', 'Fn::GetAtt', 0) === keyId)
              .map((st) => `- ${code(roleId)}: ${statementLine(st)}`),
          ),
        ),
        ...ofType(template, 'AWS::IAM::ManagedPolicy').flatMap(([, managed]) =>
          list(at(managed, 'Properties', 'PolicyDocument', 'Statement'))
            .filter((st) => at(st, 'Resource', 'Fn::GetAtt', 0) === keyId)
            .map((st) => `- the policy ${code(String(at(managed, 'Properties', 'ManagedPolicyName')))} (on-call): ${statementLine(st)}`),
        ),
      ];
      return [
        `${code(keyId)}${aliases.length > 0 ? `, alias ${aliases.join(', ')}` : ''}: rotation ${at(key, 'Properties', 'EnableKeyRotation') === true ? 'on' : 'off'}, ` +
          `${at(key, 'DeletionPolicy') === 'Retain' ? 'kept' : 'deleted'} when the stack is deleted. It protects ${protectedBy.join(', ')}.`,
        '',
        'Its policy, statement by statement (nothing in it is open to everyone):',
        '',
        '| statement | who | may | when |',
        '|---|---|---|---|',
        ...policy,
        '',
        "Who uses it through the account's statement, by their own IAM policies:",
        '',
        ...users,
      ].join('\n');
    })
    .join('\n\n');
}

/** A role's ARN as a person reads it: the role, in the decisions' account (the back office's, or this one). */
const roleOf = (arn: string): string => {
  const role = /:role\/([\w+=,.@-]+)/.exec(arn)?.[1];
  return role === undefined
    ? arn
    : `the role ${code(role.replace(/^contract-termination-prod-/, 'contract-termination-<stage>-'))} of the decisions' account`;
};

/** The stack's own buckets (the framework's deployment bucket aside): how each is kept, and its policy statement by statement. */
function bucketSection(template: Template): string {
  const policies = ofType(template, 'AWS::S3::BucketPolicy');
  return ofType(template, 'AWS::S3::Bucket')
    .filter(([id]) => id !== 'ServerlessDeploymentBucket')
    .map(([id, bucket]) => {
      const properties = at(bucket, 'Properties');
      const encryption = at(properties, 'BucketEncryption', 'ServerSideEncryptionConfiguration', 0, 'ServerSideEncryptionByDefault');
      const blocked = entries(at(properties, 'PublicAccessBlockConfiguration')).every(([, value]) => value === true);
      const statements = policies
        .filter(([, policy]) => at(policy, 'Properties', 'Bucket', 'Ref') === id)
        .flatMap(([, policy]) => list(at(policy, 'Properties', 'PolicyDocument', 'Statement')))
        .map((statement) => {
          const principal = at(statement, 'Principal');
          const who =
            principal === '*'
              ? 'everyone'
              : at(principal, 'Service') !== undefined
                ? `the service ${described(at(principal, 'Service'))}`
                : roleOf(described(at(principal, 'AWS')));
          const condition = at(statement, 'Condition');
          return `| ${code(String(at(statement, 'Sid')))} | ${String(at(statement, 'Effect'))} | ${who} | ${list(at(statement, 'Action'))
            .map((a) => code(String(a)))
            .join(
              ', ',
            )} | ${list(at(statement, 'Resource')).map(described).join(', ')} | ${condition === undefined ? 'always' : conditionText(condition)} |`;
        });
      return [
        `${code(id)}: encrypted with ${at(encryption, 'SSEAlgorithm') === 'AES256' ? "S3's own key" : described(at(encryption, 'KMSMasterKeyID'))}, ` +
          `public access ${blocked ? 'blocked' : 'NOT blocked'}, versioning ${at(properties, 'VersioningConfiguration', 'Status') === 'Enabled' ? 'on' : 'off'}, ` +
          `${at(bucket, 'DeletionPolicy') === 'Retain' ? 'kept' : 'deleted'} when the stack is deleted. Its policy:`,
        '',
        '| statement | effect | who | may | on | when |',
        '|---|---|---|---|---|---|',
        ...statements,
      ].join('\n');
    })
    .join('\n\n');
}

/** The managed policies the stack makes for people (on-call), statement by statement. */
function managedPolicies(template: Template): string {
  const policies = ofType(template, 'AWS::IAM::ManagedPolicy');
  if (policies.length === 0) return 'None.';
  return policies
    .map(([id, policy]) =>
      [
        `${code(String(at(policy, 'Properties', 'ManagedPolicyName')))} (${code(id)}), attached to no one by the stack: ${String(at(policy, 'Properties', 'Description'))}. It may:`,
        '',
        ...list(at(policy, 'Properties', 'PolicyDocument', 'Statement')).map((st) => `- ${statementLine(st)}`),
      ].join('\n'),
    )
    .join('\n\n');
}

/** What a partition-key pattern of a grant's dynamodb:LeadingKeys covers in the requests table (lib/dynamodb/keys.ts). */
const ITEMS_UNDER: Record<string, string> = {
  'CONTRACT#*':
    "a contract's request items, its active slot and its customers' limit records (one partition: the key cannot tell them apart)",
  'NUMBER#*': 'the request numbers',
};

/** The DynamoDB actions that delete an item. */
const DELETES = /^dynamodb:(DeleteItem|BatchWriteItem|\*)$/;

/** Every role and policy of the template that may delete items, with what, read from its Allow statements. */
export function deletionsTable(template: Template): string {
  const holders: [string, unknown[]][] = [
    ...ofType(template, 'AWS::IAM::Role').map(([id, role]): [string, unknown[]] => [
      code(id),
      list(at(role, 'Properties', 'Policies')).flatMap((p) => list(at(p, 'PolicyDocument', 'Statement'))),
    ]),
    ...ofType(template, 'AWS::IAM::ManagedPolicy').map(([id, policy]): [string, unknown[]] => [
      `${code(id)} (on-call)`,
      list(at(policy, 'Properties', 'PolicyDocument', 'Statement')),
    ]),
  ];
  const rows = holders.flatMap(([who, statements]) =>
    statements
      .filter((st) => at(st, 'Effect') === 'Allow' && list(at(st, 'Action')).some((action) => DELETES.test(String(action))))
      .map((st) => {
        const leading = list(at(st, 'Condition', 'ForAllValues:StringLike', 'dynamodb:LeadingKeys')).map(String);
        const what =
          leading.length === 0
            ? 'any item'
            : leading.map((pattern) => `${ITEMS_UNDER[pattern] ?? 'items'} (${code(`pk ${pattern}`)})`).join('; ');
        const actions = list(at(st, 'Action'))
          .map(String)
          .filter((action) => DELETES.test(action))
          .map(code);
        const resources = list(at(st, 'Resource'))
          .map(described)
          .join(', ')
          .replaceAll('contract-termination-prod-', 'contract-termination-<stage>-');
        return `| ${who} | ${actions.join(', ')} | ${resources} | ${what} |`;
      }),
  );
  const others = holders.filter(([who]) => !rows.some((row) => row.startsWith(`| ${who} |`))).map(([who]) => who);
  return [
    '| role or policy | may call | on | which items |',
    '|---|---|---|---|',
    ...rows,
    '',
    `No other role or policy of the stack may delete an item: ${others.join(', ')}.`,
  ].join('\n');
}

export const OPERATIONS_DOC = 'docs/operations.md';
const DELETIONS_START = '<!-- who may delete: generated by npm run docs:inventory from the prod template -->';
const DELETIONS_END = '<!-- end of who may delete -->';

/** docs/operations.md with its table of who may delete what made afresh from the template. */
export function withDeletionsTable(operations: string, template: Template): string {
  const start = operations.indexOf(DELETIONS_START);
  const end = operations.indexOf(DELETIONS_END);
  if (start < 0 || end < start) throw new Error(`${OPERATIONS_DOC} has no ${DELETIONS_START} ... ${DELETIONS_END} block`);
  return `${operations.slice(0, start + DELETIONS_START.length)}\n${deletionsTable(template)}\n${operations.slice(end)}`;
}

/** The roles the stack makes for people (not a function's, not a service's), statement by statement. */
function peopleRoles(template: Template): string {
  const functionRoles = new Set(ofType(template, 'AWS::Lambda::Function').map(([, fn]) => at(fn, 'Properties', 'Role', 'Fn::GetAtt', 0)));
  const roles = ofType(template, 'AWS::IAM::Role').filter(
    ([id, role]) =>
      !functionRoles.has(id) &&
      list(at(role, 'Properties', 'AssumeRolePolicyDocument', 'Statement')).every((st) => at(st, 'Principal', 'AWS') !== undefined),
  );
  if (roles.length === 0) return 'None.';
  return roles
    .map(([id, role]) =>
      [
        `${code(String(at(role, 'Properties', 'RoleName')))} (${code(id)}): ${String(at(role, 'Properties', 'Description'))}. It may:`,
        '',
        ...grants(template, id).map((g) => `- ${g}`),
      ].join('\n'),
    )
    .join('\n\n');
}

export function buildInventoryDoc(template: Template): string {
  const fns = ofType(template, 'AWS::Lambda::Function');
  const triggered = triggers(template);
  const nameOf = (id: string): string =>
    String(at(template, 'Resources', id, 'Properties', 'FunctionName')).replace(/^contract-termination-prod-/, '');
  const routeRows = routes(template).map((r) => `| ${r.method} | ${code(r.path)} | ${code(nameOf(r.fn))} |`);
  const functionSections = fns.map(([id, fn]) => {
    const properties = at(fn, 'Properties');
    const role = String(at(properties, 'Role', 'Fn::GetAtt', 0));
    const reserved = at(properties, 'ReservedConcurrentExecutions');
    const description = String(at(properties, 'Description'));
    return [
      `### ${code(nameOf(id))}`,
      '',
      `${/^(GET|POST) /.test(description) ? '' : `${description}. `}Called by: ${(triggered.get(id) ?? ['nothing']).join('; ')}. ` +
        `Timeout ${String(at(properties, 'Timeout'))} s, ${String(at(properties, 'MemorySize'))} MB` +
        `${typeof reserved === 'number' ? `, ${String(reserved)} reserved` : ''}. Role ${code(role)} may:`,
      '',
      ...grants(template, role).map((g) => `- ${g}`),
    ].join('\n');
  });
  const errorRows = ERROR_CODES.map((errorCode) => `| ${code(errorCode)} | ${String(OUTCOMES[errorCode].status)} |`);
  return `# What the stack is made of

Generated by \`npm run docs:inventory\` from the template \`serverless package\` makes for \`prod\`
and from the service's error map; \`tests/deploy/inventory-doc.test.ts\` fails when this file and
the code disagree. Other documents link here rather than repeat these lists. Why each piece is
there: [\`architecture.md\`](architecture.md), [\`deploy.md\`](deploy.md),
[\`security.md\`](security.md); what to do when an alarm fires: [\`operations.md\`](operations.md).

## Routes

${routes(template).length} routes, each behind the authorizer and proxied to its own function;
any other path or method is \`404 ROUTE_NOT_FOUND\`.

| method | path | function |
|---|---|---|
${routeRows.join('\n')}

## Functions and what each role may do

${fns.length} functions, each with a role of its own, trusting only Lambda acting for this
account; besides the grants below, no managed policy.

${functionSections.join('\n\n')}

## On call

${managedPolicies(template)}

## Data protection

${peopleRoles(template)}

## The stage's key

${keySection(template)}

## Buckets

${bucketSection(template)}

## Alarms

| resource | name (\`contract-termination-<stage>-…\`) | metric | fires when |
|---|---|---|---|
${alarms(template).join('\n')}

## Error codes

Every \`errorCode\` a function answers, with its status ([\`api.md\`](api.md) says when; the
gateway's and the WAF's own answers are in [\`decisions/0011-error-body.md\`](decisions/0011-error-body.md)).

| errorCode | status |
|---|---|
${errorRows.join('\n')}
`;
}

/** The prod template, packaged with placeholder settings into a folder that is removed after. */
export function packagedProdTemplate(): Template {
  const dir = mkdtempSync(join(tmpdir(), 'inventory-'));
  try {
    const serverless = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
    execFileSync(process.execPath, [serverless, 'package', '--stage', 'prod', '--package', dir], {
      env: { ...process.env, ...PLACEHOLDER_SETTINGS, SLS_TELEMETRY_DISABLED: '1' },
      stdio: 'ignore',
    });
    const parsed: unknown = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
    return Object.fromEntries(entries(parsed));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const template = packagedProdTemplate();
  writeFileSync(INVENTORY_DOC, buildInventoryDoc(template));
  writeFileSync(OPERATIONS_DOC, withDeletionsTable(readFileSync(OPERATIONS_DOC, 'utf8'), template));
  console.log(`wrote ${INVENTORY_DOC} and the table of who may delete what in ${OPERATIONS_DOC}`);
}
