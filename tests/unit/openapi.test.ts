import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, OPENAPI_PATH } from '../../scripts/openapi';
import { ERROR_CODES, OUTCOMES } from '../../lib/http/outcomes';
import { MAX_ACCEPT_LANGUAGE_LENGTH } from '../../lib/http/texts';
import { MAX_CURSOR_LENGTH, MAX_PAGE_SIZE } from '../../lib/termination/read-termination-requests';
import { errorBodySchema, terminationRequestInputSchema, terminationRequestSchema } from '../../lib/api-model/schemas';
import { at, jsonObject } from '../support/json';
import { documentedResponse, loadDocument } from '../support/openapi-document';

const withoutId = (schema: object) => Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$id'));

describe('docs/openapi.yaml', () => {
  it('is what the builder makes from the code today (run npm run openapi after changing a schema)', () => {
    expect(loadDocument()).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
  });

  it('publishes the very schemas the validator compiles', () => {
    expect(loadDocument()['components']).toMatchObject({
      schemas: {
        TerminationRequestInput: JSON.parse(JSON.stringify(withoutId(terminationRequestInputSchema))),
        TerminationRequest: JSON.parse(JSON.stringify(withoutId(terminationRequestSchema))),
        ErrorBody: JSON.parse(JSON.stringify(withoutId(errorBodySchema))),
      },
    });
  });

  it('lists every errorCode as an example under its own status, in some operation', () => {
    const document = loadDocument();
    const operations = [
      { path: '/api/v1/contracts/{contractId}/termination-requests', method: 'post' },
      { path: '/api/v1/contracts/{contractId}/termination-requests', method: 'get' },
      { path: '/api/v1/contracts/{contractId}/termination-requests/{requestId}', method: 'get' },
      { path: '/api/v1/contracts/{contractId}/termination-requests/{requestId}/withdrawal', method: 'post' },
    ];
    for (const code of ERROR_CODES) {
      const status = OUTCOMES[code].status;
      const codes = operations.flatMap((operation) => documentedResponse(document, status, operation)?.exampleCodes ?? []);
      expect(codes, `${code} under ${status}`).toContain(code);
    }
  });
});

const COLLECTION = '/api/v1/contracts/{contractId}/termination-requests';
const ONE = `${COLLECTION}/{requestId}`;
const WITHDRAWAL = `${ONE}/withdrawal`;
const REASONS = '/api/v1/termination-reasons';

/** Every operation of the document: path, method and the operation object. */
function operationsOf(document: Record<string, unknown>): { path: string; method: string; operation: Record<string, unknown> }[] {
  return Object.entries(jsonObject(document['paths'])).flatMap(([path, item]) =>
    Object.entries(jsonObject(item)).map(([method, operation]) => ({ path, method, operation: jsonObject(operation) })),
  );
}

const parameter = (operation: Record<string, unknown>, name: string) =>
  jsonObject([at(operation, 'parameters')].flat(2).find((p) => at(p, 'name') === name));

/** Every field an error example of the operation may name: its parameters, its body's fields, the body itself. */
function fieldsOf(document: Record<string, unknown>, operation: Record<string, unknown>): Set<string> {
  const fields = new Set(['body', 'Authorization', 'X-Correlation-Id', 'Accept-Language']);
  for (const p of [at(operation, 'parameters')].flat(2)) fields.add(String(at(p, 'name')));
  const ref = at(operation, 'requestBody', 'content', 'application/json', 'schema', '$ref');
  if (typeof ref === 'string') {
    const schema = at(document, ...ref.slice(2).split('/'));
    for (const [name, property] of Object.entries(jsonObject(at(schema, 'properties')))) {
      fields.add(name);
      for (const inner of Object.keys(jsonObject(at(property, 'properties')))) fields.add(`${name}.${inner}`);
      // A customerId is refused with its own detail, though it is no field of the body.
    }
    fields.add('customerId');
  }
  // A refusal of the request's state names it: the status of a withdrawal that came too late.
  fields.add('status');
  return fields;
}

describe('docs/openapi.yaml for the tools app teams run over it', () => {
  const document = loadDocument();
  const operations = operationsOf(document);

  it('documents Retry-After, required, on every 429 and 503 of every operation', () => {
    const missing = operations.flatMap(({ path, method, operation }) =>
      ['429', '503'].flatMap((status) => {
        const retryAfter = at(operation, 'responses', status, 'headers', 'Retry-After');
        return at(retryAfter, 'required') === true && at(retryAfter, 'schema', 'pattern') === '^[1-9][0-9]*$'
          ? []
          : [`${method} ${path} ${status}`];
      }),
    );
    expect(operations).toHaveLength(5);
    expect(missing).toEqual([]);
  });

  it("names a deployed stage first (a generated client's default), and the laptop after it", () => {
    const servers = [at(document, 'servers')].flat();
    expect(at(servers, 0, 'url')).toBe('https://{apiId}.execute-api.{region}.amazonaws.com/{stage}');
    expect(at(servers, 1, 'url')).toBe('http://127.0.0.1:3000');
  });

  it("bounds cursor, Accept-Language and the list's items by the service's own limits", () => {
    const list = jsonObject(at(document, 'paths', COLLECTION, 'get'));
    expect(parameter(list, 'cursor')['schema']).toEqual({ type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH });
    expect(MAX_CURSOR_LENGTH).toBe(48);
    for (const { path, method, operation } of operations) {
      expect(at(parameter(operation, 'Accept-Language'), 'schema', 'maxLength'), `${method} ${path}`).toBe(MAX_ACCEPT_LANGUAGE_LENGTH);
    }
    expect(at(document, 'components', 'schemas', 'TerminationRequestList', 'properties', 'items', 'maxItems')).toBe(MAX_PAGE_SIZE);
  });

  it('says the withdrawal takes no body, and lists the 400 MALFORMED_REQUEST a body gets', () => {
    const withdrawal = jsonObject(at(document, 'paths', WITHDRAWAL, 'post'));
    expect(withdrawal['requestBody']).toBeUndefined();
    expect(String(withdrawal['description'])).toContain('No body: a call with one, even {}, answers 400 MALFORMED_REQUEST');
    const malformed = at(
      withdrawal,
      'responses',
      '400',
      'content',
      'application/json',
      'examples',
      'MALFORMED_REQUEST',
      'value',
      'details',
    );
    expect(malformed).toEqual([{ field: 'body', reason: 'must be empty: this call takes no body' }]);
  });

  it('describes each answer in words that fit its operation', () => {
    const text = (path: string, method: string, status: string) =>
      String(at(document, 'paths', path, method, 'responses', status, 'description'));
    expect(text(WITHDRAWAL, 'post', '409')).toMatch(/can no longer be withdrawn/);
    expect(text(WITHDRAWAL, 'post', '409')).not.toMatch(/active termination request/);
    expect(text(COLLECTION, 'post', '409')).toMatch(/already has an active termination request/);
    for (const status of ['403', '404']) expect(text(REASONS, 'get', status)).not.toMatch(/contract/i);
    expect(text(WITHDRAWAL, 'post', '400')).toMatch(/body/);
  });

  it('shows in each example only fields the operation has (no bankDetails in a GET)', () => {
    const strays = operations.flatMap(({ path, method, operation }) => {
      const fields = fieldsOf(document, operation);
      return Object.entries(jsonObject(at(operation, 'responses'))).flatMap(([status, response]) =>
        Object.entries(jsonObject(at(response, 'content', 'application/json', 'examples'))).flatMap(([name, example]) =>
          [at(example, 'value', 'details')]
            .flat(2)
            .map((detail) => String(at(detail, 'field')))
            .filter((field) => !fields.has(field))
            .map((field) => `${method} ${path} ${status} ${name}: ${field}`),
        ),
      );
    });
    expect(strays).toEqual([]);
  });

  it('reads the same to a YAML 1.1 reader: dates and times in examples stay strings', () => {
    const text = readFileSync(OPENAPI_PATH, 'utf8');
    expect(text).toContain('desiredTerminationDate: "2030-06-30"');
    expect(parse(text, { version: '1.1' })).toEqual(parse(text));
  });

  it("names no schema Error, which generated code would take for the language's own", () => {
    const schemas = Object.keys(jsonObject(at(document, 'components', 'schemas')));
    expect(schemas).toContain('ErrorBody');
    expect(schemas).not.toContain('Error');
  });
});
