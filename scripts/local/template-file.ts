import { readFileSync } from 'node:fs';
import { isNode, isScalar, parseDocument, visit, type Node } from 'yaml';

/*
 * A CloudFormation file of resources/ as the framework reads it: YAML with CloudFormation's short
 * forms (!Ref, !Sub, !GetAtt, ...) turned into their long forms ({"Ref": ...}, {"Fn::Sub": ...})
 * and merge keys (<<) applied, for the local stack and the tests that read the deployed
 * definitions (tables, gateway answers, the rule's pattern) instead of copies of them.
 */

/** CloudFormation's functions that have a short form. */
const FUNCTIONS = ['And', 'Base64', 'Cidr', 'Condition', 'Equals', 'FindInMap', 'GetAtt', 'GetAZs', 'If', 'ImportValue', 'Join'].concat([
  'Not',
  'Or',
  'Ref',
  'Select',
  'Split',
  'Sub',
  'Transform',
]);

const longName = (name: string): string => (name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`);

/** The file `resources/<name>`, parsed, in CloudFormation's long form. */
export const templateFile = (name: string): Record<string, unknown> => yamlFile(`resources/${name}`);

/** A YAML file of the repository (serverless.yml, a file of resources/), parsed, CloudFormation's short forms in their long form. */
export function yamlFile(path: string): Record<string, unknown> {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  const document = parseDocument(text, {
    merge: true,
    customTags: FUNCTIONS.flatMap((fn) => [
      { tag: `!${fn}`, resolve: (value: string) => value },
      { tag: `!${fn}`, collection: 'seq' as const, resolve: (value: unknown) => value },
      { tag: `!${fn}`, collection: 'map' as const, resolve: (value: unknown) => value },
    ]),
  });
  if (document.errors.length > 0) throw new Error(`${path}: ${document.errors.map((e) => e.message).join('; ')}`);
  visit(document, {
    Node(_key, node: Node) {
      const fn = node.tag?.startsWith('!') === true ? node.tag.slice(1) : undefined;
      if (fn === undefined || !FUNCTIONS.includes(fn)) return undefined;
      node.tag = undefined;
      const argument: unknown =
        fn === 'GetAtt' && isScalar(node) && typeof node.value === 'string'
          ? [node.value.slice(0, node.value.indexOf('.')), node.value.slice(node.value.indexOf('.') + 1)]
          : node;
      const replaced = document.createNode({ [longName(fn)]: argument });
      return isNode(replaced) ? replaced : undefined;
    },
  });
  const parsed: unknown = document.toJS({ maxAliasCount: -1 });
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${path} is no mapping`);
  return Object.fromEntries(Object.entries(parsed));
}

/** The value at a path of keys and indexes of a parsed file; undefined where the path leads nowhere. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, key) => {
    if (Array.isArray(v)) return v[Number(key)];
    return typeof v === 'object' && v !== null ? Object.entries(v).find(([k]) => k === String(key))?.[1] : undefined;
  }, value);
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where} is not a string: ${JSON.stringify(value)}`);
  return value;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A table of resources/tables.yml, as far as DynamoDB Local needs it. */
export interface TableDefinition {
  attributes: { name: string; type: string }[];
  keys: { name: string; type: string }[];
  streamViewType: string | undefined;
  timeToLiveAttribute: string | undefined;
  globalIndexes: { name: string; keys: { name: string; type: string }[]; projectionType: string; attributes: string[] }[];
}

const keysOf = (schema: unknown, where: string) =>
  list(schema).map((k) => ({ name: text(at(k, 'AttributeName'), where), type: text(at(k, 'KeyType'), where) }));

export function tableDefinition(logicalId: string): TableDefinition {
  const properties = at(templateFile('tables.yml'), 'Resources', logicalId, 'Properties');
  const where = `resources/tables.yml ${logicalId}`;
  const ttl = at(properties, 'TimeToLiveSpecification');
  return {
    attributes: list(at(properties, 'AttributeDefinitions')).map((a) => ({
      name: text(at(a, 'AttributeName'), where),
      type: text(at(a, 'AttributeType'), where),
    })),
    keys: keysOf(at(properties, 'KeySchema'), where),
    streamViewType:
      at(properties, 'StreamSpecification') === undefined
        ? undefined
        : text(at(properties, 'StreamSpecification', 'StreamViewType'), where),
    timeToLiveAttribute: at(ttl, 'Enabled') === true ? text(at(ttl, 'AttributeName'), where) : undefined,
    globalIndexes: list(at(properties, 'GlobalSecondaryIndexes')).map((index) => ({
      name: text(at(index, 'IndexName'), where),
      keys: keysOf(at(index, 'KeySchema'), where),
      projectionType: text(at(index, 'Projection', 'ProjectionType'), where),
      attributes: list(at(index, 'Projection', 'NonKeyAttributes')).map((name) => text(name, where)),
    })),
  };
}

/** One of API Gateway's own answers (resources/api.yml). */
export interface GatewayResponseDefinition {
  logicalId: string;
  type: string;
  /** Absent for the DEFAULT_ types: the gateway keeps the status it had. */
  statusCode: string | undefined;
  /** gatewayresponse.header.<Name> to its value ('quoted' for a literal). */
  parameters: Record<string, string>;
  template: string;
}

export function gatewayResponses(): GatewayResponseDefinition[] {
  return Object.entries(at(templateFile('api.yml'), 'Resources') ?? {})
    .filter(([, resource]) => at(resource, 'Type') === 'AWS::ApiGateway::GatewayResponse')
    .map(([logicalId, resource]) => {
      const where = `resources/api.yml ${logicalId}`;
      const status = at(resource, 'Properties', 'StatusCode');
      return {
        logicalId,
        type: text(at(resource, 'Properties', 'ResponseType'), where),
        statusCode: status === undefined ? undefined : text(status, where),
        parameters: Object.fromEntries(
          Object.entries(at(resource, 'Properties', 'ResponseParameters') ?? {}).map(([name, value]) => [name, text(value, where)]),
        ),
        template: text(at(resource, 'Properties', 'ResponseTemplates', 'application/json'), where),
      };
    });
}
