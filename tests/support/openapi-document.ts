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

const compilers = new WeakMap<Record<string, unknown>, Ajv2020>();

/** One Ajv per document, holding the whole of it, so each response's schema compiles once. */
function compilerFor(document: Record<string, unknown>): Ajv2020 {
  let ajv = compilers.get(document);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', ...document });
    compilers.set(document, ajv);
  }
  return ajv;
}

/** A `$ref` into the document, followed; anything else as it is. */
export function resolved(document: Record<string, unknown>, value: unknown): unknown {
  const ref = at(value, '$ref');
  return typeof ref === 'string' && ref.startsWith('#/') ? resolved(document, at(document, ...ref.slice(2).split('/'))) : value;
}

/** The response of one status of one operation: its own, else its range's (5XX). */
export function responseOf(document: Record<string, unknown>, status: number, operation: { path: string; method: string }): unknown {
  const responses = at(document, 'paths', operation.path, operation.method, 'responses');
  const response = at(responses, String(status)) ?? at(responses, `${String(status).charAt(0)}XX`);
  return response === undefined || Object.keys(jsonObject(response)).length === 0 ? undefined : response;
}

/** What the document promises for one status of one operation (the create when none is named). */
export function documentedResponse(
  document: Record<string, unknown>,
  status: number,
  operation: { path: string; method: string } = CREATE_OPERATION,
): DocumentedResponse | undefined {
  const response = responseOf(document, status, operation);
  if (response === undefined) return undefined;
  const content = at(response, 'content', 'application/json');
  // A schema is a $ref into the document (the error bodies: each operation's own) or inline.
  const schema: unknown = at(content, 'schema');
  const ref = at(schema, '$ref');
  // Compiled at the first check only: reading the example codes compiles nothing.
  let validator: ValidateFunction | undefined;
  const compiled = () =>
    (validator ??=
      typeof ref === 'string'
        ? compilerFor(document).getSchema(ref.replace('#/', 'openapi#/'))
        : compilerFor(document).compile(jsonObject(JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"openapi#/')))));
  const headers = Object.fromEntries(
    Object.entries(jsonObject(at(response, 'headers'))).map(([name, h]) => {
      const header = resolved(document, h);
      let check: ValidateFunction | undefined;
      // Header values are text on the wire; an integer header is checked as the number it spells.
      const validate = (value: string) =>
        (check ??= compilerFor(document).compile(jsonObject(at(header, 'schema'))))(
          at(header, 'schema', 'type') === 'integer' && /^\d+$/.test(value) ? Number(value) : value,
        );
      return [name, { required: at(header, 'required') === true, validate }];
    }),
  );
  // The codes its examples show (an example's name may add who answers it: "UNAUTHORIZED (WAF)").
  const exampleCodes = [
    ...new Set(Object.values(jsonObject(at(content, 'examples'))).map((example) => String(at(example, 'value', 'errorCode')))),
  ];
  return {
    headers,
    exampleCodes,
    validate: (body) => {
      const validate = compiled();
      if (!validate) return [`no schema at ${String(ref)}`];
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
    },
  };
}
