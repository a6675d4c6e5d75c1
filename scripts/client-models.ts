import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FetchingJSONSchemaStore, InputData, JSONSchemaInput, quicktype } from 'quicktype-core';
import { buildOpenApi } from './openapi';

/*
 * npm run client:models [-- --out <dir>]: Kotlin and Swift models of the API's bodies, made by
 * quicktype from the schemas of docs/openapi.yaml, for the Android and iOS teams
 * (docs/clients.md reviews what they get). Written to .local/models/ unless told otherwise.
 *
 * The models are the bodies a client sends and reads: the request, the request read back, a
 * page of them, the withdrawal, the reasons, and ErrorBody with ErrorCode. Each operation's own
 * list of codes (CreateErrorCode, ...) is left to the TypeScript client, which narrows on it: an
 * app switches on the errorCode it reads, and one enum of every code is what it needs.
 *
 * A request's details and the customer's own list (docs/decisions/0022-what-a-customer-sees-of-a-request.md,
 * 0023-a-customers-requests-by-index.md) are among them. Both hold TerminationRequest as the list
 * does, and quicktype, given several roots that share a schema, makes a copy of it for each
 * under a name of its own making (ItemElement, ItemRequest, ...): foldCopies below folds the
 * copies into one type under the description's name.
 */

/** A namespace for the schemas' addresses, never fetched. */
const BASE = 'https://api-description.invalid/openapi.json';

/**
 * The bodies that go over the wire; what they refer to comes along under its own name
 * (TerminationRequest through the list, BankDetails, TerminationReason, ErrorDetail, the enums).
 * A schema named here and referred to as well would come out twice.
 */
export const MODEL_ROOTS = [
  'TerminationRequestInput',
  'TerminationRequestList',
  'TerminationRequestDetails',
  'CustomerTerminationRequestList',
  'Withdrawal',
  'TerminationReasonList',
  'ErrorBody',
];

export type ModelFlavour =
  /** Kotlin with kotlinx.serialization's annotations: what an Android app decodes with. */
  | 'kotlin'
  /** The same Kotlin types without annotations: plain data classes any Kotlin compiler takes. */
  | 'kotlin-plain'
  /** Swift Codable structs. */
  | 'swift';

const OPTIONS: Record<ModelFlavour, { lang: 'kotlin' | 'swift'; rendererOptions: Record<string, string> }> = {
  kotlin: { lang: 'kotlin', rendererOptions: { framework: 'kotlinx', package: 'bank.termination.api', 'acronym-style': 'original' } },
  'kotlin-plain': {
    lang: 'kotlin',
    rendererOptions: { 'just-types': 'true', package: 'bank.termination.api', 'acronym-style': 'original' },
  },
  swift: { lang: 'swift', rendererOptions: { 'struct-or-class': 'struct', 'access-level': 'public', 'acronym-style': 'original' } },
};

/** The description's schemas, by name. */
function descriptionSchemas(): Record<string, unknown> {
  const components = buildOpenApi()['components'];
  const schemas: unknown = typeof components === 'object' && components !== null && 'schemas' in components ? components.schemas : {};
  return typeof schemas === 'object' && schemas !== null ? Object.fromEntries(Object.entries(schemas)) : {};
}

/** The description's schemas as one JSON Schema document, their references pointing into it. */
function schemaDocument(): string {
  const text = JSON.stringify(descriptionSchemas()).replaceAll('"#/components/schemas/', '"#/definitions/');
  return `{"$id":${JSON.stringify(BASE)},"$schema":"http://json-schema.org/draft-07/schema#","definitions":${text}}`;
}

/*
 * The API grows within v1 (docs/decisions/0001-api-contract-and-versioning.md): new optional
 * fields in answers, new error codes, statuses and reasons. quicktype's models refuse both (a
 * kotlinx `Json` fails on an unknown key, every enum on an unknown value), so the models are
 * finished here to tolerate them: each enum gets a catch-all case that a value the app does not
 * know decodes to, and the Kotlin file brings the `Json` to decode with, unknown keys ignored.
 * Swift's decoder ignores unknown keys already.
 */

/** The name of each enum's catch-all case, by language. */
export const UNKNOWN_CASE = { kotlin: 'Unknown', swift: 'unknown' } as const;

const CATCH_ALL_NOTE = 'A value this version of the app does not know: the API adds values within v1 (docs/clients.md). Never sent.';

/** The Json every Kotlin answer is decoded with, and how, in place of quicktype's usage note. */
const KOTLIN_USAGE = `// Decode every answer with apiJson, never a Json of your own: it skips the fields this version of
// the app does not know (the API adds optional fields within v1), and each enum reads a value it
// does not know as Unknown:
//
// val request   = apiJson.decodeFromString(TerminationRequest.serializer(), jsonString)
// val errorBody = apiJson.decodeFromString(ErrorBody.serializer(), jsonString)
`;

const KOTLIN_JSON = `
/** The Json to decode the API's answers with: unknown fields are skipped, not an error. */
val apiJson = Json { ignoreUnknownKeys = true }
`;

/** The serializer of one Kotlin enum: its wire value, or Unknown for one it does not know. */
const kotlinEnumSerializer = (name: string) => `
object ${name}Serializer : KSerializer<${name}> {
    override val descriptor: SerialDescriptor = PrimitiveSerialDescriptor("${name}", PrimitiveKind.STRING)
    override fun deserialize(decoder: Decoder): ${name} {
        val wire = decoder.decodeString()
        return ${name}.values().firstOrNull { it != ${name}.${UNKNOWN_CASE.kotlin} && it.value == wire } ?: ${name}.${UNKNOWN_CASE.kotlin}
    }
    override fun serialize(encoder: Encoder, value: ${name}) = encoder.encodeString(value.value)
}
`;

function tolerantKotlin(source: string, kotlinx: boolean): string {
  if (!kotlinx) {
    // Without annotations quicktype writes the cases alone: the catch-all joins them.
    return source.replace(
      /^enum class (\w+) \{\n([\s\S]*?)\n\}\n/gm,
      (_match, name: string, cases: string) =>
        `enum class ${name} {\n${cases},\n\n    /** ${CATCH_ALL_NOTE} */\n    ${UNKNOWN_CASE.kotlin}\n}\n`,
    );
  }
  return source
    .replace(
      /^@Serializable\nenum class (\w+)\(val value: String\) \{\n([\s\S]*?);\n\}\n/gm,
      (_match, name: string, cases: string) =>
        `@Serializable(with = ${name}Serializer::class)\nenum class ${name}(val value: String) {\n` +
        `${cases},\n\n    /** ${CATCH_ALL_NOTE} */\n    ${UNKNOWN_CASE.kotlin}("");\n}\n${kotlinEnumSerializer(name)}`,
    )
    .replace(/^\/\/ To parse the JSON[\s\S]*?\n\n/, `${KOTLIN_USAGE}\n`)
    .replace(/(\nimport kotlinx\.serialization\.encoding\.\*\n)/, `$1${KOTLIN_JSON}`);
}

function tolerantSwift(source: string): string {
  return source.replace(
    /^public enum (\w+): String, Codable \{\n([\s\S]*?)\n\}\n/gm,
    (_match, name: string, cases: string) => `public enum ${name}: String, Codable {
${cases}
    /// ${CATCH_ALL_NOTE}
    case ${UNKNOWN_CASE.swift}

    /// A value this app does not know decodes as .${UNKNOWN_CASE.swift}, instead of failing the whole answer.
    public init(from decoder: Decoder) throws {
        self = ${name}(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .${UNKNOWN_CASE.swift}
    }
}
`,
  );
}

/** How each language declares a model type, and where the declaration (with whatever belongs to it) ends. */
const DECLARATIONS = {
  // `@Serializable` (kotlinx) or nothing, then the data class to its closing parenthesis.
  kotlin: { head: /^(?:@Serializable\n)?data class (\w+) \(\n[\s\S]*?\n\)\n/gm, property: /^ {4}(?:@SerialName\("\w+"\)\s*)?val (\w+):/gm },
  // The struct and its convenience extension, each to its closing brace at the start of a line.
  swift: {
    head: /^\/\/ MARK: - (\w+)\npublic struct \1: Codable \{\n[\s\S]*?\n\}\n\n\/\/ MARK: \1 convenience initializers and mutators\n\npublic extension \1 \{\n[\s\S]*?\n\}\n/gm,
    property: /^ {4}public let (\w+):/gm,
  },
} as const;

/**
 * quicktype's copies of one shared schema, folded: the copies (declared under names the
 * description does not have, identical but for their names) become one type named as the
 * description's schema with exactly their properties, and every reference to a copy names it.
 */
export function foldCopies(source: string, lang: 'kotlin' | 'swift'): string {
  const schemas = descriptionSchemas();
  const { head, property } = DECLARATIONS[lang];
  const declared = [...source.matchAll(head)].map((match) => ({ name: String(match[1]), text: match[0] }));
  const copies = declared.filter(({ name }) => !(name in schemas));
  const groups = new Map<string, typeof copies>();
  for (const copy of copies) {
    const shape = copy.text.replace(new RegExp(`\\b${copy.name}\\b`, 'g'), '§');
    groups.set(shape, [...(groups.get(shape) ?? []), copy]);
  }
  let folded = source;
  for (const [, [first, ...others]] of groups) {
    if (first === undefined || others.length === 0) continue;
    const names = [...first.text.matchAll(property)].map((match) => String(match[1])).sort();
    const matching = Object.entries(schemas).filter(([name, schema]) => {
      const properties: unknown = typeof schema === 'object' && schema !== null ? Reflect.get(schema, 'properties') : undefined;
      const own = typeof properties === 'object' && properties !== null ? Object.keys(properties).sort() : [];
      return !declared.some((d) => d.name === name) && JSON.stringify(own) === JSON.stringify(names);
    });
    const [target, ...ambiguous] = matching.map(([name]) => name);
    if (target === undefined || ambiguous.length > 0)
      throw new Error(`quicktype copied ${[first, ...others].map((c) => c.name).join(', ')}, and no one schema of the description is them`);
    for (const other of others) folded = folded.replace(other.text, '');
    for (const copy of [first, ...others]) folded = folded.replace(new RegExp(`\\b${copy.name}\\b`, 'g'), target);
  }
  return folded;
}

/** The models in one file: quicktype's, made to tolerate what the API may add within v1. */
export async function clientModels(flavour: ModelFlavour): Promise<string> {
  const input = new JSONSchemaInput(new FetchingJSONSchemaStore());
  await input.addSource({ name: 'Api', schema: schemaDocument(), uris: MODEL_ROOTS.map((name) => `${BASE}#/definitions/${name}`) });
  const inputData = new InputData();
  inputData.addInput(input);
  const { lang, rendererOptions } = OPTIONS[flavour];
  const { lines } = await quicktype({ inputData, lang, rendererOptions, inferEnums: false });
  const source = foldCopies(`${lines.join('\n')}\n`, lang);
  return lang === 'swift' ? tolerantSwift(source) : tolerantKotlin(source, flavour === 'kotlin');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: '.local/models' } } });
  const out = values.out;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'Models.kt'), await clientModels('kotlin'));
  writeFileSync(join(out, 'Models.swift'), await clientModels('swift'));
  console.log(`${join(out, 'Models.kt')} and ${join(out, 'Models.swift')} written`);
}
