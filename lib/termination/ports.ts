import type { DECISION_STATUSES } from '../api-model/event-schemas';
import type { Status, TerminationRequest, TerminationRequestInput, Withdrawal } from '../api-model/schemas';
import type { ContractVerdict } from './contract-rules';

/*
 * What the use cases need from the outside, in the domain's words. lib/dynamodb implements the
 * store; tests may give an in-memory one. No AWS type crosses this line (npm run deps checks it).
 */

/** A request about to be created, with everything its one atomic write records. */
export interface NewRequest {
  requestId: string;
  requestNumber: string;
  customerId: string;
  /** Lower-cased, as contracts are stored: the contract, the slot and the request are keyed on it. */
  contractId: string;
  idempotencyKey: string;
  fingerprint: string;
  input: TerminationRequestInput;
  response: TerminationRequest;
  /** Epoch seconds after which the idempotency record no longer counts. */
  expiresAt: number;
}

/** What a customer's Idempotency-Key is bound to. */
export interface IdempotencyRecord {
  fingerprint: string;
  requestId: string;
  response: TerminationRequest;
  expiresAt: number;
}

/** Why one attempt to create did or did not write. */
export type WriteOutcome =
  | { kind: 'created' }
  | { kind: 'key-used'; record: IdempotencyRecord }
  | { kind: 'contract'; verdict: Exclude<ContractVerdict, { kind: 'ok' }> }
  /** The number only when the active request is the caller's own (0015-reading-requests.md). */
  | { kind: 'slot-taken'; requestNumber?: string }
  | { kind: 'number-taken' }
  /** A conflicting write or a condition whose cause is gone by now: try again. */
  | { kind: 'retry' };

/** A stored request as the reads show it, with the customer who made it. */
export interface StoredRequest {
  requestId: string;
  requestNumber: string;
  customerId: string;
  status: Status;
  createdAt: string;
  /** The back office's words on the current status, when it gave some. */
  statusReason?: string;
}

export interface RequestPage {
  items: StoredRequest[];
  /** Set when another page may follow: the last request id of this one. */
  lastRequestId?: string;
}

/** A back-office decision, checked and normalised (docs/decisions/0017-lifecycle.md). */
export interface Decision {
  /** The back office's id of the decision: a request remembers the ids it applied. */
  eventId: string;
  requestId: string;
  contractId: string;
  status: (typeof DECISION_STATUSES)[number];
  reason: string | undefined;
  occurredAt: string;
}

export type DecisionWriteOutcome =
  | { kind: 'applied' }
  /** Already in that status, or this very decision was applied before: nothing to do. */
  | { kind: 'duplicate'; current: Status }
  | { kind: 'forbidden'; current: Status }
  | { kind: 'unknown-request' }
  /** A final status whose contract slot does not name the request: stored data broke a rule. */
  | { kind: 'slot-mismatch'; slotRequestId: string | undefined }
  | { kind: 'retry' };

/** A customer's withdrawal of a request, with everything its one atomic write records (0018-withdrawal.md). */
export interface WithdrawalIntent {
  requestId: string;
  /** Lower-cased, as the request is keyed. */
  contractId: string;
  customerId: string;
  idempotencyKey: string;
  fingerprint: string;
  /** The answer, stored with the key so that a replay answers the same bytes. */
  response: Withdrawal;
  /** Epoch seconds after which the key no longer counts. */
  expiresAt: number;
}

export interface WithdrawalRecord {
  fingerprint: string;
  response: Withdrawal;
}

export type WithdrawalOutcome =
  | { kind: 'withdrawn' }
  | { kind: 'key-used'; record: WithdrawalRecord }
  /** No such request on the contract, or another customer's: the contract tells which answer. */
  | { kind: 'not-found' }
  | { kind: 'not-withdrawable'; current: Status }
  | { kind: 'retry' };

/** The store was throttled, unreachable or too slow: nothing was decided, the caller may retry. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** Stored data that breaks the service's own rules: a bug, never guessed about (a 500). */
export class MalformedItemError extends Error {
  constructor(what: string) {
    super(`Malformed ${what}`);
    this.name = 'MalformedItemError';
  }
}

/**
 * The service's table, and its reads of the contracts table. Every method throws
 * StoreUnavailableError when the store could not answer, and MalformedItemError for stored data
 * it cannot read back.
 */
export interface TerminationStore {
  /** One atomic attempt to create the request; the outcome says why not. */
  create(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome>;
  /** The key's record, unless there is none or it has expired. */
  findIdempotencyRecord(
    customerId: string,
    idempotencyKey: string,
    nowSeconds: number,
    abortSignal?: AbortSignal,
  ): Promise<IdempotencyRecord | undefined>;
  findRequest(contractId: string, requestId: string, abortSignal?: AbortSignal): Promise<StoredRequest | undefined>;
  /** A page of the requests `customerId` made on the contract, newest first, after `after`. */
  listRequests(contractId: string, customerId: string, limit: number, after?: string, abortSignal?: AbortSignal): Promise<RequestPage>;
  /** The contract as its owner stored it: another system's data, judged by contract-rules.ts. */
  findContract(contractId: string, abortSignal?: AbortSignal): Promise<Record<string, unknown> | undefined>;
  /** One attempt to apply a decision. */
  applyDecision(decision: Decision, appliedAt: string): Promise<DecisionWriteOutcome>;
  /** One atomic attempt to withdraw a request: its status, its contract's slot and the key at once. */
  withdraw(intent: WithdrawalIntent, nowSeconds: number, abortSignal?: AbortSignal): Promise<WithdrawalOutcome>;
}
