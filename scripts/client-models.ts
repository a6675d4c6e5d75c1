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
 * Not yet among them: a request's details and the customer's own list
 * (docs/decisions/0022-what-a-customer-sees-of-a-request.md, 0023-a-customers-requests-by-index.md).
 * Both hold TerminationRequest as the list does, and quicktype, given several roots that share a
 * schema, makes a copy of it for each under a name of its own making (ItemElement, RequestClass).
 * The TypeScript client types them (client/api-types.ts).
 */

/** A namespace for the schemas' addresses, never fetched. */
const BASE = 'https://api-description.invalid/openapi.json';

/**
 * The bodies that go over the wire; what they refer to comes along under its own name
 * (TerminationRequest through the list, BankDetails, TerminationReason, ErrorDetail, the enums).
 * A schema named here and referred to as well would come out twice.
 */
export const MODEL_ROOTS = ['TerminationRequestInput', 'TerminationRequestList', 'Withdrawal', 'TerminationReasonList', 'ErrorBody'];

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

/** The description's schemas as one JSON Schema document, their references pointing into it. */
function schemaDocument(): string {
  const components = buildOpenApi()['components'];
  const schemas = typeof components === 'object' && components !== null && 'schemas' in components ? components.schemas : {};
  const text = JSON.stringify(schemas).replaceAll('"#/components/schemas/', '"#/definitions/');
  return `{"$id":${JSON.stringify(BASE)},"$schema":"http://json-schema.org/draft-07/schema#","definitions":${text}}`;
}

/** The models in one file, as quicktype writes them. */
export async function clientModels(flavour: ModelFlavour): Promise<string> {
  const input = new JSONSchemaInput(new FetchingJSONSchemaStore());
  await input.addSource({ name: 'Api', schema: schemaDocument(), uris: MODEL_ROOTS.map((name) => `${BASE}#/definitions/${name}`) });
  const inputData = new InputData();
  inputData.addInput(input);
  const { lang, rendererOptions } = OPTIONS[flavour];
  const { lines } = await quicktype({ inputData, lang, rendererOptions, inferEnums: false });
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: '.local/models' } } });
  const out = values.out;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'Models.kt'), await clientModels('kotlin'));
  writeFileSync(join(out, 'Models.swift'), await clientModels('swift'));
  console.log(`${join(out, 'Models.kt')} and ${join(out, 'Models.swift')} written`);
}
