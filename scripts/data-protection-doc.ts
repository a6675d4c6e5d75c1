import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { pathToFileURL } from 'node:url';
import { statusChangedEventSchema, statusDecisionSchema, submittedEventSchema } from '../lib/api-model/event-schemas';
import { terminationRequestDetailsSchema, terminationRequestInputSchema, terminationRequestSchema } from '../lib/api-model/schemas';
import { CUSTOMER_INDEX, CUSTOMER_INDEX_ATTRIBUTES } from '../lib/dynamodb/customer-requests';
import { limitKeyOf, requestKeyOf, slotKeyOf, type TableKey } from '../lib/dynamodb/keys';
import { NUMBER_INDEX, NUMBER_INDEX_ATTRIBUTES } from '../lib/dynamodb/request-by-number';
import { FINAL_STATUSES } from '../lib/termination/lifecycle';
import { packagedProdTemplate } from './inventory-doc';
import { at } from './local/template-file';

/*
 * npm run docs:data-protection: writes docs/data-protection.md, the record of processing: each
 * personal field, every place it goes, for how long and under which key. The fields are the
 * schemas' `x-personal-data` marks (lib/api-model/schemas.ts, event-schemas.ts), and what an event
 * or an answer carries is read from its schema; how long and under which key is read from the
 * template `serverless package` makes for prod (log retention, queue retention, the settings the
 * functions are given that set an item's expiry, point-in-time recovery, each store's KMS key); the
 * table's keys from lib/dynamodb/keys.ts. What goes into the table, the logs and the dead letters is
 * declared below and checked against what the code does (tests/integration/data-protection.test.ts);
 * tests/deploy/data-protection-doc.test.ts fails when the file and its sources disagree.
 */

export const DATA_PROTECTION_DOC = 'docs/data-protection.md';
/** What the code cannot know (purposes, legal basis, subjects, recipients, readers): the officer's words. */
export const RECORD_OF_PROCESSING = 'docs/record-of-processing.yml';

const ROW_FIELDS = {
  purposes: ['processing', 'purpose', 'legalBasis'],
  subjects: ['who', 'what'],
  recipients: ['who', 'how', 'role'],
  pseudonymousIds: ['id', 'where'],
  readers: ['who', 'what', 'logged'],
} as const;
type Section = keyof typeof ROW_FIELDS;

/** docs/record-of-processing.yml, each section a list of rows with every field given, as text. */
export function recordOfProcessing(source: string = readFileSync(RECORD_OF_PROCESSING, 'utf8')): Record<Section, string[][]> {
  const parsed: unknown = parse(source);
  const rowsOf = (section: Section): string[][] => {
    const rows: unknown = isObject(parsed) ? parsed[section] : undefined;
    if (!Array.isArray(rows) || rows.length === 0) throw new Error(`${RECORD_OF_PROCESSING}: ${section} must list rows`);
    return rows.map((row: unknown) =>
      ROW_FIELDS[section].map((field) => {
        const value = isObject(row) ? row[field] : undefined;
        if (typeof value !== 'string' || value.trim() === '')
          throw new Error(`${RECORD_OF_PROCESSING}: a row of ${section} lacks ${field}`);
        return value.trim();
      }),
    );
  };
  return {
    purposes: rowsOf('purposes'),
    subjects: rowsOf('subjects'),
    recipients: rowsOf('recipients'),
    pseudonymousIds: rowsOf('pseudonymousIds'),
    readers: rowsOf('readers'),
  };
}

/** The region the stack deploys to unless told another at deploy time: serverless.yml's default. */
export function defaultRegion(serverlessYml: string = readFileSync('serverless.yml', 'utf8')): string {
  const region = /^ {2}region: \$\{[^}]*'([a-z]{2}-[a-z]+-\d)'\}/m.exec(serverlessYml)?.[1];
  if (region === undefined) throw new Error('serverless.yml names no default region');
  return region;
}

const tableOf = (header: readonly string[], rows: string[][]) =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

type Template = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const code = (text: string) => `\`${text}\``;

/** Every property path a schema marks `x-personal-data`, nested objects as dotted paths. */
export function personalPaths(schema: unknown, prefix = ''): string[] {
  if (!isObject(schema) || !isObject(schema['properties'])) return [];
  return Object.entries(schema['properties']).flatMap(([name, property]) => {
    if (!isObject(property)) return [];
    const path = `${prefix}${name}`;
    // An array's items by `[]` (the details' timeline[].reason).
    return [
      ...(property['x-personal-data'] === true ? [path] : []),
      ...personalPaths(property, `${path}.`),
      ...personalPaths(property['items'], `${path}[].`),
    ];
  });
}

/** The schemas that carry personal fields, by name, with where each is seen. */
export const SCHEMAS = {
  TerminationRequestInput: { schema: terminationRequestInputSchema, seen: "the create's body" },
  TerminationRequest: {
    schema: terminationRequestSchema,
    seen: "the answers of the create, the get and both lists, and the details' `request`",
  },
  TerminationRequestDetails: { schema: terminationRequestDetailsSchema, seen: 'the details of a request, to the customer who made it' },
  TerminationRequestSubmitted: { schema: submittedEventSchema, seen: 'the event the service publishes for a new request' },
  TerminationRequestStatusChanged: { schema: statusChangedEventSchema, seen: 'the event the service publishes for a status change' },
  StatusDecision: { schema: statusDecisionSchema, seen: "the back office's decision" },
} as const;

export type SchemaName = keyof typeof SCHEMAS;

export interface PersonalField {
  id: string;
  what: string;
  from: string;
  /** The paths that name it in the schemas; none for what no schema carries. */
  paths: string[];
}

/** Each personal field the service handles; every path a schema marks is one of these (the test holds it). */
export const FIELDS: PersonalField[] = [
  {
    id: 'customerId',
    what: "the customer, as the bank's identity provider names them (`CUSTOMER_ID_CLAIM`, `sub` by default)",
    from: 'the token (the authorizer hands it to the function)',
    paths: ['customerId'],
  },
  {
    id: 'reasonCode',
    what: 'why the customer asks to end the contract early: a code of the reasons dictionary (moving, financial hardship, ...), which tells of their circumstances',
    from: "the create's body",
    paths: ['reasonCode', 'submitted.reasonCode'],
  },
  {
    id: 'desiredTerminationDate',
    what: 'the day the customer wants the contract to end',
    from: "the create's body",
    paths: ['desiredTerminationDate', 'submitted.desiredTerminationDate'],
  },
  {
    id: 'accountNumber',
    what: 'the account the refund goes to',
    from: "the create's body",
    paths: ['bankDetails.accountNumber', 'submitted.bankDetails.accountNumberLast4'],
  },
  {
    id: 'recipientName',
    what: "the refund's recipient",
    from: "the create's body",
    paths: ['bankDetails.recipientName', 'submitted.bankDetails.recipientName'],
  },
  { id: 'comment', what: "the customer's own words on the request", from: "the create's body", paths: ['comment', 'submitted.comment'] },
  {
    id: 'documentIds',
    what: "the ids of documents the customer uploaded (their contents stay with the documents' owner)",
    from: "the create's body",
    paths: ['documentIds', 'submitted.documentIds'],
  },
  {
    id: 'reason',
    what: "the bank's reason text, written by the back office for the customer (a decision's signature repeats it, encoded, not encrypted)",
    from: "the back office's decision",
    paths: ['reason', 'statusReason', 'signature', 'timeline[].reason'],
  },
  { id: 'sourceIp', what: "the caller's IP address", from: 'API Gateway', paths: [] },
  { id: 'userAgent', what: "the caller's `User-Agent`", from: 'API Gateway', paths: [] },
];

/** A field in a place, and how it is there when not as itself. */
export interface FieldUse {
  field: string;
  as?: string;
}

export interface Place {
  id: string;
  name: string;
  fields: (template: Template) => FieldUse[];
  kept: (template: Template) => string;
  key: (template: Template) => string;
  /** The setting whose period ends an item of this place (its `expiresAt`, DynamoDB's TTL); none for a place whose items never expire. */
  expiresBy?: string;
}

const resourceOf = (template: Template, id: string): unknown => at(template, 'Resources', id);

/** The bus's key: the stage's when the stack makes the bus, its owner's when it is given one (CREATE_EVENT_BUS=false). */
const busKey = (template: Template): string =>
  at(template, 'Parameters', 'CreateEventBusSetting', 'Default') === 'false'
    ? "its owner's: the stack was given a bus it did not make (`CREATE_EVENT_BUS=false`)"
    : keyOf(template, 'EventBus', 'KmsKeyIdentifier');

/** The fields a schema marks, as the record's fields. */
function schemaFields(name: SchemaName): FieldUse[] {
  return personalPaths(SCHEMAS[name].schema).map((path) => {
    const field = FIELDS.find((f) => f.paths.includes(path));
    if (field === undefined) throw new Error(`${name} marks ${path} personal, and no field of the record is it`);
    return { field: field.id, ...(path === field.paths[0] ? {} : { as: code(path) }) };
  });
}

/** The key a resource's property names: the stage's key by its alias, or AWS's own. */
function keyOf(template: Template, id: string, ...path: string[]): string {
  const named = at(resourceOf(template, id), 'Properties', ...path);
  const keyId = at(named, 'Fn::GetAtt', 0);
  if (typeof keyId !== 'string') return 'an AWS-owned or AWS-managed key';
  const resources = at(template, 'Resources');
  const alias = Object.values(isObject(resources) ? resources : {}).find(
    (r) => at(r, 'Type') === 'AWS::KMS::Alias' && at(r, 'Properties', 'TargetKeyId', 'Ref') === keyId,
  );
  const name = at(alias, 'Properties', 'AliasName');
  const aliasName = (typeof name === 'string' ? name : keyId).replace(/-prod$/, '-<stage>');
  return `the stage's key, ${code(aliasName)}`;
}

const days = (n: unknown) => `${String(n)} days`;
const hours = (seconds: unknown) => {
  const count = Number(seconds) / 3600;
  return `${String(count)} hour${count === 1 ? '' : 's'}`;
};

/** A setting the functions are given, as the template gives it: every function given it is given the same. */
export function settingOf(template: Template, name: string): string {
  const resources = at(template, 'Resources');
  const values = new Set(
    Object.values(isObject(resources) ? resources : {})
      .filter((resource) => at(resource, 'Type') === 'AWS::Lambda::Function')
      .map((resource) => at(resource, 'Properties', 'Environment', 'Variables', name))
      .flatMap((value) => (typeof value === 'string' || typeof value === 'number' ? [String(value)] : [])),
  );
  const [value, ...others] = [...values];
  if (value === undefined || others.length > 0)
    throw new Error(`The functions are given ${name} ${value === undefined ? 'nowhere' : `as ${[...values].join(' and ')}`}`);
  return value;
}

/**
 * How long the request item is kept once final (docs/decisions/0024-retention-by-calendar-year.md):
 * to the end of that calendar year in the business time zone plus REQUEST_RETENTION_YEARS, or a
 * test stage's REQUEST_RETENTION_DAYS from that moment.
 */
function retention(template: Template): string {
  const dayCount = settingOf(template, 'REQUEST_RETENTION_DAYS');
  if (dayCount !== '') return `${days(dayCount)} (\`REQUEST_RETENTION_DAYS\`, a test stage's period) after it became final`;
  const years = Number(settingOf(template, 'REQUEST_RETENTION_YEARS'));
  const zone = settingOf(template, 'BUSINESS_TIME_ZONE');
  return `to the end of the calendar year it became final in (${code(zone)}, \`BUSINESS_TIME_ZONE\`), then ${String(years)} whole year${years > 1 ? 's' : ''} (\`REQUEST_RETENTION_YEARS\`)`;
}

const ERASURE_RUNBOOK = '[`operations.md`](operations.md#a-customer-asks-to-be-erased)';
const DEPLOY_DOC = '[`deploy.md`](deploy.md)';
const LIMIT_RUNBOOK = '[`operations.md`](operations.md#a-customer-refused-by-the-limit)';
const keyName = ({ pk, sk }: TableKey) => `${code(pk)} / ${code(sk)}`;

/** A table another system owns, unless the stage makes a stand-in of its own (`setting` at package time, dev stages). */
const ownedElsewhere = (template: Template, parameter: string) => at(template, 'Parameters', parameter, 'Default') !== 'true';
const ownersRule = (template: Template, parameter: string, setting: string) =>
  ownedElsewhere(template, parameter)
    ? "its owner's rule"
    : `the stage's own stand-in (\`${setting}\`), demo data only, until the stack is removed`;
const ownersKey = (template: Template, parameter: string, resource: string) =>
  ownedElsewhere(template, parameter) ? "its owner's" : keyOf(template, resource, 'SSESpecification', 'KMSMasterKeyId');
const logRetention = (template: Template, id: string) =>
  `${days(at(resourceOf(template, id), 'Properties', 'RetentionInDays'))} on prod (\`LOG_RETENTION_DAYS\`)`;
const queueRetention = (template: Template, id: string) =>
  `${days(Number(at(resourceOf(template, id), 'Properties', 'MessageRetentionPeriod')) / 86400)}, or until redriven or deleted`;
const tableKey = (template: Template) => keyOf(template, 'RequestsTable', 'SSESpecification', 'KMSMasterKeyId');

/** The personal variables an access log line can hold, by the $context variable that fills it. */
const ACCESS_LOG_VARIABLES: Record<string, string> = {
  '$context.identity.sourceIp': 'sourceIp',
  '$context.identity.userAgent': 'userAgent',
  '$context.authorizer.customerId': 'customerId',
  '$context.authorizer.principalId': 'customerId',
};

/** The personal fields of the stage's access log format. */
function accessLogFields(template: Template): FieldUse[] {
  const format = at(resourceOf(template, 'ApiGatewayStage'), 'Properties', 'AccessLogSetting', 'Format');
  const parsed: unknown = JSON.parse(typeof format === 'string' ? format : '{}');
  return Object.values(isObject(parsed) ? parsed : {}).flatMap((variable) => {
    const field = ACCESS_LOG_VARIABLES[String(variable)];
    return field === undefined ? [] : [{ field }];
  });
}

/** The one rule that delivers the service's events (resources/events.yml): any other rule on the bus is another recipient (docs/security.md). */
const BACK_OFFICE_RULE =
  "through the stack's rule `contract-termination-<stage>-to-back-office`, to the bus or queue `BACK_OFFICE_EVENTS_TARGET_ARN` names";

const TABLE_FIELDS = [
  'customerId',
  'reasonCode',
  'desiredTerminationDate',
  'accountNumber',
  'recipientName',
  'comment',
  'documentIds',
  'reason',
];

/** Whether the stage is traced (`TRACING` at package time: the functions' and the API stage's X-Ray). */
const traced = (template: Template) => at(template, 'Parameters', 'TracingSetting', 'Default') === 'true';

/** How long API Gateway keeps the authorizer's answer for a token (`AUTHORIZER_CACHE_TTL_SECONDS`), in seconds. */
function authorizerCacheSeconds(template: Template): number {
  const resources = at(template, 'Resources');
  const ttls = Object.values(isObject(resources) ? resources : {})
    .filter((resource) => at(resource, 'Type') === 'AWS::ApiGateway::Authorizer')
    .map((resource) => Number(at(resource, 'Properties', 'AuthorizerResultTtlInSeconds') ?? 300));
  const [ttl, ...others] = ttls;
  if (ttl === undefined || others.length > 0) throw new Error(`The template has ${String(ttls.length)} authorizers, not one`);
  return ttl;
}

/** Every place personal data goes, in the order data flows. */
export const PLACES: Place[] = [
  {
    id: 'request-item',
    name: `the requests table: the request item (${keyName(requestKeyOf('<contractId>', '<requestId>'))})`,
    fields: () =>
      TABLE_FIELDS.map((field) =>
        field === 'reason'
          ? { field, as: "`statusReason`, and each status change's in `statusHistory`" }
          : field === 'customerId'
            ? { field, as: '`customerId`, and `requestedBy`, the key of the index by customer' }
            : { field },
      ),
    kept: (template) =>
      `while the request is active; once final (${FINAL_STATUSES.map(code).join(', ')}), ${retention(template)} (the write that made it final set its \`expiresAt\`), when DynamoDB's TTL deletes it, usually within days; erased sooner only as ${ERASURE_RUNBOOK} says`,
    key: tableKey,
    expiresBy: 'REQUEST_RETENTION_YEARS',
  },
  {
    id: 'customer-index',
    name: `the requests table's index by customer (\`${CUSTOMER_INDEX.name}\`): each request item's ${CUSTOMER_INDEX_ATTRIBUTES.map(code).join(', ')}, no bank details`,
    fields: () => [
      { field: 'customerId', as: `\`${CUSTOMER_INDEX.partitionKey}\`, its partition key` },
      { field: 'reason', as: '`statusReason`' },
    ],
    kept: () => 'as long as its request item: DynamoDB deletes the index item with it (its expiry or an erasure)',
    key: tableKey,
  },
  {
    id: 'number-index',
    name: `the requests table's index by number (\`${NUMBER_INDEX.name}\`): each request item's and active slot's ${NUMBER_INDEX_ATTRIBUTES.map(code).join(', ')} by its \`${NUMBER_INDEX.partitionKey}\`; the number item itself holds the number alone`,
    fields: () => [],
    kept: () => 'as long as its item: DynamoDB deletes the index item with it (its expiry, an erasure, the slot freed)',
    key: tableKey,
  },
  {
    id: 'slot-item',
    name: `the requests table: the contract's active slot (${keyName(slotKeyOf('<contractId>'))})`,
    fields: () => [{ field: 'customerId' }],
    kept: () => 'while the request is active: the final decision or the withdrawal deletes it',
    key: tableKey,
  },
  {
    id: 'limit-record',
    name: `the requests table: the customer's limit record on a contract (${keyName(limitKeyOf('<contractId>', '<customerId>'))}, the times of their latest requests there)`,
    fields: () => [{ field: 'customerId', as: "in the item's key and its `customerId`" }],
    kept: (template) =>
      `${days(settingOf(template, 'REQUEST_LIMIT_DAYS'))} (\`REQUEST_LIMIT_DAYS\`) after the customer's latest request on the contract, then DynamoDB's TTL deletes it, usually within days; deleted at once to lift the limit (${LIMIT_RUNBOOK})`,
    key: tableKey,
    expiresBy: 'REQUEST_LIMIT_DAYS',
  },
  {
    id: 'key-records',
    name: "the requests table: the key records (`IDEMPOTENCY#…`, `WITHDRAWAL#…`, each with its request's and contract's ids, the call's fingerprint (a hash of the contract and the body) and the answer given, which repeats the request's public fields)",
    fields: () => [{ field: 'customerId', as: "in the item's key" }],
    kept: (template) =>
      `${settingOf(template, 'IDEMPOTENCY_TTL_HOURS')} hours (\`IDEMPOTENCY_TTL_HOURS\`), then DynamoDB's TTL deletes them, usually within days`,
    key: tableKey,
    expiresBy: 'IDEMPOTENCY_TTL_HOURS',
  },
  {
    id: 'erasure-ledger',
    name: 'the erasure ledger (`contract-termination-<stage>-erasures`: the table keys each erasure removed, its request and contract ids, and when)',
    fields: () => [
      {
        field: 'customerId',
        as: `in the keys erased (\`IDEMPOTENCY#<customerId>#…\`, \`${limitKeyOf('<contractId>', '<customerId>').sk}\`)`,
      },
    ],
    kept: () =>
      "90 days after the erasure (`npm run erase -- --ledger-days`), past the requests table's point-in-time recovery: a table of its own, which a restore of the requests table does not roll back, read by `npm run erase -- --reapply-since` after one",
    key: (template) => keyOf(template, 'ErasureLedgerTable', 'SSESpecification', 'KMSMasterKeyId'),
  },
  {
    id: 'erasure-ledger-stream',
    name: "the erasure ledger's stream, read by the publisher, which tells the back office of each erasure (`TerminationRequestErased`: ids and the time only, no customer)",
    fields: () => [{ field: 'customerId', as: 'in the keys erased, which each new entry lists' }],
    kept: (template) =>
      `24 hours (DynamoDB Streams), ${String(at(resourceOf(template, 'ErasureLedgerTable'), 'Properties', 'StreamSpecification', 'StreamViewType')) === 'NEW_IMAGE' ? 'each new entry as written' : 'each change with its old and new item'}`,
    key: (template) => keyOf(template, 'ErasureLedgerTable', 'SSESpecification', 'KMSMasterKeyId'),
  },
  {
    id: 'backups',
    name: "the requests table's point-in-time recovery",
    fields: () => TABLE_FIELDS.map((field) => ({ field })),
    kept: (template) => {
      const recovery = at(resourceOf(template, 'RequestsTable'), 'Properties', 'PointInTimeRecoverySpecification');
      if (at(recovery, 'PointInTimeRecoveryEnabled') !== true) return 'not kept: point-in-time recovery is off';
      return `${days(at(recovery, 'RecoveryPeriodInDays') ?? 35)} of the table's history: an item changed or deleted stays restorable that long`;
    },
    key: tableKey,
  },
  {
    id: 'stream',
    name: "the requests table's stream, read by the publisher",
    fields: () => TABLE_FIELDS.map((field) => ({ field })),
    kept: (template) =>
      `24 hours (DynamoDB Streams), each change with its ${String(at(resourceOf(template, 'RequestsTable'), 'Properties', 'StreamSpecification', 'StreamViewType')) === 'NEW_AND_OLD_IMAGES' ? 'old and new' : 'new'} item`,
    key: tableKey,
  },
  {
    id: 'contracts',
    name: 'the contracts table, which another system owns',
    fields: () => [{ field: 'customerId', as: 'read to check that the contract is the caller’s; never written here' }],
    kept: (template) => ownersRule(template, 'CreateContractsTableSetting', 'CREATE_CONTRACTS_TABLE'),
    key: (template) => ownersKey(template, 'CreateContractsTableSetting', 'ContractsTable'),
  },
  {
    id: 'documents',
    name: 'the documents table, which the documents service owns',
    fields: () => [
      {
        field: 'customerId',
        as: "compared with each named document's owner inside the create's transaction (a `ConditionCheck`); nothing read back, never written here",
      },
      { field: 'documentIds', as: 'each the key of one `ConditionCheck`; never written here' },
    ],
    kept: (template) => ownersRule(template, 'CreateDocumentsTableSetting', 'CREATE_DOCUMENTS_TABLE'),
    key: (template) => ownersKey(template, 'CreateDocumentsTableSetting', 'DocumentsTable'),
  },
  {
    id: 'audit-trail',
    name: "the audit trail of the requests table's items (who read, wrote or deleted which item, and when)",
    fields: () => [{ field: 'customerId', as: 'in the key each call names, of a limit or key record' }],
    kept: (template) => {
      const name = String(at(resourceOf(template, 'AuditTrail'), 'Properties', 'TrailName')).replace(/-prod-/, '-<stage>-');
      const expiry = at(resourceOf(template, 'AuditLogBucket'), 'Properties', 'LifecycleConfiguration', 'Rules', 0, 'ExpirationInDays');
      const own = `${days(expiry)} (\`AUDIT_LOG_RETENTION_DAYS\`) in the bucket of the trail ${code(name)}, then S3 deletes each log file; read by the data-protection role (${ERASURE_RUNBOOK})`;
      // A stage packaged with AUDIT_TRAIL_ARN makes no trail of its own: the bank's trail holds the log.
      return at(resourceOf(template, 'AuditTrail'), 'Condition') === 'OwnAuditTrail'
        ? `${own}; or, on a stage deployed with \`AUDIT_TRAIL_ARN\`, in the bank's organisation trail it names, for that trail's retention and under its key (${DEPLOY_DOC})`
        : own;
    },
    key: (template) => keyOf(template, 'AuditTrail', 'KMSKeyId'),
  },
  {
    id: 'submitted-event',
    name: `the bus: \`TerminationRequestSubmitted\`, to the back office ${BACK_OFFICE_RULE}`,
    fields: () => schemaFields('TerminationRequestSubmitted'),
    kept: () => 'not stored by the bus (no archive); what the back office keeps is theirs to record',
    key: busKey,
  },
  {
    id: 'status-changed-event',
    name: `the bus: \`TerminationRequestStatusChanged\`, to the back office ${BACK_OFFICE_RULE}`,
    fields: () => schemaFields('TerminationRequestStatusChanged'),
    kept: () => 'not stored by the bus (no archive); what the back office keeps is theirs to record',
    key: busKey,
  },
  {
    id: 'decision-event',
    name: "the bus: the back office's decision, to the consumer",
    fields: () => schemaFields('StatusDecision'),
    kept: (template) =>
      `not stored by the bus; retried for up to ${hours(at(resourceOf(template, 'DecisionRule'), 'Properties', 'Targets', 0, 'RetryPolicy', 'MaximumEventAgeInSeconds'))} while the consumer cannot take it, then held by Lambda for up to ${hours(at(resourceOf(template, 'ApplyStatusDecisionInvokeConfig'), 'Properties', 'MaximumEventAgeInSeconds'))} while the consumer's attempts fail`,
    key: busKey,
  },
  {
    id: 'decision-dead-letters',
    name: 'the decision dead-letter queue (the whole decision, its signature included, with why it was not applied)',
    fields: () => schemaFields('StatusDecision'),
    kept: (template) => queueRetention(template, 'DecisionDeadLetterQueue'),
    key: (template) => keyOf(template, 'DecisionDeadLetterQueue', 'KmsMasterKeyId'),
  },
  {
    id: 'publisher-dead-letters',
    name: "the publisher's dead-letter queue (stream positions, no record)",
    fields: () => [],
    kept: (template) => queueRetention(template, 'PublisherDeadLetterQueue'),
    key: (template) => keyOf(template, 'PublisherDeadLetterQueue', 'KmsMasterKeyId'),
  },
  {
    id: 'function-logs',
    name: "the functions' logs",
    fields: () => [{ field: 'accountNumber', as: "its last four digits, on the create's answer lines, a replay's too (`refundAccount`)" }],
    kept: (template) => logRetention(template, 'CreateTerminationRequestLogGroup'),
    key: (template) => keyOf(template, 'CreateTerminationRequestLogGroup', 'KmsKeyId'),
  },
  {
    id: 'access-log',
    name: "the API's access log",
    fields: accessLogFields,
    kept: (template) => logRetention(template, 'ApiAccessLogGroup'),
    key: (template) => keyOf(template, 'ApiAccessLogGroup', 'KmsKeyId'),
  },
  {
    id: 'waf-log',
    name: "the WAF's log (prod: the requests it blocked or counted, their headers with `Authorization` redacted)",
    fields: () => [{ field: 'sourceIp' }, { field: 'userAgent' }],
    kept: (template) => logRetention(template, 'WafLogGroup'),
    key: (template) => keyOf(template, 'WafLogGroup', 'KmsKeyId'),
  },
  {
    id: 'insights-results',
    name: "CloudWatch Logs Insights' query results (what an operator's query of the functions' logs or the access log returned)",
    fields: (template) => ['function-logs', 'access-log'].flatMap((id) => PLACES.find((place) => place.id === id)?.fields(template) ?? []),
    kept: () =>
      '7 days after the query (CloudWatch Logs keeps each result for whoever may read it by its query id); no more than the lines queried hold',
    key: () =>
      "CloudWatch Logs' own encryption, not the log groups' key, unless the account associates a key with query results (`aws logs associate-kms-key --resource-identifier arn:aws:logs:<region>:<account>:query-result:*`, account-wide, not made by the stack)",
  },
  {
    id: 'xray',
    name: "X-Ray's traces (only on a stage packaged with `TRACING=true`: the functions' and the API stage's segments)",
    fields: (template) => (traced(template) ? [{ field: 'sourceIp' }, { field: 'userAgent' }] : []),
    kept: (template) =>
      traced(template)
        ? "30 days (X-Ray's own); API Gateway's segment of each traced call holds its URL (the contract's and request's ids), the caller's address and `User-Agent`; no body, no token, no DynamoDB item (the SDK calls are not traced)"
        : "none on this template: tracing is off (`TRACING`). Turned on, API Gateway's segment of each traced call would hold its URL (the contract's and request's ids), the caller's address and `User-Agent`, 30 days (X-Ray's own)",
    key: () => "X-Ray's own encryption unless the account sets a key for X-Ray (`aws xray put-encryption-config`, account-wide)",
  },
  {
    id: 'authorizer-cache',
    name: "API Gateway's cache of the authorizer's answers (per token: the policy and its context)",
    fields: (template) =>
      authorizerCacheSeconds(template) > 0
        ? [{ field: 'customerId', as: "in the context handed to the function, keyed by the caller's token" }]
        : [],
    kept: (template) => {
      const seconds = authorizerCacheSeconds(template);
      return seconds > 0
        ? `${String(seconds)} seconds per token (\`AUTHORIZER_CACHE_TTL_SECONDS\`), in API Gateway's memory; no API reads it`
        : 'not kept: the cache is off (`AUTHORIZER_CACHE_TTL_SECONDS` 0)';
    },
    key: () => "API Gateway's own: no API reads the cache",
  },
  {
    id: 'metrics',
    name: 'the metrics (counts per outcome, dimension `service` only)',
    fields: () => [],
    kept: () => "CloudWatch's own 15 months",
    key: () => 'none needed',
  },
  {
    id: 'alarm-topic',
    name: 'the alarm topic (alarm names, states, thresholds)',
    fields: () => [],
    kept: () => 'delivered, not stored',
    key: (template) => keyOf(template, 'AlarmTopic', 'KmsMasterKeyId'),
  },
  {
    id: 'answers',
    name: "the API's answers (create, get, both lists, a request's details to its owner)",
    fields: () => [...schemaFields('TerminationRequest'), ...schemaFields('TerminationRequestDetails')],
    kept: () => 'not kept: `Cache-Control: no-store`',
    key: () => 'TLS in transit',
  },
  {
    id: 'page',
    name: 'the demo page (`web/`)',
    fields: () => [
      ...['reasonCode', 'desiredTerminationDate', 'accountNumber', 'recipientName', 'comment', 'documentIds'].map((field) => ({
        field,
        as: `typed into the form and sent; ${field === 'accountNumber' ? 'its last four digits shown again' : 'shown again, as sent,'} under a request (its details)`,
      })),
      { field: 'reason', as: 'shown with the status, and each step’s under a request' },
    ],
    kept: () => "the page's life: it stores nothing in the browser",
    key: () => 'TLS in transit',
  },
];

/** The places a field goes, each with how it is there. */
export function placesOf(template: Template, field: string): { place: Place; as: string | undefined }[] {
  return PLACES.flatMap((place) =>
    place
      .fields(template)
      .filter((use) => use.field === field)
      .map((use) => ({ place, as: use.as })),
  );
}

export function buildDataProtectionDoc(
  template: Template,
  record: Record<Section, string[][]> = recordOfProcessing(),
  region: string = defaultRegion(),
): string {
  const fieldRows = FIELDS.map((field) => {
    const marked = Object.entries(SCHEMAS)
      .filter(([, { schema }]) => personalPaths(schema).some((path) => field.paths.includes(path)))
      .map(([name]) => code(name));
    return `| ${code(field.id)} | ${field.what} | ${field.from} | ${marked.length > 0 ? marked.join(', ') : 'no schema: the access log'} |`;
  });
  const perField = FIELDS.map((field) =>
    [
      `### ${code(field.id)}`,
      '',
      '| where | how | kept | key |',
      '|---|---|---|---|',
      ...placesOf(template, field.id).map(
        ({ place, as }) => `| ${place.name} | ${as ?? 'as sent'} | ${place.kept(template)} | ${place.key(template)} |`,
      ),
    ].join('\n'),
  );
  const placeRows = PLACES.map((place) => {
    const fields = [...new Set(place.fields(template).map((use) => code(use.field)))];
    return `| ${place.name} | ${fields.length > 0 ? fields.join(', ') : 'none'} | ${place.kept(template)} | ${place.key(template)} |`;
  });
  return `# Record of processing: personal data

Generated by \`npm run docs:data-protection\` (\`scripts/data-protection-doc.ts\`) from
[\`record-of-processing.yml\`](record-of-processing.yml) (what the code cannot know: purposes, legal
basis, subjects, recipients, who reads), from the schemas'
\`x-personal-data\` marks (\`lib/api-model/schemas.ts\`, \`lib/api-model/event-schemas.ts\`) and from the
template \`serverless package\` makes for prod: how long each store keeps what it holds and under
which key. \`tests/deploy/data-protection-doc.test.ts\` fails when this file and those disagree;
\`tests/integration/data-protection.test.ts\` holds the table, the logs, the events and the
dead letters to what is written here. A change that sends a personal field somewhere new changes
this record. The key, and who may use it: [\`inventory.md\`](inventory.md); the key's design:
[\`decisions/0014-deployment-safety.md\`](decisions/0014-deployment-safety.md).

What the back office keeps of the events it receives is its own to record, as are the contracts
table's owner's and the documents service's. The local stack (\`npm start\`) writes what it
publishes and its dead letters to \`.local/\` files, with demo data only.

A customer who asks to be erased:
${ERASURE_RUNBOOK} says what can be deleted before its time, by
whom, and what stays, place by place as below.

## Purposes and legal basis

${tableOf(['processing', 'purpose', 'legal basis'], record.purposes)}

## Whose data

${tableOf(['data subject', 'what of theirs'], record.subjects)}

## Who receives it

${tableOf(['recipient', 'how', 'as'], record.recipients)}

## Where the data is

Every store, function, log and the bus of the stack are in one AWS region: the one the stack is
deployed to, \`${region}\` unless the deploy names another (\`serverless.yml\`, \`--region\` or
\`AWS_REGION\`). Which region is the bank's choice under its data-localisation duty (152-FZ art. 18
part 5), made before the first deploy ([\`deploy.md\`](deploy.md)).

## Ids that point to a person

These ids name no one by themselves, and are personal data all the same (pseudonymous): each
leads to a customer through a store that holds both. They go where the fields below do, and also:

${tableOf(
  ['id', 'where it goes'],
  record.pseudonymousIds.map(([id = '', where = '']) => [code(id), where]),
)}

## Who may read it, and where the reads are logged

${tableOf(['who', 'what', 'where the reads are logged'], record.readers)}

## The personal fields

| field | what | comes from | marked in |
|---|---|---|---|
${fieldRows.join('\n')}

**Logs carry none of them whole.** The functions log ids (\`contractId\`, \`requestId\`,
\`correlationId\`, API Gateway's \`apiRequestId\`), statuses and outcomes; of the refund account only
its last four digits, on the create's answer lines. The decision consumer logs a decision's ids,
its status and why it was refused, never its reason nor its signature. The customer's id is in
no log line and in no access log line: on-call finds one customer's calls through their contracts
([\`operations.md\`](operations.md#finding-one-customers-calls)).

## Where each field goes

${perField.join('\n\n')}

## Every place

| place | personal fields | kept | key |
|---|---|---|---|
${placeRows.join('\n')}
`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(DATA_PROTECTION_DOC, buildDataProtectionDoc(packagedProdTemplate()));
  console.log(`wrote ${DATA_PROTECTION_DOC}`);
}
