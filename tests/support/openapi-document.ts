import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { OPENAPI_PATH } from '../../scripts/openapi';
import { at, jsonObject } from './json';

export interface DocumentedResponse {
  headers: Record<string, { required: boolean; validate: (value: string) => boolean }>;
  exampleCodes: string[];
  validate: (body: unknown) => string[];
}

/** The committed API description, read as a client's tooling would read it. */
export function loadDocument(): Record<string, unknown> {
  return jsonObject(parse(readFileSync(OPENAPI_PATH, 'utf8')));
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
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', ...document });
  const content = at(response, 'content', 'application/json');
  // A schema is a $ref into the document or inline (the error bodies: Error narrowed per status).
  const schema: unknown = at(content, 'schema');
  const ref = at(schema, '$ref');
  const validator =
    typeof ref === 'string'
      ? ajv.getSchema(ref.replace('#/', 'openapi#/'))
      : ajv.compile(jsonObject(JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"openapi#/'))));
  const headers = Object.fromEntries(
    Object.entries(jsonObject(at(response, 'headers'))).map(([name, h]) => {
      const refName = at(h, '$ref');
      const resolved = typeof refName === 'string' ? at(document, 'components', 'headers', refName.split('/').pop() ?? '') : h;
      const check = ajv.compile(jsonObject(at(resolved, 'schema')));
      // Header values are text on the wire; an integer header is checked as the number it spells.
      const validate = (value: string) =>
        check(at(resolved, 'schema', 'type') === 'integer' && /^\d+$/.test(value) ? Number(value) : value);
      return [name, { required: at(resolved, 'required') === true, validate }];
    }),
  );
  return {
    headers,
    exampleCodes: Object.keys(jsonObject(at(content, 'examples'))),
    validate: (body) => {
      if (!validator) return [`no schema at ${String(ref)}`];
      return validator(body) ? [] : (validator.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
    },
  };
}
