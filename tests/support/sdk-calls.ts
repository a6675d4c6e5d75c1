import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/*
 * Records every AWS SDK v3 command the code under test sends, attributed to the function whose
 * handler sent it: installSdkRecorder() wraps `send` of the one smithy Client every SDK client
 * (and the DynamoDB document client) extends, and recordCallsOf(name, run) marks, through
 * AsyncLocalStorage, the calls made while `run` runs. Calls outside any recordCallsOf (a test's
 * own setup and reads) are not recorded. Nothing in lib/ changes.
 *
 * Each call is kept as IAM sees it: the accesses AWS authorizes for it (a transaction is one
 * access per item, with the item's own action), each on a resource named as the test process
 * named it (local table names, local queue URLs); tests/support/iam-check.ts maps them to prod.
 */

/** A resource as the function named it in this process. */
export type LocalResource =
  | { kind: 'table'; name: string; index?: string }
  | { kind: 'stream'; arn: string }
  | { kind: 'queue'; url: string }
  | { kind: 'bus'; name: string }
  /** A KMS key, by the id or ARN the call named. */
  | { kind: 'key'; id: string }
  /** An action IAM authorizes on `*` only (dynamodb:ListStreams). */
  | { kind: 'all' }
  /** A call this recorder cannot place: the IAM check refuses it, so a new kind of call is noticed. */
  | { kind: 'unknown'; why: string };

/** One authorization AWS makes for a call. */
export interface Access {
  /** The IAM action: dynamodb:PutItem for a transaction's Put. */
  action: string;
  resource: LocalResource;
  /**
   * The string attributes of the item's key, of the item put, or of the Query's key condition
   * (its equalities): the IAM check takes the partition key (dynamodb:LeadingKeys) from them.
   */
  attributes: Record<string, string>;
  /** Condition keys the request carries: dynamodb:EnclosingOperation, events:source, events:detail-type. */
  context: Record<string, string | string[]>;
}

export interface SdkCall {
  functionName: string;
  /** The API operation with IAM's service prefix: dynamodb:TransactWriteItems, events:PutEvents. */
  operation: string;
  accesses: Access[];
}

const storage = new AsyncLocalStorage<string>();
const calls: SdkCall[] = [];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A DynamoDB value as text: the document client's plain value, or the low-level client's {S} / {N}. */
function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (isRecord(value)) return text(value['S']) ?? text(value['N']);
  return undefined;
}

function scalars(item: unknown): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of Object.entries(isRecord(item) ? item : {})) {
    const textValue = scalar(value);
    if (textValue !== undefined) found[name] = textValue;
  }
  return found;
}

const unknown = (why: string): LocalResource => ({ kind: 'unknown', why });

function tableOf(input: Record<string, unknown>): LocalResource {
  const name = text(input['TableName']);
  if (name === undefined) return unknown('no TableName');
  const index = text(input['IndexName']);
  return index === undefined ? { kind: 'table', name } : { kind: 'table', name, index };
}

/** The equalities of a key condition (`pk = :pk AND begins_with(sk, :p)` gives pk). */
function keyConditionEqualities(input: Record<string, unknown>): Record<string, string> {
  const expression = text(input['KeyConditionExpression']) ?? '';
  const names = isRecord(input['ExpressionAttributeNames']) ? input['ExpressionAttributeNames'] : {};
  const values = isRecord(input['ExpressionAttributeValues']) ? input['ExpressionAttributeValues'] : {};
  const found: Record<string, string> = {};
  for (const [, name = '', placeholder = ''] of expression.matchAll(/(#?[\w.]+)\s*=\s*(:\w+)/g)) {
    const attribute = name.startsWith('#') ? text(names[name]) : name;
    const value = scalar(values[placeholder]);
    if (attribute !== undefined && value !== undefined) found[attribute] = value;
  }
  return found;
}

function access(action: string, resource: LocalResource, attributes: Record<string, string> = {}, context: Access['context'] = {}): Access {
  return { action, resource, attributes, context };
}

/** What IAM authorizes for one item of a transaction: the item's own action, inside the transaction. */
function transactionItem(item: Record<string, unknown>, enclosing: string): Access[] {
  const context = { 'dynamodb:EnclosingOperation': enclosing };
  const kinds: [string, string, string][] = [
    ['Put', 'dynamodb:PutItem', 'Item'],
    ['Update', 'dynamodb:UpdateItem', 'Key'],
    ['Delete', 'dynamodb:DeleteItem', 'Key'],
    ['ConditionCheck', 'dynamodb:ConditionCheckItem', 'Key'],
    ['Get', 'dynamodb:GetItem', 'Key'],
  ];
  return kinds.flatMap(([member, action, keyField]) => {
    const part = item[member];
    return isRecord(part) ? [access(action, tableOf(part), scalars(part[keyField]), context)] : [];
  });
}

function dynamoDbAccesses(operation: string, input: Record<string, unknown>): Access[] {
  const action = `dynamodb:${operation}`;
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [access(action, tableOf(input), scalars(input['Key']))];
    case 'PutItem':
      return [access(action, tableOf(input), scalars(input['Item']))];
    case 'Query':
      return [access(action, tableOf(input), keyConditionEqualities(input))];
    case 'Scan':
      return [access(action, tableOf(input))];
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return records(input['TransactItems']).flatMap((item) => transactionItem(item, operation));
    case 'BatchGetItem':
    case 'BatchWriteItem': {
      const tables = isRecord(input['RequestItems']) ? Object.entries(input['RequestItems']) : [];
      return tables.flatMap(([name, request]) => {
        const keys = isRecord(request)
          ? records(request['Keys'])
          : records(request).map((write) => {
              const put = write['PutRequest'];
              const remove = write['DeleteRequest'];
              return isRecord(put) ? put['Item'] : isRecord(remove) ? remove['Key'] : undefined;
            });
        return keys.map((key) => access(action, { kind: 'table', name }, scalars(key)));
      });
    }
    case 'DescribeStream':
    case 'GetShardIterator': {
      const arn = text(input['StreamArn']);
      return [access(action, arn === undefined ? unknown('no StreamArn') : { kind: 'stream', arn })];
    }
    case 'GetRecords': {
      // A shard iterator begins with its stream's ARN (`<stream ARN>|...`), in AWS as in DynamoDB Local.
      const arn = /^(arn:[^|]+:table\/[^/|]+\/stream\/[^|]+)\|/.exec(text(input['ShardIterator']) ?? '')?.[1];
      return [access(action, arn === undefined ? unknown('a shard iterator that names no stream') : { kind: 'stream', arn })];
    }
    case 'ListStreams':
      return [access(action, { kind: 'all' })];
    default:
      return [access(action, input['TableName'] === undefined ? unknown(`${operation} is not placed by the recorder`) : tableOf(input))];
  }
}

/** SQS batch calls are authorized as their single action. */
const SQS_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

function sqsAccesses(operation: string, input: Record<string, unknown>): Access[] {
  const url = text(input['QueueUrl']);
  return [access(`sqs:${SQS_ACTIONS[operation] ?? operation}`, url === undefined ? unknown('no QueueUrl') : { kind: 'queue', url })];
}

/** PutEvents is authorized per entry, on the entry's bus, with its source and detail type. */
function eventBridgeAccesses(operation: string, input: Record<string, unknown>): Access[] {
  if (operation !== 'PutEvents') return [access(`events:${operation}`, unknown(`${operation} is not placed by the recorder`))];
  return records(input['Entries']).map((entry) => {
    const source = text(entry['Source']);
    const detailType = text(entry['DetailType']);
    return access(
      'events:PutEvents',
      { kind: 'bus', name: text(entry['EventBusName']) ?? 'default' },
      {},
      {
        ...(source === undefined ? {} : { 'events:source': [source] }),
        ...(detailType === undefined ? {} : { 'events:detail-type': [detailType] }),
      },
    );
  });
}

/** KMS's Sign, on the key it names, with the algorithm and message type the key policy's conditions read. */
function kmsAccesses(operation: string, input: Record<string, unknown>): Access[] {
  const id = text(input['KeyId']);
  if (operation !== 'Sign' || id === undefined) return [access(`kms:${operation}`, unknown(`${operation} is not placed by the recorder`))];
  const context = {
    ...(text(input['SigningAlgorithm']) === undefined ? {} : { 'kms:SigningAlgorithm': String(input['SigningAlgorithm']) }),
    ...(text(input['MessageType']) === undefined ? {} : { 'kms:MessageType': String(input['MessageType']) }),
  };
  return [access('kms:Sign', { kind: 'key', id }, {}, context)];
}

/** The client's service (its config's serviceId) as IAM's prefix. */
const IAM_PREFIXES: Record<string, string> = {
  DynamoDB: 'dynamodb',
  'DynamoDB Streams': 'dynamodb',
  SQS: 'sqs',
  EventBridge: 'events',
  KMS: 'kms',
};

function serviceIdOf(client: unknown): string {
  const config = isRecord(client) ? client['config'] : undefined;
  return (isRecord(config) ? text(config['serviceId']) : undefined) ?? 'unknown';
}

/** The operation a command sends: a document-client command wraps the low-level one. */
function operationOf(command: unknown): string {
  if (!isRecord(command)) return 'Unknown';
  const inner = command['clientCommand'];
  const schema = isRecord(inner) ? inner['schema'] : command['schema'];
  const fromSchema: unknown = Array.isArray(schema) ? schema[2] : undefined;
  if (typeof fromSchema === 'string') return fromSchema;
  const prototype: unknown = Object.getPrototypeOf(isRecord(inner) ? inner : command);
  const constructor = isRecord(prototype) ? prototype['constructor'] : undefined;
  return typeof constructor === 'function' ? constructor.name.replace(/Command$/, '') : 'Unknown';
}

function describeCall(functionName: string, client: unknown, command: unknown): SdkCall {
  const serviceId = serviceIdOf(client);
  const prefix = IAM_PREFIXES[serviceId] ?? serviceId.toLowerCase().replace(/\s+/g, '');
  const operation = operationOf(command);
  const input = isRecord(command) && isRecord(command['input']) ? command['input'] : {};
  const accesses =
    prefix === 'dynamodb'
      ? dynamoDbAccesses(operation, input)
      : prefix === 'sqs'
        ? sqsAccesses(operation, input)
        : prefix === 'events'
          ? eventBridgeAccesses(operation, input)
          : prefix === 'kms'
            ? kmsAccesses(operation, input)
            : [access(`${prefix}:${operation}`, unknown(`the recorder does not know ${serviceId}`))];
  return { functionName, operation: `${prefix}:${operation}`, accesses };
}

/** The prototype every SDK client's `send` comes from; one for all, or the recorder would miss calls. */
function clientPrototype(): object {
  const prototypes = [DynamoDBClient, DynamoDBDocumentClient, SQSClient, EventBridgeClient].map((client): unknown =>
    Object.getPrototypeOf(client.prototype),
  );
  const [shared] = prototypes;
  if (typeof shared !== 'object' || shared === null || prototypes.some((prototype) => prototype !== shared)) {
    throw new Error('The AWS SDK clients do not extend one smithy Client: two copies of @smithy/core are installed');
  }
  return shared;
}

/** Starts recording; returns the function that stops it. Install once per test file. */
export function installSdkRecorder(): () => void {
  const prototype = clientPrototype();
  const original: unknown = Reflect.get(prototype, 'send');
  if (typeof original !== 'function') throw new Error('The smithy Client has no send method');
  Object.defineProperty(prototype, 'send', {
    configurable: true,
    writable: true,
    value: function recordedSend(this: unknown, ...args: unknown[]): unknown {
      const functionName = storage.getStore();
      if (functionName !== undefined) calls.push(describeCall(functionName, this, args[0]));
      return Reflect.apply(original, this, args);
    },
  });
  return () => {
    Object.defineProperty(prototype, 'send', { configurable: true, writable: true, value: original });
  };
}

/** Runs `run` with the SDK calls it makes, however deep, attributed to the function `functionName`. */
export function recordCallsOf<T>(functionName: string, run: () => Promise<T>): Promise<T> {
  return storage.run(functionName, run);
}

/** The calls recorded so far, in the order they were sent; of one function when named. */
export function recordedCalls(functionName?: string): SdkCall[] {
  return calls.filter((call) => functionName === undefined || call.functionName === functionName);
}

/** Runs `run` attributed to `functionName` and returns what it answered with the calls it made. */
export async function callsDuring<T>(functionName: string, run: () => Promise<T>): Promise<{ answer: T; calls: SdkCall[] }> {
  const before = calls.length;
  const answer = await recordCallsOf(functionName, run);
  return { answer, calls: calls.slice(before).filter((call) => call.functionName === functionName) };
}
