import { describe, expect, it } from 'vitest';
import { answerFor, type AnswerContext } from '../../lib/http/answers';
import { textsFor } from '../../lib/http/texts';
import { jsonObject } from '../support/json';

const correlationId = '5b0e4a3c-1d2f-4e6a-8b7c-9d0e1f2a3b4c';
const request = {
  requestId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  requestNumber: 'TR-7KQM-X2PF',
  status: 'SUBMITTED' as const,
  createdAt: '2030-01-10T20:00:00.000Z',
  message: 'Your early termination request No. TR-7KQM-X2PF has been submitted.',
};

function context(language: 'en' | 'ru' = 'en'): AnswerContext {
  return { correlationId, texts: textsFor(language), retryAfterSeconds: 7, location: (id) => `/requests/${id}` };
}

describe('answerFor: success', () => {
  it('created: 201 with the request, Location and the correlation id, not marked as a replay', () => {
    const { response, statusCode } = answerFor({ kind: 'created', request, refundAccount: '40817810700000000001' }, context());
    expect(statusCode).toBe(201);
    expect(JSON.parse(response.body)).toEqual(request);
    expect(response.headers).toMatchObject({ Location: `/requests/${request.requestId}`, 'X-Correlation-Id': correlationId });
    expect(response.headers?.['Idempotent-Replayed']).toBeUndefined();
    expect(response.body).not.toContain('40817810700000000001');
    expect(response.headers).toMatchObject({
      'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  it('replayed: 200 with the same bytes as the 201 and Idempotent-Replayed', () => {
    const created = answerFor({ kind: 'created', request, refundAccount: '1' }, context()).response;
    const replayed = answerFor({ kind: 'replayed', request, refundAccount: '1' }, context('ru')).response;
    expect(replayed.statusCode).toBe(200);
    expect(replayed.body).toBe(created.body);
    expect(replayed.headers?.['Idempotent-Replayed']).toBe('true');
  });

  it("found and listed: the requests the read returned, each with the message of its status in the caller's language", () => {
    const { message: _message, ...read } = request;
    const rejected = { ...read, status: 'REJECTED' as const, statusReason: 'Debt on the contract.' };
    const found = JSON.parse(answerFor({ kind: 'found', request: rejected }, context('ru')).response.body);
    expect(found).toEqual({
      ...rejected,
      message: 'Ваша заявка на досрочное расторжение договора № TR-7KQM-X2PF отклонена. Причина: Debt on the contract.',
    });
    const listed = JSON.parse(answerFor({ kind: 'listed', requests: [read], nextCursor: 'abc' }, context()).response.body);
    expect(listed).toEqual({ items: [request], nextCursor: 'abc' });
  });
});

describe('answerFor: refusals', () => {
  it('gives the error body: code, message in the language asked, correlation id, one detail per problem', () => {
    const outcome = {
      kind: 'refused' as const,
      refusal: {
        code: 'VALIDATION_ERROR' as const,
        problems: [
          { field: 'bankDetails.bik', code: 'digits' as const, limit: 9 },
          { field: 'comment', code: 'maxLength' as const, limit: 1000 },
        ],
      },
    };
    const { response, statusCode, errorCode } = answerFor(outcome, context('ru'));
    expect(statusCode).toBe(400);
    expect(errorCode).toBe('VALIDATION_ERROR');
    const body = jsonObject(JSON.parse(response.body));
    expect(Object.keys(body).sort()).toEqual(['correlationId', 'details', 'errorCode', 'message']);
    expect(body).toMatchObject({ errorCode: 'VALIDATION_ERROR', correlationId, message: textsFor('ru').error('VALIDATION_ERROR', {}) });
    expect(body['details']).toEqual([
      { field: 'bankDetails.bik', reason: 'должно состоять ровно из 9 цифр' },
      { field: 'comment', reason: 'не более 1000 символов' },
    ]);
    expect(response.headers?.['Retry-After']).toBeUndefined();
  });

  it('names the request holding the slot in the 409 message', () => {
    const refusal = {
      code: 'ACTIVE_REQUEST_ALREADY_EXISTS' as const,
      problems: [{ field: 'contractId', code: 'activeRequestExists' as const, requestNumber: 'TR-ABCD-EFGH' }],
      requestNumber: 'TR-ABCD-EFGH',
    };
    const { response, statusCode } = answerFor({ kind: 'refused', refusal }, context());
    expect(statusCode).toBe(409);
    expect(jsonObject(JSON.parse(response.body))['message']).toContain('TR-ABCD-EFGH');
  });
});

describe('answerFor: headers', () => {
  it('asks for a bearer token on 401 and only there; every error carries the security headers', () => {
    const unauthorized = answerFor({ kind: 'refused', refusal: { code: 'UNAUTHORIZED', problems: [] } }, context()).response;
    const notFound = answerFor({ kind: 'refused', refusal: { code: 'CONTRACT_NOT_FOUND', problems: [] } }, context()).response;
    expect(unauthorized.headers?.['WWW-Authenticate']).toBe('Bearer');
    expect(notFound.headers?.['WWW-Authenticate']).toBeUndefined();
    for (const response of [unauthorized, notFound]) expect(response.headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff' });
  });
});

describe('answerFor: size', () => {
  it('lists at most 20 details and echoes at most 100 characters of a field name', () => {
    const problems = Array.from({ length: 2214 }, (_, i) => ({ field: `${'k'.repeat(1900)}${i}`, code: 'unknownField' as const }));
    const { response } = answerFor({ kind: 'refused', refusal: { code: 'VALIDATION_ERROR', problems } }, context());
    const details = jsonObject(JSON.parse(response.body))['details'];
    expect(Array.isArray(details) ? details : []).toHaveLength(20);
    expect(response.body.length).toBeLessThan(4000);
    expect(response.body).toContain(`"field":"${'k'.repeat(100)}"`);
    expect(response.body).not.toContain('k'.repeat(101));
  });
});

describe('answerFor: failures', () => {
  it('unavailable: 503 with Retry-After, and nothing of the cause in the body', () => {
    const cause = new Error('connect ETIMEDOUT 10.0.0.1:443');
    const { response, statusCode } = answerFor({ kind: 'unavailable', cause }, context());
    expect(statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toBe('7');
    expect(response.body).not.toMatch(/ETIMEDOUT|10\.0\.0\.1/);
    expect(jsonObject(JSON.parse(response.body))).toMatchObject({ errorCode: 'SERVICE_UNAVAILABLE', details: [] });
  });

  it('failed: 500 with a generic message, no stack, no Retry-After', () => {
    const error = new TypeError("Cannot read properties of undefined (reading 'bik')");
    const { response, statusCode } = answerFor({ kind: 'failed', error }, context());
    expect(statusCode).toBe(500);
    expect(response.body).not.toMatch(/TypeError|bik|at /);
    expect(response.headers?.['Retry-After']).toBeUndefined();
    expect(jsonObject(JSON.parse(response.body))).toMatchObject({ errorCode: 'INTERNAL_ERROR', details: [] });
  });
});
