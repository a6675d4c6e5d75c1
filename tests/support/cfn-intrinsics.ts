import { jsonObject } from './json';

/*
 * Resolves the CloudFormation intrinsics of a packaged template as CloudFormation would in one
 * fixed account and region, for the IAM check (tests/integration/iam-calls.test.ts): exactly the
 * intrinsics the template uses (Ref, including its parameters' defaults, Fn::GetAtt, Fn::Sub, Fn::Join, Fn::If, and in Conditions
 * Fn::Equals and Fn::Not), and for Ref and Fn::GetAtt exactly the resource types and attributes
 * it refers to. Anything else throws, naming what to add, so a new intrinsic is never guessed.
 */

export const ACCOUNT_ID = '123456789012';
export const REGION = 'eu-central-1';
export const PARTITION = 'aws';

/** A table's stream ARN ends in its creation time, known only once deployed: this fixed label stands for it. */
export const STREAM_LABEL = '2026-01-01T00:00:00.000';

export const tableArn = (name: string): string => `arn:${PARTITION}:dynamodb:${REGION}:${ACCOUNT_ID}:table/${name}`;
export const streamArn = (tableName: string): string => `${tableArn(tableName)}/stream/${STREAM_LABEL}`;
export const queueUrl = (name: string): string => `https://sqs.${REGION}.amazonaws.com/${ACCOUNT_ID}/${name}`;
export const queueArn = (name: string): string => `arn:${PARTITION}:sqs:${REGION}:${ACCOUNT_ID}:${name}`;
export const busArn = (name: string): string => `arn:${PARTITION}:events:${REGION}:${ACCOUNT_ID}:event-bus/${name}`;
export const roleArn = (name: string): string => `arn:${PARTITION}:iam::${ACCOUNT_ID}:role/${name}`;
/** A key's id is made when it is created: its logical id stands for it. */
export const keyArn = (logicalId: string): string => `arn:${PARTITION}:kms:${REGION}:${ACCOUNT_ID}:key/${logicalId}`;

/** What Ref AWS::NoValue leaves: the property or list element is dropped. */
const NO_VALUE = Symbol('AWS::NoValue');

const PSEUDO_PARAMETERS: Record<string, string> = {
  'AWS::AccountId': ACCOUNT_ID,
  'AWS::Region': REGION,
  'AWS::Partition': PARTITION,
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class TemplateResolver {
  private readonly resources: Record<string, unknown>;
  private readonly conditions: Record<string, unknown>;
  private readonly parameters: Record<string, unknown>;

  constructor(template: Record<string, unknown>) {
    this.resources = jsonObject(template['Resources']);
    this.conditions = jsonObject(template['Conditions']);
    this.parameters = template['Parameters'] === undefined ? {} : jsonObject(template['Parameters']);
  }

  /** The value with every intrinsic resolved; undefined where AWS::NoValue leaves nothing. */
  resolve(value: unknown): unknown {
    const resolved = this.value(value);
    return resolved === NO_VALUE ? undefined : resolved;
  }

  /** A resolved value that must be a string. */
  string(value: unknown, what: string): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new Error(`${what} does not resolve to a string: ${JSON.stringify(resolved)}`);
    return resolved;
  }

  /** A named condition of the template, evaluated. */
  condition(name: string): boolean {
    if (!(name in this.conditions)) throw new Error(`The template has no condition ${name}`);
    return this.truth(this.conditions[name]);
  }

  /**
   * Logical ids and definitions of the resources of a type: those this deployment creates (their
   * Condition holds), or all of them when `onlyCreated` is false.
   */
  resourcesOfType(type: string, onlyCreated = true): [string, Record<string, unknown>][] {
    return Object.entries(this.resources)
      .filter((entry): entry is [string, Record<string, unknown>] => isRecord(entry[1]) && entry[1]['Type'] === type)
      .filter(([, resource]) => !onlyCreated || typeof resource['Condition'] !== 'string' || this.condition(resource['Condition']));
  }

  /** A resource's definition, whether its Condition holds or not. */
  resource(logicalId: string): Record<string, unknown> {
    const resource = this.resources[logicalId];
    if (!isRecord(resource)) throw new Error(`The template has no resource ${logicalId}`);
    return resource;
  }

  /** A resolved property of a resource. */
  property(logicalId: string, name: string): unknown {
    return this.resolve(jsonObject(this.resource(logicalId)['Properties'])[name]);
  }

  private value(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.value(item)).filter((item) => item !== NO_VALUE);
    if (!isRecord(value)) return value;
    const keys = Object.keys(value);
    const [key] = keys;
    if (keys.length === 1 && key !== undefined && (key === 'Ref' || key.startsWith('Fn::'))) return this.intrinsic(key, value[key]);
    return Object.fromEntries(
      Object.entries(value)
        .map(([name, item]): [string, unknown] => [name, this.value(item)])
        .filter(([, item]) => item !== NO_VALUE),
    );
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return argument === 'AWS::NoValue' ? NO_VALUE : this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? argument : String(argument).split('.');
        return this.getAtt(String(logicalId), String(attribute));
      }
      case 'Fn::Sub':
        return this.sub(argument);
      case 'Fn::Join': {
        const [delimiter, items] = Array.isArray(argument) ? argument : [];
        const parts = this.value(items);
        if (typeof delimiter !== 'string' || !Array.isArray(parts)) throw new Error(`Fn::Join of ${JSON.stringify(argument)}`);
        return parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(delimiter);
      }
      case 'Fn::Select': {
        const [index, items] = Array.isArray(argument) ? argument : [];
        const list = this.value(items);
        if (!Array.isArray(list)) throw new Error(`Fn::Select of ${JSON.stringify(argument)}`);
        return list[Number(index)];
      }
      case 'Fn::Split': {
        const [delimiter, text] = Array.isArray(argument) ? argument : [];
        if (typeof delimiter !== 'string') throw new Error(`Fn::Split of ${JSON.stringify(argument)}`);
        return this.string(text, 'Fn::Split').split(delimiter);
      }
      case 'Fn::If': {
        const [condition, whenTrue, whenFalse] = Array.isArray(argument) ? argument : [];
        return this.value(this.condition(String(condition)) ? whenTrue : whenFalse);
      }
      default:
        throw new Error(`${name} is not resolved by tests/support/cfn-intrinsics.ts: add it there`);
    }
  }

  private truth(condition: unknown): boolean {
    if (!isRecord(condition)) throw new Error(`Not a condition: ${JSON.stringify(condition)}`);
    if (Array.isArray(condition['Fn::Equals'])) {
      const [a, b] = condition['Fn::Equals'].map((side) => this.resolve(side));
      return JSON.stringify(a) === JSON.stringify(b);
    }
    if (Array.isArray(condition['Fn::Not'])) return !this.truth(condition['Fn::Not'][0]);
    throw new Error(`The condition ${JSON.stringify(condition)} is not evaluated by tests/support/cfn-intrinsics.ts: add it there`);
  }

  private ref(name: string): string {
    const pseudo = PSEUDO_PARAMETERS[name];
    if (pseudo !== undefined) return pseudo;
    // A template parameter takes its default: the deploy passes no values of its own.
    if (name in this.parameters) return this.string(jsonObject(this.parameters[name])['Default'], `parameter ${name}`);
    const type = this.resource(name)['Type'];
    switch (type) {
      case 'AWS::DynamoDB::Table':
        return this.string(this.property(name, 'TableName'), `${name}.TableName`);
      case 'AWS::SQS::Queue':
        return queueUrl(this.getAtt(name, 'QueueName'));
      case 'AWS::Events::EventBus':
        return this.string(this.property(name, 'Name'), `${name}.Name`);
      case 'AWS::Lambda::Function':
        return this.string(this.property(name, 'FunctionName'), `${name}.FunctionName`);
      case 'AWS::IAM::Role':
        return this.roleName(name);
      // Buckets and log groups the stack names by CloudFormation's generated name or its own: the logical id stands for a generated one.
      case 'AWS::S3::Bucket':
        return name.toLowerCase();
      case 'AWS::Logs::LogGroup':
        return this.string(this.property(name, 'LogGroupName'), `${name}.LogGroupName`);
      // A key's Ref is its id: the last part of its ARN.
      case 'AWS::KMS::Key':
        return keyArn(name).slice(keyArn(name).lastIndexOf('/') + 1);
      default:
        throw new Error(`Ref of a ${String(type)} (${name}) is not resolved by tests/support/cfn-intrinsics.ts: add it there`);
    }
  }

  private getAtt(logicalId: string, attribute: string): string {
    const type = this.resource(logicalId)['Type'];
    switch (`${String(type)}.${attribute}`) {
      case 'AWS::DynamoDB::Table.Arn':
        return tableArn(this.ref(logicalId));
      case 'AWS::DynamoDB::Table.StreamArn':
        return streamArn(this.ref(logicalId));
      case 'AWS::SQS::Queue.QueueName':
        return this.string(this.property(logicalId, 'QueueName'), `${logicalId}.QueueName`);
      case 'AWS::SQS::Queue.Arn':
        return queueArn(this.getAtt(logicalId, 'QueueName'));
      case 'AWS::IAM::Role.Arn':
        return roleArn(this.roleName(logicalId));
      case 'AWS::Lambda::Function.Arn':
        return `arn:${PARTITION}:lambda:${REGION}:${ACCOUNT_ID}:function:${this.ref(logicalId)}`;
      case 'AWS::Events::EventBus.Name':
        return this.ref(logicalId);
      case 'AWS::Events::EventBus.Arn':
        return busArn(this.ref(logicalId));
      case 'AWS::KMS::Key.Arn':
        return keyArn(logicalId);
      case 'AWS::S3::Bucket.Arn':
        return `arn:${PARTITION}:s3:::${this.ref(logicalId)}`;
      case 'AWS::Events::Rule.Arn': {
        const bus = this.property(logicalId, 'EventBusName');
        const name = this.string(this.property(logicalId, 'Name'), `${logicalId}.Name`);
        return `arn:${PARTITION}:events:${REGION}:${ACCOUNT_ID}:rule/${typeof bus === 'string' && bus !== 'default' ? `${bus}/` : ''}${name}`;
      }
      default:
        throw new Error(
          `Fn::GetAtt ${logicalId}.${attribute} (${String(type)}) is not resolved by tests/support/cfn-intrinsics.ts: add it there`,
        );
    }
  }

  /** A role without RoleName gets a generated name once deployed: its logical id stands for it. */
  private roleName(logicalId: string): string {
    const name = this.property(logicalId, 'RoleName');
    return typeof name === 'string' ? name : logicalId;
  }

  private sub(argument: unknown): string {
    const [template, variables] = Array.isArray(argument) ? argument : [argument, {}];
    if (typeof template !== 'string') throw new Error(`Fn::Sub of ${JSON.stringify(argument)}`);
    const given = jsonObject(this.resolve(variables));
    return template.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      const value = given[name];
      if (typeof value === 'string') return value;
      const dot = name.indexOf('.');
      return dot < 0 ? this.ref(name) : this.getAtt(name.slice(0, dot), name.slice(dot + 1));
    });
  }
}
