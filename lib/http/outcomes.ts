import type { CreateOutcome } from '../termination/create-termination-request';
import type { CustomerListOutcome } from '../termination/customer-requests';
import type { DetailsOutcome } from '../termination/request-details';
import type { ReadOutcome } from '../termination/read-termination-requests';
import type { ReasonsOutcome } from '../termination/reasons';
import type { Refusal } from '../termination/refusals';
import type { WithdrawOutcome } from '../termination/withdraw-termination-request';
import type { ErrorCode } from './errors';
import type { DecisionOutcome } from '../termination/apply-status-decision';

/*
 * Every outcome the API answers with, in one table: its HTTP status (docs/decisions/0011-error-body.md),
 * the level, message and `outcome` field of its one log line, and the metric it counts in
 * (docs/operations.md). The `satisfies` makes a new outcome of a use case, or a new error code,
 * fail to compile until its row chooses all of them.
 */

/** What the edge saw, on top of the use cases' outcomes: its own refusals and plain failures. */
export type Outcome =
  | CreateOutcome
  | ReadOutcome
  | DetailsOutcome
  | CustomerListOutcome
  | WithdrawOutcome
  | ReasonsOutcome
  | { kind: 'refused'; refusal: Refusal<ErrorCode> }
  | { kind: 'failed'; error: unknown };

/** An outcome as the table knows it: a success by its kind, anything else by its error code. */
export type OutcomeKey = Exclude<Outcome['kind'], 'refused' | 'unavailable' | 'failed'> | ErrorCode;

/** One log line: its level, its message, and its `outcome` field. */
interface LogLine<Outcome extends string = string> {
  level: 'info' | 'error';
  message: string;
  outcome: Outcome;
}

type ApiLogOutcome = 'created' | 'replayed' | 'read' | 'withdrawn' | 'refused' | 'failed';

const line = <Outcome extends string>(message: string, outcome: Outcome, level: LogLine['level'] = 'info'): LogLine<Outcome> => ({
  level,
  message,
  outcome,
});
const REFUSED = line('request refused', 'refused');
// A 500 or a 503 is the service's failure, not a refusal of the call: logged as one.
const FAILED = line('request failed', 'failed', 'error');

interface Row {
  status: number;
  log: LogLine<ApiLogOutcome>;
  /** A count of one per answer (lib/observability/metrics.ts). */
  metric: string;
}

export const OUTCOMES = {
  created: { status: 201, log: line('request answered', 'created'), metric: 'RequestsCreated' },
  replayed: { status: 200, log: line('request answered', 'replayed'), metric: 'RequestsReplayed' },
  found: { status: 200, log: line('request read', 'read'), metric: 'RequestsRead' },
  listed: { status: 200, log: line('requests listed', 'read'), metric: 'RequestsRead' },
  details: { status: 200, log: line('request details read', 'read'), metric: 'RequestsRead' },
  'customer-listed': { status: 200, log: line("customer's requests listed", 'read'), metric: 'RequestsRead' },
  reasons: { status: 200, log: line('reasons listed', 'read'), metric: 'RequestsRead' },
  withdrawn: { status: 200, log: line('request withdrawn', 'withdrawn'), metric: 'RequestsWithdrawn' },
  'withdrawal-replayed': { status: 200, log: line('request withdrawn', 'replayed'), metric: 'RequestsReplayed' },
  MALFORMED_REQUEST: { status: 400, log: REFUSED, metric: 'ValidationFailures' },
  VALIDATION_ERROR: { status: 400, log: REFUSED, metric: 'ValidationFailures' },
  IDEMPOTENCY_KEY_MISSING: { status: 400, log: REFUSED, metric: 'ValidationFailures' },
  UNAUTHORIZED: { status: 401, log: REFUSED, metric: 'AccessRefusals' },
  CONTRACT_ACCESS_DENIED: { status: 403, log: REFUSED, metric: 'AccessRefusals' },
  CONTRACT_NOT_FOUND: { status: 404, log: REFUSED, metric: 'AccessRefusals' },
  TERMINATION_REQUEST_NOT_FOUND: { status: 404, log: REFUSED, metric: 'AccessRefusals' },
  // A client that makes a new key for the same intent: a client bug (docs/operations.md).
  ACTIVE_REQUEST_ALREADY_EXISTS: { status: 409, log: REFUSED, metric: 'ActiveRequestConflicts' },
  // A withdrawal of what the bank has moved on, or of a request withdrawn already: a race, no client bug.
  REQUEST_NOT_WITHDRAWABLE: { status: 409, log: REFUSED, metric: 'WithdrawalConflicts' },
  CONTRACT_NOT_ACTIVE: { status: 422, log: REFUSED, metric: 'BusinessRejections' },
  TERMINATION_DATE_AFTER_CONTRACT_END: { status: 422, log: REFUSED, metric: 'BusinessRejections' },
  BANK_ACCOUNT_KEY_MISMATCH: { status: 422, log: REFUSED, metric: 'BusinessRejections' },
  COMMENT_REQUIRED: { status: 422, log: REFUSED, metric: 'BusinessRejections' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, log: REFUSED, metric: 'BusinessRejections' },
  // Documents that are not the caller's usable ones: unknown, another customer's, or not usable alike (0019-documents.md).
  DOCUMENT_NOT_AVAILABLE: { status: 422, log: REFUSED, metric: 'BusinessRejections' },
  // A business refusal with the time a new request is possible, not a rate limit: clients do not retry it (0020-request-limit.md).
  REQUEST_LIMIT_REACHED: { status: 422, log: REFUSED, metric: 'BusinessRejections' },
  INTERNAL_ERROR: { status: 500, log: FAILED, metric: 'InternalErrors' },
  SERVICE_UNAVAILABLE: { status: 503, log: FAILED, metric: 'DependencyFailures' },
} as const satisfies Record<OutcomeKey, Row>;

export type OutcomeMetric = (typeof OUTCOMES)[OutcomeKey]['metric'];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.entries(OUTCOMES).some(([key, row]) => key === value && (row.log.outcome === 'refused' || row.log.outcome === 'failed'));
}

/**
 * The back-office decision's outcomes (functions/apply-status-decision.ts), beside the routes':
 * the level and message of the one line each is logged with, and its `outcome` field. A refusal
 * is an ERROR: the decision goes to the dead-letter queue.
 */
export const DECISION_OUTCOMES = {
  applied: line('Decision applied', 'applied'),
  duplicate: line('Decision already applied', 'duplicate'),
  refused: line('Decision refused: sent to the dead-letter queue', 'refused', 'error'),
} as const satisfies Record<DecisionOutcome['kind'], LogLine>;

/** Every errorCode the API answers with, in the table's order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.keys(OUTCOMES).filter(isErrorCode);
