import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { OPENAPI_PATH } from '../../scripts/openapi';
import { at, jsonObject } from './json';

export interface DocumentedResponse {
  headers: Record<string, { required: boolean; validate: (value: string) => boolean }>;
  exampleCodes: string[];
  validate: (body: unknown) => string[];
}

let parsed: { text: string; document: Record<string, unknown> } | undefined;

/** The committed API description, read as a client's tooling would read it: a copy of its own for each caller. */
export function loadDocument(): Record<string, unknown> {
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  // Parsing the YAML takes a few hundred milliseconds; a copy of the last parse takes a few.
  if (parsed?.text !== text) parsed = { text, document: jsonObject(parse(text)) };
  return structuredClone(parsed.document);
}

export const CREATE_OPERATION = { path: '/api/v1/contracts/{contractId}/termination-requests', method: 'post' };

/** What the document promises for one status of one operation (the create when none is named). */
export function documentedResponse(
  document: Record<string, unknown>,
  status: number,
  operation: { path: string; method: string } = CREATE_OPERATION,
): DocumentedResponse | undefined {
  const response = at(document, 'paths', operation.path, operation.method, 'responses', String(status));
  if (response === undefined || Object.keys(jsonObject(response)).length === 0) return undefined;
  const content = at(response, 'content', 'application/json');
  // A schema is a $ref into the document or inline (the error bodies: Error narrowed per status).
  const schema: unknown = at(content, 'schema');
  const ref = at(schema, '$ref');
  // Compiled at the first check only: reading the example codes compiles nothing.
  let validator: ValidateFunction | undefined;
  const compiled = () =>
    (validator ??=
      typeof ref === 'string'
        ? ajvFor(document).getSchema(ref.replace('#/', 'openapi#/'))
        : ajvFor(document).compile(jsonObject(JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"openapi#/')))));
  const headers = Object.fromEntries(
    Object.entries(jsonObject(at(response, 'headers'))).map(([name, h]) => {
      const refName = at(h, '$ref');
      const resolved = typeof refName === 'string' ? at(document, 'components', 'headers', refName.split('/').pop() ?? '') : h;
      let check: ValidateFunction | undefined;
      // Header values are text on the wire; an integer header is checked as the number it spells.
      const validate = (value: string) =>
        (check ??= ajvFor(document).compile(jsonObject(at(resolved, 'schema'))))(
          at(resolved, 'schema', 'type') === 'integer' && /^\d+$/.test(value) ? Number(value) : value,
        );
      return [name, { required: at(resolved, 'required') === true, validate }];
    }),
  );
  return {
    headers,
    exampleCodes: Object.keys(jsonObject(at(content, 'examples'))),
    validate: (body) => {
      const validate = compiled();
      if (!validate) return [`no schema at ${String(ref)}`];
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
    },
  };
}

/** One Ajv per document, holding the whole document as the schema `openapi`: each schema compiles once. */
const ajvs = new WeakMap<Record<string, unknown>, Ajv2020>();
function ajvFor(document: Record<string, unknown>): Ajv2020 {
  let ajv = ajvs.get(document);
  if (ajv === undefined) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', ...document });
    ajvs.set(document, ajv);
  }
  return ajv;
}
