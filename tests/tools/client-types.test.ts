import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import type { CreateErrorCode, GetError } from '../../client';
import { at } from '../support/json';
import { documentedResponse, loadDocument } from '../support/openapi-document';

/*
 * The client's types are the API description's: a client switching on errorCode is checked by
 * the compiler (tsc runs over this file in npm test), and the generated types are current.
 */

/** Every errorCode a create can answer with, each handled: a new one breaks this until handled. */
function actionFor(code: CreateErrorCode): 'fix the form' | 'sign in' | 'show the message' | 'retry later' {
  switch (code) {
    case 'MALFORMED_REQUEST':
    case 'VALIDATION_ERROR':
    case 'IDEMPOTENCY_KEY_MISSING':
    case 'BANK_ACCOUNT_KEY_MISMATCH':
    case 'COMMENT_REQUIRED':
    case 'TERMINATION_DATE_AFTER_CONTRACT_END':
    case 'DOCUMENT_NOT_AVAILABLE':
      return 'fix the form';
    case 'UNAUTHORIZED':
      return 'sign in';
    case 'CONTRACT_ACCESS_DENIED':
    case 'ACCESS_DENIED':
    case 'CONTRACT_NOT_FOUND':
    case 'ROUTE_NOT_FOUND':
    case 'ACTIVE_REQUEST_ALREADY_EXISTS':
    case 'TERMINATION_REQUEST_NOT_FOUND':
    case 'CONTRACT_NOT_ACTIVE':
    case 'IDEMPOTENCY_KEY_REUSED':
    case 'REQUEST_TOO_LARGE':
    case 'WAF_FILTERED':
    case 'REQUEST_LIMIT_REACHED':
      // Not retried: REQUEST_LIMIT_REACHED's message says from when a new request is possible (nextRequestAllowedAt);
      // TERMINATION_REQUEST_NOT_FOUND is a retry whose request was erased at the customer's request.
      return 'show the message';
    case 'THROTTLED':
    case 'INTERNAL_ERROR':
    case 'SERVICE_UNAVAILABLE':
      return 'retry later';
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/** The same switch, one code short: the compiler refuses it (the expect-error proves it). */
export function forgetsOne(code: CreateErrorCode): string {
  switch (code) {
    case 'MALFORMED_REQUEST':
    case 'VALIDATION_ERROR':
    case 'IDEMPOTENCY_KEY_MISSING':
    case 'BANK_ACCOUNT_KEY_MISMATCH':
    case 'COMMENT_REQUIRED':
    case 'TERMINATION_DATE_AFTER_CONTRACT_END':
    case 'DOCUMENT_NOT_AVAILABLE':
    case 'UNAUTHORIZED':
    case 'CONTRACT_ACCESS_DENIED':
    case 'ACCESS_DENIED':
    case 'CONTRACT_NOT_FOUND':
    case 'ROUTE_NOT_FOUND':
    case 'ACTIVE_REQUEST_ALREADY_EXISTS':
    case 'TERMINATION_REQUEST_NOT_FOUND':
    case 'CONTRACT_NOT_ACTIVE':
    case 'IDEMPOTENCY_KEY_REUSED':
    case 'REQUEST_LIMIT_REACHED':
    case 'REQUEST_TOO_LARGE':
    case 'WAF_FILTERED':
    case 'THROTTLED':
    case 'INTERNAL_ERROR':
      return 'handled';
    default: {
      // @ts-expect-error SERVICE_UNAVAILABLE is not handled, so `code` is not `never` here.
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/** The codes actionFor handles, written out once more so the document can be compared with them. */
const HANDLED = [
  'MALFORMED_REQUEST',
  'VALIDATION_ERROR',
  'IDEMPOTENCY_KEY_MISSING',
  'BANK_ACCOUNT_KEY_MISMATCH',
  'COMMENT_REQUIRED',
  'TERMINATION_DATE_AFTER_CONTRACT_END',
  'DOCUMENT_NOT_AVAILABLE',
  'UNAUTHORIZED',
  'CONTRACT_ACCESS_DENIED',
  'ACCESS_DENIED',
  'CONTRACT_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'ACTIVE_REQUEST_ALREADY_EXISTS',
  'TERMINATION_REQUEST_NOT_FOUND',
  'CONTRACT_NOT_ACTIVE',
  'IDEMPOTENCY_KEY_REUSED',
  'REQUEST_LIMIT_REACHED',
  'REQUEST_TOO_LARGE',
  'WAF_FILTERED',
  'THROTTLED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const satisfies readonly CreateErrorCode[];
// And no CreateErrorCode is missing from HANDLED:
const noneMissing: [Exclude<CreateErrorCode, (typeof HANDLED)[number]>] extends [never] ? true : false = true;

describe("the client's types", () => {
  it('know exactly the errorCodes the API description lists for a create', () => {
    const document = loadDocument();
    const documented = [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503].flatMap(
      (status) => documentedResponse(document, status)?.exampleCodes ?? [],
    );
    expect(noneMissing).toBe(true);
    expect(new Set(documented)).toEqual(new Set(HANDLED));
    expect(new Set([at(document, 'components', 'schemas', 'CreateErrorCode', 'enum')].flat())).toEqual(new Set(HANDLED));
    expect(HANDLED.map(actionFor)).not.toContain(undefined);
  });

  it('narrow errors by operation: a GET can answer TERMINATION_REQUEST_NOT_FOUND, never IDEMPOTENCY_KEY_REUSED', () => {
    const notFound: GetError['errorCode'] = 'TERMINATION_REQUEST_NOT_FOUND';
    // @ts-expect-error no GET answers with an idempotency error
    const impossible: GetError['errorCode'] = 'IDEMPOTENCY_KEY_REUSED';
    expect([notFound, impossible]).toHaveLength(2);
  });

  it('are what openapi-typescript makes of docs/openapi.yaml today (run npm run client:types after changing it)', async () => {
    const generated = astToString(await openapiTS(new URL('../../docs/openapi.yaml', import.meta.url)));
    expect(readFileSync(new URL('../../client/api-types.ts', import.meta.url), 'utf8')).toContain(generated.trim());
  });
});
