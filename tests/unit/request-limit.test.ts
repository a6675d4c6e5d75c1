import { describe, expect, it } from 'vitest';
import { loadCreateConfig } from '../../lib/config';
import { buildCreateTransaction, explainCreateRefusal } from '../../lib/dynamodb/create-transaction';
import { createdAtSecondsOf, requestLimitUpdate } from '../../lib/dynamodb/request-limit';
import { partItem } from '../../lib/dynamodb/write-parts';
import { answerFor } from '../../lib/http/answers';
import { textsFor } from '../../lib/http/texts';
import { limitConditionFor, limitRefusal, nextRequestAllowedAt } from '../../lib/termination/request-limit';
import { SAMPLE_REQUEST } from '../support/sample-request';
import { at, parsedObject } from '../support/json';
import { envVariables, stageParams } from '../support/serverless-yml';

/*
 * The limit of one customer's requests on one contract (docs/decisions/0020-request-limit.md):
 * the update the create's write carries, what a refused one reads back, the rule, the answer.
 * DynamoDB Local holds the update to its meaning in tests/integration/request-limit.test.ts.
 */

const NOW = 1_900_000_000;
const DAY = 86_400;
const LIMIT = { count: 3, periodDays: 30 };
const tables = { requests: 'requests', contracts: 'contracts', documents: 'documents' };

describe('the limit record in the create transaction', () => {
  it("shifts the times by one, the new request's first, under the condition that the oldest kept is outside the period", () => {
    // Created at NOW - 0.5 s: counted from NOW, its creation rounded up; the window ends at NOW + 1 s, now rounded down.
    expect(requestLimitUpdate('requests', 'c-1', 'customer-anna', limitConditionFor(LIMIT, NOW, NOW + 1))).toEqual({
      TableName: 'requests',
      Key: { pk: 'CONTRACT#c-1', sk: 'REQUEST_LIMIT#customer-anna' },
      UpdateExpression:
        'SET #kind = :kind, customerId = :customerId, expiresAt = :expiresAt, t0 = :now, t1 = if_not_exists(t0, :none), t2 = if_not_exists(t1, :none)',
      ConditionExpression: 'attribute_not_exists(t2) OR t2 <= :windowStart',
      ExpressionAttributeNames: { '#kind': 'kind' },
      ExpressionAttributeValues: {
        ':kind': 'REQUEST_LIMIT',
        ':customerId': 'customer-anna',
        ':now': NOW,
        ':none': 0,
        ':windowStart': NOW + 1 - 30 * DAY,
        ':expiresAt': NOW + 30 * DAY,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('keeps one time when one request is allowed, and names no value it does not use (DynamoDB refuses the update then)', () => {
    const update = requestLimitUpdate('requests', 'c-1', 'customer-anna', limitConditionFor({ count: 1, periodDays: 1 }, NOW, NOW));
    expect([update.UpdateExpression, update.ConditionExpression]).toEqual([
      'SET #kind = :kind, customerId = :customerId, expiresAt = :expiresAt, t0 = :now',
      'attribute_not_exists(t0) OR t0 <= :windowStart',
    ]);
    expect(Object.keys(update.ExpressionAttributeValues ?? {}).sort()).toEqual([
      ':customerId',
      ':expiresAt',
      ':kind',
      ':now',
      ':windowStart',
    ]);
  });

  it('comes last in the transaction, after the request and the documents', () => {
    const documentIds = ['d0c5e1a2-4b6f-4c3d-8e9a-000000000001', 'd0c5e1a2-4b6f-4c3d-8e9a-000000000002'];
    const request = { ...SAMPLE_REQUEST, input: { ...SAMPLE_REQUEST.input, documentIds } };
    const write = buildCreateTransaction(tables, request, NOW);
    expect(write.parts.map(({ name }) => name)).toEqual(['key', 'contract', 'slot', 'number', 'request', 'document', 'document', 'limit']);
    expect(write.input.TransactItems).toHaveLength(8);
    expect(partItem(write, 'limit')?.Update?.Key).toEqual({
      pk: `CONTRACT#${request.contractId}`,
      sk: `REQUEST_LIMIT#${request.customerId}`,
    });
  });

  it('reads the times a record holds, newest first, up to the first it has none for', () => {
    expect(createdAtSecondsOf({ t0: 30, t1: 20, t2: 10 }, LIMIT)).toEqual([30, 20, 10]);
    expect(createdAtSecondsOf({ t0: 30, t1: 0, t2: 0 }, LIMIT)).toEqual([30]);
    expect(createdAtSecondsOf({ t0: 30, t1: 20, t2: 10, t3: 5 }, { count: 2, periodDays: 30 })).toEqual([30, 20]);
    expect(createdAtSecondsOf(undefined, LIMIT)).toBeUndefined();
    expect(() => createdAtSecondsOf({ t0: '30' }, LIMIT)).toThrow(/Malformed request limit record: t0/);
  });

  it('reports the limit reached with the times the refused record holds', () => {
    const request = { ...SAMPLE_REQUEST, limit: limitConditionFor(LIMIT, NOW, NOW) };
    const failedLimit = (item: Record<string, unknown> | undefined, readAfter: boolean) => ({
      part: 'limit' as const,
      failed: [{ name: 'limit' as const }],
      item,
      readAfter,
    });
    expect(explainCreateRefusal(failedLimit({ t0: 30, t1: 20, t2: 10 }, false), request, NOW)).toEqual({
      kind: 'limit-reached',
      createdAtSeconds: [30, 20, 10],
    });
    // Gone by the read after (it expired): no times, so no time to name.
    expect(explainCreateRefusal(failedLimit(undefined, true), request, NOW)).toEqual({
      kind: 'limit-reached',
      createdAtSeconds: undefined,
    });
  });
});

describe('the rule', () => {
  it('allows a new request a period after the oldest of the latest `count`, and says so only while that is ahead', () => {
    const times = [NOW - DAY, NOW - 2 * DAY, NOW - 10 * DAY];
    expect(nextRequestAllowedAt(times, LIMIT, NOW)).toBe(NOW + 20 * DAY);
    expect(nextRequestAllowedAt(times, LIMIT, NOW + 20 * DAY)).toBeUndefined();
    expect(nextRequestAllowedAt(times.slice(0, 2), LIMIT, NOW)).toBeUndefined();
    expect(nextRequestAllowedAt(undefined, LIMIT, NOW)).toBeUndefined();
  });

  it('refuses with REQUEST_LIMIT_REACHED, the figures and the time, in details and in its own field', () => {
    expect(limitRefusal({ count: 5, periodDays: 30 }, Date.UTC(2026, 11, 24, 9, 0, 30) / 1000, 'Europe/Moscow').refusal).toEqual({
      code: 'REQUEST_LIMIT_REACHED',
      problems: [
        {
          field: 'contractId',
          code: 'requestLimitReached',
          limit: 5,
          days: 30,
          from: '2026-12-24T09:00:30.000Z',
          timeZone: 'Europe/Moscow',
        },
      ],
      nextRequestAllowedAt: '2026-12-24T09:00:30.000Z',
      timeZone: 'Europe/Moscow',
    });
  });
});

describe('the answer', () => {
  const answer = (language: 'en' | 'ru', limit = { count: 5, periodDays: 30 }) =>
    answerFor(
      { kind: 'refused', refusal: limitRefusal(limit, Date.UTC(2026, 11, 24, 9, 0, 30) / 1000, 'Europe/Moscow').refusal },
      { correlationId: 'c', texts: textsFor(language), retryAfterSeconds: 1, location: () => '' },
    ).response;

  it('is a 422 without Retry-After, with nextRequestAllowedAt, and texts that name the same moment, to the second, in the business time zone, named', () => {
    const response = answer('en');
    expect(response.statusCode).toBe(422);
    expect(response.headers?.['Retry-After']).toBeUndefined();
    expect(parsedObject(response.body)).toEqual({
      errorCode: 'REQUEST_LIMIT_REACHED',
      message:
        'You have reached the limit of termination requests for this contract. A new request is possible from 2026-12-24 12:00:30 (Moscow Standard Time).',
      correlationId: 'c',
      details: [
        {
          field: 'contractId',
          reason: 'at most 5 requests per contract in 30 days; a new one is possible from 2026-12-24 12:00:30 (Moscow Standard Time)',
        },
      ],
      nextRequestAllowedAt: '2026-12-24T09:00:30.000Z',
    });
  });

  it('speaks Russian, with the forms of the counts', () => {
    const reasonOf = (limit: { count: number; periodDays: number }) => at(parsedObject(answer('ru', limit).body), 'details', 0, 'reason');
    const body = parsedObject(answer('ru').body);
    expect(body['message']).toBe(
      'Достигнуто предельное число заявок на расторжение по этому договору. Новую заявку можно подать с 2026-12-24 12:00:30 (Москва, стандартное время).',
    );
    expect(at(body, 'details', 0, 'reason')).toBe(
      'не более 5 заявок по договору за 30 дней; новую можно подать с 2026-12-24 12:00:30 (Москва, стандартное время)',
    );
    expect(reasonOf({ count: 1, periodDays: 21 })).toMatch(/^не более 1 заявки по договору за 21 день;/);
    expect(reasonOf({ count: 2, periodDays: 3 })).toMatch(/^не более 2 заявок по договору за 3 дня;/);
  });

  it('adds no field to any other error body', () => {
    const other = answerFor(
      { kind: 'refused', refusal: { code: 'CONTRACT_NOT_ACTIVE', problems: [] } },
      { correlationId: 'c', texts: textsFor('en'), retryAfterSeconds: 1, location: () => '' },
    );
    expect(Object.keys(parsedObject(other.response.body))).toEqual(['errorCode', 'message', 'correlationId', 'details']);
  });
});

describe('the settings', () => {
  const required = { REQUESTS_TABLE_NAME: 'r', CONTRACTS_TABLE_NAME: 'c', DOCUMENTS_TABLE_NAME: 'd' };

  it('default to 5 requests in 30 days, the figures serverless.yml passes when the environment sets none', () => {
    expect(loadCreateConfig(required).requestLimit).toEqual({ count: 5, periodDays: 30 });
    const packaged = envVariables(stageParams()['default']);
    expect(packaged).toContainEqual({ name: 'REQUEST_LIMIT_COUNT', fallback: '5' });
    expect(packaged).toContainEqual({ name: 'REQUEST_LIMIT_DAYS', fallback: '30' });
  });

  it('take 1 to 10 requests and 1 to 365 days, and require the documents table', () => {
    expect(loadCreateConfig({ ...required, REQUEST_LIMIT_COUNT: '10', REQUEST_LIMIT_DAYS: '365' }).requestLimit).toEqual({
      count: 10,
      periodDays: 365,
    });
    expect(() => loadCreateConfig({ ...required, REQUEST_LIMIT_COUNT: '11', REQUEST_LIMIT_DAYS: '0' })).toThrow(
      /REQUEST_LIMIT_COUNT must be an integer from 1 to 10, got "11"; REQUEST_LIMIT_DAYS must be an integer from 1 to 365, got "0"/,
    );
    expect(() => loadCreateConfig({ REQUESTS_TABLE_NAME: 'r', CONTRACTS_TABLE_NAME: 'c' })).toThrow(/DOCUMENTS_TABLE_NAME is required/);
  });
});
