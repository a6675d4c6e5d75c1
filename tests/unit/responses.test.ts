import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  ActiveRequestExistsError,
  ApiError,
  BusinessRuleError,
  ContractAccessDeniedError,
  ContractNotFoundError,
  ERROR_STATUS,
  MalformedRequestError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
  type BusinessRuleCode,
} from '../../lib/http/errors';
import { asApiError, errorResponse, jsonResponse } from '../../lib/http/responses';
import { textsFor } from '../../lib/http/texts';

const CORRELATION_ID = '5b0e4a3c-1d2f-4e6a-8b7c-9d0e1f2a3b4c';
const en = textsFor('en');
const ru = textsFor('ru');

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function bodyOf(result: APIGatewayProxyResult): Record<string, unknown> {
  const parsed: unknown = JSON.parse(result.body);
  expect(isRecord(parsed)).toBe(true);
  return isRecord(parsed) ? parsed : {};
}

function headerOf(result: APIGatewayProxyResult, name: string): unknown {
  return result.headers?.[name];
}

const detail = { field: 'contractId', reason: 'some reason' };

const CASES: [string, ApiError, number, string][] = [
  ['MalformedRequestError', new MalformedRequestError([{ field: 'body', reason: 'not json' }]), 400, 'MALFORMED_REQUEST'],
  ['ValidationError', new ValidationError([{ field: 'bankDetails.bik', reason: 'nine digits' }]), 400, 'VALIDATION_ERROR'],
  [
    'ApiError IDEMPOTENCY_KEY_MISSING',
    new ApiError('IDEMPOTENCY_KEY_MISSING', [{ field: 'Idempotency-Key', reason: 'required' }]),
    400,
    'IDEMPOTENCY_KEY_MISSING',
  ],
  ['UnauthorizedError', new UnauthorizedError(), 401, 'UNAUTHORIZED'],
  ['ContractAccessDeniedError', new ContractAccessDeniedError(detail), 403, 'CONTRACT_ACCESS_DENIED'],
  ['ContractNotFoundError', new ContractNotFoundError(detail), 404, 'CONTRACT_NOT_FOUND'],
  ['ActiveRequestExistsError', new ActiveRequestExistsError('TR-ABCD-EFGH', detail), 409, 'ACTIVE_REQUEST_ALREADY_EXISTS'],
  ...(
    [
      'CONTRACT_NOT_ACTIVE',
      'TERMINATION_DATE_AFTER_CONTRACT_END',
      'BANK_ACCOUNT_KEY_MISMATCH',
      'COMMENT_REQUIRED',
      'IDEMPOTENCY_KEY_REUSED',
    ] satisfies BusinessRuleCode[]
  ).map((code): [string, ApiError, number, string] => [`BusinessRuleError ${code}`, new BusinessRuleError(code, detail), 422, code]),
  ['ServiceUnavailableError', new ServiceUnavailableError(new Error('ThrottlingException')), 503, 'SERVICE_UNAVAILABLE'],
];

describe('ERROR_STATUS', () => {
  it('maps the codes of the spec and the decisions to their statuses', () => {
    expect(ERROR_STATUS).toEqual({
      MALFORMED_REQUEST: 400,
      VALIDATION_ERROR: 400,
      IDEMPOTENCY_KEY_MISSING: 400,
      UNAUTHORIZED: 401,
      CONTRACT_ACCESS_DENIED: 403,
      CONTRACT_NOT_FOUND: 404,
      ACTIVE_REQUEST_ALREADY_EXISTS: 409,
      CONTRACT_NOT_ACTIVE: 422,
      TERMINATION_DATE_AFTER_CONTRACT_END: 422,
      BANK_ACCOUNT_KEY_MISMATCH: 422,
      COMMENT_REQUIRED: 422,
      IDEMPOTENCY_KEY_REUSED: 422,
      INTERNAL_ERROR: 500,
      SERVICE_UNAVAILABLE: 503,
    });
  });
});

describe('error mapping', () => {
  it.each(CASES)('%s -> its status and errorCode', (_name, error, status, errorCode) => {
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(status);
    expect(error.errorCode).toBe(errorCode);
    expect(asApiError(error)).toBe(error);

    const result = errorResponse(asApiError(error), CORRELATION_ID, en, 7);
    expect(result.statusCode).toBe(status);
    const body = bodyOf(result);
    expect(Object.keys(body).sort()).toEqual(['correlationId', 'details', 'errorCode', 'message']);
    expect(body['errorCode']).toBe(errorCode);
    expect(body['correlationId']).toBe(CORRELATION_ID);
    expect(headerOf(result, 'X-Correlation-Id')).toBe(CORRELATION_ID);
    expect(body['message']).toBe(en.error(error.errorCode, error.messageArgs));
    expect(typeof body['message']).toBe('string');
    expect(body['details']).toEqual(error.details);
    expect(Array.isArray(body['details'])).toBe(true);
    expect(String(headerOf(result, 'Content-Type'))).toMatch(/^application\/json/);
  });

  it.each(CASES.filter(([name]) => name !== 'ServiceUnavailableError'))('%s has no Retry-After', (_name, error) => {
    expect(headerOf(errorResponse(error, CORRELATION_ID, en, 7), 'Retry-After')).toBeUndefined();
  });

  it('ServiceUnavailableError -> 503 with Retry-After from the argument', () => {
    const cause = new Error('connect ETIMEDOUT 10.0.0.1:443');
    const error = new ServiceUnavailableError(cause);
    expect(error.cause).toBe(cause);
    const result = errorResponse(error, CORRELATION_ID, en, 7);
    expect(result.statusCode).toBe(503);
    expect(headerOf(result, 'Retry-After')).toBe('7');
    expect(headerOf(errorResponse(error, CORRELATION_ID, en, 120), 'Retry-After')).toBe('120');
    expect(result.body).not.toContain('ETIMEDOUT');
    expect(result.body).not.toContain('10.0.0.1');
  });

  it('the 409 message names the existing request and the details name contractId', () => {
    const body = bodyOf(
      errorResponse(new ActiveRequestExistsError('TR-ABCD-EFGH', { field: 'contractId', reason: 'r' }), CORRELATION_ID, en, 1),
    );
    expect(String(body['message'])).toContain('TR-ABCD-EFGH');
    expect(body['details']).toEqual([{ field: 'contractId', reason: 'r' }]);
  });

  it('the message follows the texts given', () => {
    const error = new ContractNotFoundError(detail);
    const enBody = bodyOf(errorResponse(error, CORRELATION_ID, en, 1));
    const ruBody = bodyOf(errorResponse(error, CORRELATION_ID, ru, 1));
    expect(enBody['message']).toBe(en.error('CONTRACT_NOT_FOUND', {}));
    expect(ruBody['message']).toBe(ru.error('CONTRACT_NOT_FOUND', {}));
    expect(ruBody['message']).not.toBe(enBody['message']);
  });

  it('an error without details has an empty details array', () => {
    const body = bodyOf(errorResponse(new UnauthorizedError(), CORRELATION_ID, en, 1));
    expect(body['details']).toEqual([]);
  });
});

describe('unexpected errors', () => {
  const secret = new Error(
    'ResourceNotFoundException: table arn:aws:dynamodb:eu-central-1:123456789012:table/secret-requests at /var/task/index.js:42',
  );

  it.each([
    ['an Error', secret],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'customerId')")],
    ['a string', 'something broke: password=hunter2'],
    ['undefined', undefined],
    ['null', null],
    ['an object', { message: 'internal detail' }],
  ])('%s -> 500 INTERNAL_ERROR', (_name, thrown) => {
    const apiError = asApiError(thrown);
    expect(apiError).toBeInstanceOf(ApiError);
    expect(apiError.errorCode).toBe('INTERNAL_ERROR');
    expect(apiError.status).toBe(500);
    const result = errorResponse(apiError, CORRELATION_ID, en, 1);
    expect(result.statusCode).toBe(500);
    const body = bodyOf(result);
    expect(body).toEqual({
      errorCode: 'INTERNAL_ERROR',
      message: en.error('INTERNAL_ERROR', {}),
      correlationId: CORRELATION_ID,
      details: [],
    });
    expect(headerOf(result, 'X-Correlation-Id')).toBe(CORRELATION_ID);
    expect(headerOf(result, 'Retry-After')).toBeUndefined();
  });

  it('does not leak the original message or stack into the body', () => {
    const result = errorResponse(asApiError(secret), CORRELATION_ID, en, 1);
    expect(result.body).not.toContain('ResourceNotFoundException');
    expect(result.body).not.toContain('secret-requests');
    expect(result.body).not.toContain('123456789012');
    expect(result.body).not.toContain('index.js');
    expect(result.body).not.toMatch(/\bat \S+:\d+/);
    expect(result.body).not.toContain(String(secret.stack).split('\n')[1]?.trim() ?? 'no stack line');
    const leak = errorResponse(asApiError('something broke: password=hunter2'), CORRELATION_ID, en, 1);
    expect(leak.body).not.toContain('hunter2');
  });

  it('has a generic message in both languages', () => {
    expect(bodyOf(errorResponse(asApiError(secret), CORRELATION_ID, ru, 1))['message']).toBe(ru.error('INTERNAL_ERROR', {}));
  });
});

describe('jsonResponse', () => {
  it('serializes the body and sets JSON, no-store and the correlation id', () => {
    const result = jsonResponse(201, { requestNumber: 'TR-ABCD-EFGH' }, CORRELATION_ID, { Location: '/x' });
    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body)).toEqual({ requestNumber: 'TR-ABCD-EFGH' });
    expect(result.headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Correlation-Id': CORRELATION_ID,
      Location: '/x',
    });
  });
});
