import type { Problem } from '../api-model/problems';

/** Every way a use case can say no. The edge gives each its HTTP status and its words. */
export type RefusalCode =
  | 'IDEMPOTENCY_KEY_MISSING'
  | 'VALIDATION_ERROR'
  | 'CONTRACT_NOT_FOUND'
  | 'CONTRACT_ACCESS_DENIED'
  | 'ACTIVE_REQUEST_ALREADY_EXISTS'
  | 'CONTRACT_NOT_ACTIVE'
  | 'TERMINATION_DATE_AFTER_CONTRACT_END'
  | 'BANK_ACCOUNT_KEY_MISMATCH'
  | 'COMMENT_REQUIRED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'TERMINATION_REQUEST_NOT_FOUND'
  | 'REQUEST_NOT_WITHDRAWABLE'
  | 'DOCUMENT_NOT_AVAILABLE'
  | 'REQUEST_LIMIT_REACHED';

export interface Refusal<Code extends string = RefusalCode> {
  code: Code;
  /** The fields concerned and what is wrong with each. */
  problems: Problem[];
  /** The request already holding the contract's slot (ACTIVE_REQUEST_ALREADY_EXISTS). */
  requestNumber?: string;
  /** When the caller may make a new request on the contract (REQUEST_LIMIT_REACHED): an ISO 8601 UTC time. */
  nextRequestAllowedAt?: string;
}

/** A refusal as a use case's outcome: a value, returned like every other answer, never thrown. */
export interface Refused {
  kind: 'refused';
  refusal: Refusal;
}

export const refuse = (code: RefusalCode, problems: Problem[], requestNumber?: string): Refused => ({
  kind: 'refused',
  refusal: { code, problems, ...(requestNumber === undefined ? {} : { requestNumber }) },
});
