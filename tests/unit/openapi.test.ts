import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, OPENAPI_PATH } from '../../scripts/openapi';
import { edgeAnswers } from '../../scripts/edge-answers';
import { DEFAULT_BUSINESS_TIME_ZONE } from '../../lib/config';
import { MAX_DETAILS } from '../../lib/http/answers';
import { ERROR_CODES, OUTCOMES } from '../../lib/http/outcomes';
import { MAX_ACCEPT_LANGUAGE_LENGTH } from '../../lib/http/texts';
import { MAX_PAGE_SIZE } from '../../lib/termination/page-size';
import { MAX_CURSOR_LENGTH } from '../../lib/termination/read-termination-requests';
import { REASON_CODES, terminationRequestInputSchema, terminationRequestSchema, withdrawalSchema } from '../../lib/api-model/schemas';
import { at, jsonObject } from '../support/json';
import { documentedResponse, loadDocument, resolved } from '../support/openapi-document';

const COLLECTION = '/api/v1/contracts/{contractId}/termination-requests';
const ONE = `${COLLECTION}/{requestId}`;
const WITHDRAWAL = `${ONE}/withdrawal`;
const REASONS = '/api/v1/termination-reasons';
const OPERATIONS = [
  { path: COLLECTION, method: 'post' },
  { path: COLLECTION, method: 'get' },
  { path: ONE, method: 'get' },
  { path: WITHDRAWAL, method: 'post' },
  { path: REASONS, method: 'get' },
];

/** Every operation of the document: path, method and the operation object. */
function operationsOf(document: Record<string, unknown>): { path: string; method: string; operation: Record<string, unknown> }[] {
  return Object.entries(jsonObject(document['paths'])).flatMap(([path, item]) =>
    Object.entries(jsonObject(item)).map(([method, operation]) => ({ path, method, operation: jsonObject(operation) })),
  );
}

/** Every object in the document with the path that leads to it. */
function* objectsOf(value: unknown, path: string[] = []): Generator<{ path: string[]; value: Record<string, unknown> }> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* objectsOf(item, [...path, String(i)]);
  } else if (value !== null && typeof value === 'object') {
    const object = jsonObject(value);
    yield { path, value: object };
    for (const [key, child] of Object.entries(object)) yield* objectsOf(child, [...path, key]);
  }
}

const parameter = (document: Record<string, unknown>, operation: Record<string, unknown>, name: string) =>
  jsonObject(
    [at(operation, 'parameters')]
      .flat(2)
      .map((p) => resolved(document, p))
      .find((p) => at(p, 'name') === name),
  );

/** A schema with every $ref into the document replaced by what it names, and the use's own keywords beside it (3.1). */
function inlined(document: Record<string, unknown>, schema: unknown): unknown {
  const followed = resolved(document, schema);
  if (Array.isArray(followed)) return followed.map((item: unknown) => inlined(document, item));
  if (followed === null || typeof followed !== 'object') return followed;
  const beside = followed === schema ? [] : Object.entries(jsonObject(schema)).filter(([key]) => key !== '$ref');
  return Object.fromEntries([...Object.entries(followed), ...beside].map(([key, value]) => [key, inlined(document, value)]));
}

const isPlainObject = (value: unknown): value is object => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Every keyword of the service's schema, as the published one has it: a constraint the validator
 * applies is published unchanged (`const` as a one-value enum, `$id` dropped). Returns what differs.
 */
function lostConstraints(service: unknown, published: unknown, path = ''): string[] {
  if (!isPlainObject(service))
    return JSON.stringify(service) === JSON.stringify(published) ? [] : [`${path}: ${JSON.stringify(published)}`];
  return Object.entries(service).flatMap(([key, value]): string[] => {
    if (key === '$id' || key === '$ref') return [];
    if (key === 'const') return lostConstraints([value], at(published, 'enum'), `${path}/enum`);
    return lostConstraints(value, at(published, key), `${path}/${key}`);
  });
}

/** What the published schema adds to the service's: only patterns of its text formats, lengths they imply, names, words and examples. */
function additions(service: unknown, published: unknown, path = ''): string[] {
  if (!isPlainObject(published)) return [];
  return Object.entries(published).flatMap(([key, value]): string[] => {
    const own = key === 'enum' ? (at(service, 'enum') ?? at(service, 'const')) : at(service, key);
    if (own !== undefined) return additions(own, value, `${path}/${key}`);
    const format = at(published, 'format');
    const allowed =
      key === 'description' ||
      key === 'examples' ||
      key === 'title' ||
      (key === 'pattern' && (format === 'recipient-name' || format === 'customer-text')) ||
      (key === 'maxLength' &&
        ((format === 'uuid' && value === 36) ||
          (format === 'date' && value === 10) ||
          at(service, 'pattern') === `^[0-9]{${String(value)}}$`));
    return allowed ? [] : [`${path}/${key}`];
  });
}

describe('docs/openapi.yaml', () => {
  const document = loadDocument();

  it('is what the builder makes from the code today (run npm run openapi after changing a schema)', () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
  });

  it.each([
    ['TerminationRequestInput', terminationRequestInputSchema],
    ['TerminationRequest', terminationRequestSchema],
    ['Withdrawal', withdrawalSchema],
  ])(
    'publishes every constraint the validator applies to %s unchanged, adding only the patterns of its text formats and the lengths its formats imply',
    (name, schema) => {
      const published = inlined(document, at(document, 'components', 'schemas', name));
      expect(lostConstraints(JSON.parse(JSON.stringify(schema)), published)).toEqual([]);
      expect(additions(JSON.parse(JSON.stringify(schema)), published)).toEqual([]);
    },
  );

  it('lists every errorCode as an example under its own status, in some operation', () => {
    for (const code of ERROR_CODES) {
      const status = OUTCOMES[code].status;
      const codes = OPERATIONS.flatMap((operation) => documentedResponse(document, status, operation)?.exampleCodes ?? []);
      expect(codes, `${code} under ${status}`).toContain(code);
    }
  });
});

describe('docs/openapi.yaml holds the shapes generators read', () => {
  const document = loadDocument();
  const schemas = jsonObject(at(document, 'components', 'schemas'));

  it('declares each enum of more than one value once, as a schema of its own: no list of codes, reasons or statuses inline', () => {
    const inline: string[] = [];
    const lists = new Map<string, string>();
    for (const { path, value } of objectsOf(document)) {
      const values = value['enum'];
      if (!Array.isArray(values) || values.length < 2) continue;
      const named = path.length === 3 && path[0] === 'components' && path[1] === 'schemas';
      if (!named) inline.push(path.join('/'));
      const key = JSON.stringify([...values].map(String).sort());
      expect(lists.get(key), `${path.join('/')} repeats ${lists.get(key) ?? ''}`).toBeUndefined();
      lists.set(key, path.join('/'));
    }
    expect(inline).toEqual([]);
    expect([...lists.values()].length).toBeGreaterThanOrEqual(8);
  });

  it('has no const (OpenAPI 3.1 only): a single value is a one-value enum, which 3.0-era generators read', () => {
    const consts = [...objectsOf(document)].filter(({ value }) => 'const' in value).map(({ path }) => path.join('/'));
    expect(consts).toEqual([]);
    expect(at(schemas, 'Withdrawal', 'properties', 'status')).toEqual({ title: 'WithdrawalStatus', type: 'string', enum: ['WITHDRAWN'] });
    const replayed = at(document, 'paths', COLLECTION, 'post', 'responses', '200', 'headers', 'Idempotent-Replayed', 'schema');
    expect(replayed).toEqual({ type: 'string', enum: ['true'] });
  });

  it("answers every error with its operation's named body, whose errorCode is its operation's named list", () => {
    for (const { path, method, operation } of operationsOf(document)) {
      const bodies = Object.entries(jsonObject(at(operation, 'responses')))
        .filter(([status]) => !status.startsWith('2'))
        .map(([, response]) => String(at(response, 'content', 'application/json', 'schema', '$ref')));
      expect(new Set(bodies).size, `${method} ${path}`).toBe(1);
      const body = String(bodies[0]).replace('#/components/schemas/', '');
      expect(body).toMatch(/^[A-Z][a-z]+ErrorBody$/);
      expect(at(schemas, body, 'allOf', 1, 'properties', 'errorCode')).toEqual({
        $ref: `#/components/schemas/${body.replace('Body', 'Code')}`,
      });
    }
    const errorCodeProperties = [...objectsOf(document)]
      .map(({ value }) => at(value, 'properties', 'errorCode'))
      .filter((schema) => schema !== undefined);
    expect(errorCodeProperties.length).toBe(6);
    for (const schema of errorCodeProperties) expect(String(at(schema, '$ref'))).toMatch(/^#\/components\/schemas\/[A-Za-z]*ErrorCode$/);
  });

  it("names in ErrorCode every code of the outcome table and every code API Gateway and the WAF answer, and each operation's list is part of it", () => {
    const all = at(schemas, 'ErrorCode', 'enum');
    const edgeCodes = edgeAnswers('x').map((answer) => answer.errorCode);
    expect(new Set([all].flat())).toEqual(new Set([...ERROR_CODES, ...edgeCodes]));
    for (const name of ['Create', 'List', 'Get', 'Withdraw', 'Reasons']) {
      const own = [at(schemas, `${name}ErrorCode`, 'enum')].flat();
      expect(
        own.filter((code) => ![all].flat().includes(code)),
        name,
      ).toEqual([]);
      expect(own, name).toEqual(expect.arrayContaining(edgeCodes));
    }
    // The create can meet every code of the table but the one only a request already made can; its
    // TERMINATION_REQUEST_NOT_FOUND is a retry whose request was erased.
    const create = [at(schemas, 'CreateErrorCode', 'enum')].flat();
    expect(ERROR_CODES.filter((code) => !create.includes(code))).toEqual(['REQUEST_NOT_WITHDRAWABLE']);
  });

  it('declares ReasonCode once, for the create body and the reasons list alike, and names the reason item', () => {
    expect(at(schemas, 'ReasonCode', 'enum')).toEqual([...REASON_CODES]);
    // The customer's reason is personal data where they give it; the dictionary's list is not.
    expect(at(schemas, 'TerminationRequestInput', 'properties', 'reasonCode')).toEqual({
      $ref: '#/components/schemas/ReasonCode',
      'x-personal-data': true,
    });
    expect(at(schemas, 'ReasonCode')).not.toHaveProperty('x-personal-data');
    expect(at(schemas, 'TerminationReasonList', 'properties', 'items', 'items')).toEqual({
      $ref: '#/components/schemas/TerminationReason',
    });
    expect(at(schemas, 'TerminationReason', 'properties', 'reasonCode')).toEqual({ $ref: '#/components/schemas/ReasonCode' });
  });

  it('bounds the details of an error body by the cap the service applies', () => {
    expect(at(schemas, 'ErrorBody', 'properties', 'details', 'maxItems')).toBe(MAX_DETAILS);
    expect(MAX_DETAILS).toBe(20);
  });

  it('says in the field itself that the desired date may not be before today in the business time zone, with an example', () => {
    const field = at(schemas, 'TerminationRequestInput', 'properties', 'desiredTerminationDate');
    expect(String(at(field, 'description'))).toContain(`not before today in the bank's business time zone (${DEFAULT_BUSINESS_TIME_ZONE})`);
    expect(String(at(field, 'description'))).toMatch(/at 2026-11-21T22:30:00\.000Z .* the earliest date is 2026-11-22/);
    expect(at(field, 'examples')).toEqual(['2030-06-30']);
  });

  it('gives the text formats a pattern that reads alike with and without Unicode mode', () => {
    for (const [schema, property] of [
      ['BankDetails', 'recipientName'],
      ['TerminationRequestInput', 'comment'],
    ] as const) {
      const pattern = at(schemas, schema, 'properties', property, 'pattern');
      if (typeof pattern !== 'string') throw new Error(`${schema}.${property} has no pattern`);
      expect(() => new RegExp(pattern, 'u')).not.toThrow();
      expect(() => new RegExp(pattern)).not.toThrow();
    }
  });
});

describe('docs/openapi.yaml says what each answer carries', () => {
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
    expect(operations).toHaveLength(7);
    expect(missing).toEqual([]);
  });

  it('requires X-Correlation-Id only where every answer carries it: not on a status the WAF answers itself (401, 413, 429)', () => {
    const wafStatuses = new Set(edgeAnswers('x').flatMap((answer) => (answer.source === 'waf' ? [answer.status] : [])));
    expect(wafStatuses).toEqual(new Set(['401', '413', '429']));
    for (const { path, method, operation } of operations) {
      for (const [status, response] of Object.entries(jsonObject(at(operation, 'responses')))) {
        const header = resolved(document, at(response, 'headers', 'X-Correlation-Id'));
        expect(at(header, 'required'), `${method} ${path} ${status}`).toBe(!wafStatuses.has(status));
        if (wafStatuses.has(status)) expect(String(at(header, 'description'))).toMatch(/None on the WAF's own answers/);
        if (status === '404')
          expect(String(at(header, 'description'))).toMatch(/From API Gateway itself \(ROUTE_NOT_FOUND\): its own request id/);
      }
    }
  });

  it('takes every answer API Gateway and the WAF make themselves, body and headers, on every operation: a validating proxy passes them', () => {
    const breaches: string[] = [];
    for (const answer of edgeAnswers('0f8fad5b-d9cb-469f-a165-70867728950e')) {
      // DEFAULT_5XX keeps the gateway's status: a 502, say.
      const status = answer.status === '5XX' ? 502 : Number(answer.status);
      for (const operation of OPERATIONS) {
        const where = `${answer.name} ${status} on ${operation.method} ${operation.path}`;
        const documented = documentedResponse(document, status, operation);
        if (!documented) {
          breaches.push(`${where}: not documented`);
          continue;
        }
        breaches.push(...documented.validate(answer.body).map((problem) => `${where}: body ${problem}`));
        for (const [name, { required, validate }] of Object.entries(documented.headers)) {
          const value = answer.headers[name];
          if (value === undefined && required) breaches.push(`${where}: no ${name}`);
          if (value !== undefined && !validate(value)) breaches.push(`${where}: ${name} ${value}`);
        }
      }
    }
    expect(breaches).toEqual([]);
  });

  it('says which answer a body over the limit gets on which stage', () => {
    const create = String(at(document, 'paths', COLLECTION, 'post', 'responses', '413', 'description'));
    expect(create).toContain("On a stage with the WAF (prod): over 16384 bytes, the WAF's REQUEST_TOO_LARGE");
    expect(create).toContain("over API Gateway's 10 MB, API Gateway's REQUEST_TOO_LARGE");
    expect(create).toContain('Without the WAF, a body between the two reaches the service: 400 MALFORMED_REQUEST');
    expect(String(at(document, 'paths', COLLECTION, 'get', 'responses', '413', 'description'))).toContain('this call reads no body');
  });

  it('names the deployed stages only, over HTTPS, each a URL a client can use once the stage’s REST API id is set', () => {
    const servers = [at(document, 'servers')].flat();
    expect(servers.map((server) => String(at(server, 'url')))).toEqual([
      'https://{restApiId}.execute-api.eu-central-1.amazonaws.com/prod',
      'https://{restApiId}.execute-api.eu-central-1.amazonaws.com/dev',
    ]);
    for (const server of servers) {
      expect(Object.keys(jsonObject(at(server, 'variables')))).toEqual(['restApiId']);
      const url = (id: string) => String(at(server, 'url')).replace('{restApiId}', id);
      expect(new URL(url('a1b2c3d4e5')).hostname).toBe('a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com');
      // The default is no REST API id (ten lower-case letters and digits): kept, it fails at once, saying what to set.
      const fallback = String(at(server, 'variables', 'restApiId', 'default'));
      expect(fallback).not.toMatch(/^[a-z0-9]{10}$/);
      expect(fallback).toContain('rest-api-id');
      expect(at(server, 'x-internal')).toBe(false);
    }
    expect(readFileSync(OPENAPI_PATH, 'utf8')).not.toMatch(/http:\/\/|127\.0\.0\.1|localhost/);
  });

  it("bounds cursor, Accept-Language and the list's items by the service's own limits", () => {
    const list = jsonObject(at(document, 'paths', COLLECTION, 'get'));
    expect(parameter(document, list, 'cursor')['schema']).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      pattern: '^[A-Za-z0-9_-]+$',
    });
    expect(MAX_CURSOR_LENGTH).toBe(43);
    for (const { path, method, operation } of operations) {
      expect(at(parameter(document, operation, 'Accept-Language'), 'schema', 'maxLength'), `${method} ${path}`).toBe(
        MAX_ACCEPT_LANGUAGE_LENGTH,
      );
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
      const fields = new Set(['body', 'Authorization', 'X-Correlation-Id', 'Accept-Language', 'status']);
      for (const p of [at(operation, 'parameters')].flat(2)) fields.add(String(at(resolved(document, p), 'name')));
      const body = resolved(document, at(operation, 'requestBody', 'content', 'application/json', 'schema'));
      for (const [name, property] of Object.entries(jsonObject(at(body, 'properties')))) {
        fields.add(name);
        for (const inner of Object.keys(jsonObject(at(resolved(document, property), 'properties')))) fields.add(`${name}.${inner}`);
        // A customerId is refused with its own detail, though it is no field of the body.
        fields.add('customerId');
      }
      return Object.entries(jsonObject(at(operation, 'responses'))).flatMap(([status, response]) =>
        Object.entries(jsonObject(at(response, 'content', 'application/json', 'examples'))).flatMap(([name, example]) =>
          [at(example, 'value', 'details')]
            .flat(2)
            .map((detail) => String(at(detail, 'field')))
            // An item of an array names the array's field: documentIds[1].
            .filter((field) => !fields.has(field.replace(/\[\d+\]$/, '')))
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
