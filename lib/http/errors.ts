import type { ErrorDetail } from '../validation/schemas';

/** Every errorCode the API can answer with (spec 7.3 and decisions D2-D9). */
export const ERROR_STATUS = {
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
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}

/**
 * An answer the API gives on purpose. `messageArgs` feed the localized message (e.g. the
 * existing request's number for a 409); `details` are already localized by whoever found them.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly errorCode: ErrorCode,
    readonly details: ErrorDetail[] = [],
    readonly messageArgs: Record<string, string> = {},
  ) {
    super(errorCode);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[errorCode];
  }
}

export class MalformedRequestError extends ApiError {
  constructor(details: ErrorDetail[] = []) {
    super('MALFORMED_REQUEST', details);
    this.name = 'MalformedRequestError';
  }
}

export class ValidationError extends ApiError {
  constructor(details: ErrorDetail[]) {
    super('VALIDATION_ERROR', details);
    this.name = 'ValidationError';
  }
}

export class UnauthorizedError extends ApiError {
  constructor() {
    super('UNAUTHORIZED');
    this.name = 'UnauthorizedError';
  }
}

export type BusinessRuleCode =
  | 'CONTRACT_NOT_ACTIVE'
  | 'TERMINATION_DATE_AFTER_CONTRACT_END'
  | 'BANK_ACCOUNT_KEY_MISMATCH'
  | 'COMMENT_REQUIRED'
  | 'IDEMPOTENCY_KEY_REUSED';

export class BusinessRuleError extends ApiError {
  constructor(code: BusinessRuleCode, detail: ErrorDetail) {
    super(code, [detail]);
    this.name = 'BusinessRuleError';
  }
}

export class ContractNotFoundError extends ApiError {
  constructor(detail: ErrorDetail) {
    super('CONTRACT_NOT_FOUND', [detail]);
    this.name = 'ContractNotFoundError';
  }
}

export class ContractAccessDeniedError extends ApiError {
  constructor(detail: ErrorDetail) {
    super('CONTRACT_ACCESS_DENIED', [detail]);
    this.name = 'ContractAccessDeniedError';
  }
}

export class ActiveRequestExistsError extends ApiError {
  constructor(existingRequestNumber: string, detail: ErrorDetail) {
    super('ACTIVE_REQUEST_ALREADY_EXISTS', [detail], { requestNumber: existingRequestNumber });
    this.name = 'ActiveRequestExistsError';
  }
}

/** A dependency (DynamoDB) is throttled, unreachable or too slow; the client should retry. */
export class ServiceUnavailableError extends ApiError {
  constructor(override readonly cause: unknown) {
    super('SERVICE_UNAVAILABLE');
    this.name = 'ServiceUnavailableError';
  }
}
