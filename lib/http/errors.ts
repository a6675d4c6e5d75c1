import type { Refusal, RefusalCode } from '../termination/refusals';
import type { Problem } from '../api-model/problems';

/** Refusals made at the edge, before the use case runs. */
export type EdgeRefusalCode = 'MALFORMED_REQUEST' | 'UNAUTHORIZED';

/**
 * Every errorCode the API answers with and its status (docs/decisions/0011-error-body.md). The
 * `satisfies` makes a new refusal of the domain or the edge fail to compile until it has one.
 */
export const ERROR_STATUS = {
  MALFORMED_REQUEST: 400,
  VALIDATION_ERROR: 400,
  IDEMPOTENCY_KEY_MISSING: 400,
  UNAUTHORIZED: 401,
  CONTRACT_ACCESS_DENIED: 403,
  CONTRACT_NOT_FOUND: 404,
  TERMINATION_REQUEST_NOT_FOUND: 404,
  ACTIVE_REQUEST_ALREADY_EXISTS: 409,
  REQUEST_NOT_WITHDRAWABLE: 409,
  CONTRACT_NOT_ACTIVE: 422,
  TERMINATION_DATE_AFTER_CONTRACT_END: 422,
  BANK_ACCOUNT_KEY_MISMATCH: 422,
  COMMENT_REQUIRED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<RefusalCode | EdgeRefusalCode | 'INTERNAL_ERROR' | 'SERVICE_UNAVAILABLE', number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}

/** A refusal of the call found while reading the event (no customer, a body that is not JSON). */
export class EdgeRefusal extends Error {
  readonly refusal: Refusal<EdgeRefusalCode>;

  constructor(code: EdgeRefusalCode, problems: Problem[] = []) {
    super(code);
    this.name = 'EdgeRefusal';
    this.refusal = { code, problems };
  }
}
