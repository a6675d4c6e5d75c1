import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  JAVA_JACKSON_PRESET,
  JavaFileGenerator,
  KotlinFileGenerator,
  javaDefaultPropertyKeyConstraints,
  kotlinDefaultPropertyKeyConstraints,
} from '@asyncapi/modelina';
import { buildAsyncApi } from './asyncapi';

/*
 * npm run events:models [-- --out <dir>]: Java and Kotlin models of every message of
 * docs/asyncapi.yaml (the EventBridge event and its detail), made by @asyncapi/modelina for the
 * back office (docs/events.md, Models for the back office). Java gets Jackson's annotations (the
 * envelope's `detail-type` is `detailType`); Kotlin plain data classes, which any Kotlin compiler
 * takes. tests/generators/event-models.test.ts compiles both and reads every sample event of
 * events/ into the Java ones. Written to .local/event-models/ unless told otherwise.
 */

export const EVENT_MODELS_PACKAGE = 'bank.termination.events';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const pascal = (name: string) => name.replace(/(^|[-_ ])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());

/**
 * The description with a name (`$id`) on each inline enum and object, after the schema and the
 * property it belongs to (TerminationRequestSubmittedStatus, ...), so that no model comes out
 * anonymous. Only the generator's copy is named: the description stays as the code has it.
 */
function named(schema: unknown, owner: string): unknown {
  if (!isObject(schema)) return schema;
  const properties = isObject(schema['properties']) ? schema['properties'] : undefined;
  if (properties === undefined) return schema;
  const renamed = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      if (!isObject(property) || property['$ref'] !== undefined) return [name, property];
      const id = `${owner}${pascal(name)}`;
      const inner = named(property, id);
      const needsName = Array.isArray(property['enum']) || property['type'] === 'object';
      return [name, needsName && isObject(inner) ? { ...inner, $id: id } : inner];
    }),
  );
  return { ...schema, properties: renamed };
}

export function modelInput(): Record<string, unknown> {
  const document = buildAsyncApi();
  const components = isObject(document['components']) ? document['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  const namedSchemas = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, named(schema, name)]));
  return { ...document, components: { ...components, schemas: namedSchemas } };
}

/** `detail-type` as detailType, not detailMinusType. */
const NO_SPECIAL_CHAR = (value: string) => value.replaceAll('-', ' ');

export async function writeEventModels(out: string): Promise<{ java: string[]; kotlin: string[] }> {
  const input = modelInput();
  const javaDir = join(out, 'java', ...EVENT_MODELS_PACKAGE.split('.'));
  const kotlinDir = join(out, 'kotlin');
  mkdirSync(javaDir, { recursive: true });
  mkdirSync(kotlinDir, { recursive: true });
  const java = new JavaFileGenerator({
    presets: [JAVA_JACKSON_PRESET],
    collectionType: 'List',
    constraints: { propertyKey: javaDefaultPropertyKeyConstraints({ NO_SPECIAL_CHAR }) },
  });
  const kotlin = new KotlinFileGenerator({ constraints: { propertyKey: kotlinDefaultPropertyKeyConstraints({ NO_SPECIAL_CHAR }) } });
  const javaModels = await java.generateToFiles(input, javaDir, { packageName: EVENT_MODELS_PACKAGE }, true);
  const kotlinModels = await kotlin.generateToFiles(input, kotlinDir, { packageName: EVENT_MODELS_PACKAGE }, true);
  // Without the trailing comma of a parameter list, which Kotlin takes from 1.4 on only (Debian's kotlinc is older).
  for (const file of readdirSync(kotlinDir).filter((name) => name.endsWith('.kt'))) {
    const path = join(kotlinDir, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/,(\s*\n\))/g, '$1'));
  }
  return { java: javaModels.map((m) => m.modelName).sort(), kotlin: kotlinModels.map((m) => m.modelName).sort() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: '.local/event-models' } } });
  const out = values.out;
  const models = await writeEventModels(out);
  console.log(`${models.java.length} Java models in ${join(out, 'java')}, ${models.kotlin.length} Kotlin models in ${join(out, 'kotlin')}`);
}
