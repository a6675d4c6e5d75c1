import { afterEach, describe, expect, it, vi } from 'vitest';
import { ERROR_CODES, OUTCOMES, type Outcome, type OutcomeKey } from '../../lib/http/outcomes';
import { apiEvent } from '../../scripts/local/api-event';

/*
 * One outcome, one row: the status an answer gets, its log line and the metric it
 * counts in come from lib/http/outcomes.ts alone, and the runbook names exactly its metrics.
 */

/** Each outcome's status and metric, written out by hand: what on-call reads each count as (docs/operations.md). */
const EXPECTED: Record<OutcomeKey, [number, string]> = {
  created: [201, 'RequestsCreated'],
  replayed: [200, 'RequestsReplayed'],
  found: [200, 'RequestsRead'],
  listed: [200, 'RequestsRead'],
  details: [200, 'RequestsRead'],
  'customer-listed': [200, 'RequestsRead'],
  reasons: [200, 'RequestsRead'],
  withdrawn: [200, 'RequestsWithdrawn'],
  'withdrawal-replayed': [200, 'RequestsReplayed'],
  MALFORMED_REQUEST: [400, 'ValidationFailures'],
  VALIDATION_ERROR: [400, 'ValidationFailures'],
  IDEMPOTENCY_KEY_MISSING: [400, 'ValidationFailures'],
  UNAUTHORIZED: [401, 'AccessRefusals'],
  CONTRACT_ACCESS_DENIED: [403, 'AccessRefusals'],
  CONTRACT_NOT_FOUND: [404, 'AccessRefusals'],
  TERMINATION_REQUEST_NOT_FOUND: [404, 'AccessRefusals'],
  ACTIVE_REQUEST_ALREADY_EXISTS: [409, 'ActiveRequestConflicts'],
  REQUEST_NOT_WITHDRAWABLE: [409, 'WithdrawalConflicts'],
  CONTRACT_NOT_ACTIVE: [422, 'BusinessRejections'],
  TERMINATION_DATE_AFTER_CONTRACT_END: [422, 'BusinessRejections'],
  BANK_ACCOUNT_KEY_MISMATCH: [422, 'BusinessRejections'],
  COMMENT_REQUIRED: [422, 'BusinessRejections'],
  IDEMPOTENCY_KEY_REUSED: [422, 'BusinessRejections'],
  DOCUMENT_NOT_AVAILABLE: [422, 'BusinessRejections'],
  REQUEST_LIMIT_REACHED: [422, 'BusinessRejections'],
  INTERNAL_ERROR: [500, 'InternalErrors'],
  SERVICE_UNAVAILABLE: [503, 'DependencyFailures'],
};

describe('the outcome table', () => {
  it.each(Object.entries(OUTCOMES))('%s', (key, row) => {
    expect([row.status, row.metric]).toEqual(Object.entries(EXPECTED).find(([k]) => k === key)?.[1]);
  });

  it('logs the two failures (500, 503) at ERROR and every other answer at INFO', () => {
    const errors = Object.entries(OUTCOMES).filter(([, row]) => row.log.level === 'error');
    expect(errors.map(([key]) => key)).toEqual(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);
  });

  it('lists as error codes exactly the outcomes answered with an error body', () => {
    expect(ERROR_CODES).toEqual(Object.keys(EXPECTED).filter((key) => /^[A-Z_]+$/.test(key)));
  });
});

describe("an answer's status, log line and metric come from its row", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
    vi.restoreAllMocks();
  });

  const refusal = (code: 'REQUEST_NOT_WITHDRAWABLE' | 'ACTIVE_REQUEST_ALREADY_EXISTS'): Outcome => ({
    kind: 'refused',
    refusal: { code, problems: [] },
  });

  const withdrawn: Outcome = {
    kind: 'withdrawn',
    withdrawal: { requestId: 'r', status: 'WITHDRAWN', withdrawnAt: '2030-01-01T00:00:00.000Z', message: 'm' },
  };

  it.each<[string, number, string, string, string, Outcome]>([
    [
      'a withdrawal of a request no longer withdrawable',
      409,
      'WithdrawalConflicts',
      'INFO',
      'request refused',
      refusal('REQUEST_NOT_WITHDRAWABLE'),
    ],
    ['a second active request', 409, 'ActiveRequestConflicts', 'INFO', 'request refused', refusal('ACTIVE_REQUEST_ALREADY_EXISTS')],
    ['a withdrawal', 200, 'RequestsWithdrawn', 'INFO', 'request withdrawn', withdrawn],
    ['DynamoDB unavailable', 503, 'DependencyFailures', 'ERROR', 'request failed', { kind: 'unavailable', cause: new Error('throttled') }],
  ])('%s: %i, counted as %s, logged at %s', async (_title, status, metric, level, message, outcome) => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'TestNamespace');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    vi.resetModules(); // the logger and the metrics read the environment when first imported
    const { readEdge, respond } = await import('../../lib/http/edge');
    const lines: string[] = [];
    const capture = (chunk: string | Uint8Array) => {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    };
    // Powertools writes INFO lines and metrics to stdout, ERROR lines to stderr.
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    const answer = respond(readEdge(apiEvent({ withdrawal: true, requestId: 'r' })), outcome, { retryAfterSeconds: 1, allowedOrigins: [] });
    const parsed = lines.map((line): unknown => JSON.parse(line));
    expect(answer.statusCode).toBe(status);
    expect(parsed).toContainEqual(expect.objectContaining({ level, message, statusCode: status }));
    const counted = parsed.filter((line) => line !== null && typeof line === 'object' && '_aws' in line);
    expect(counted).toEqual([expect.objectContaining({ [metric]: 1 })]);
  });
});
