import type { Status, TerminationRequest, TerminationRequestInput, Withdrawal } from '../../api-model/schemas';
import type { Decision } from './decision';
import type { RequestHistory } from './request-history';

/*
 * The store port: what the use cases need of the table, in the domain's words. lib/dynamodb implements the
 * store; tests may give an in-memory one. No AWS type crosses this line (npm run deps checks it).
 *
 * A write is one atomic attempt under conditions the use case hands over as data (what the
 * contract must be, the statuses a request may move from). When it does not go through, the
 * store says which condition failed first, in the order of the write's items, with the item
 * that condition concerned: the item as it failed, or, where the store could not have it with
 * the failure, as a consistent read found it just after. Only the use cases (lib/termination)
 * turn those facts into outcomes; a store decides nothing (npm run deps keeps lib/dynamodb off
 * the modules that do).
 */

/**
 * What the contract must be for a create to write, checked inside the write: the caller's, in
 * `status`, and with no endDate or an endDate that is a 10-character text within the bounds
 * (meetsCondition in contract-rules.ts states it, and says why each bound).
 */
export interface ContractCondition {
  customerId: string;
  status: string;
  earliestEndDate: string;
  latestEndDate: string;
}

/**
 * What each document a create names must be, checked inside the write: owned by the caller and
 * in the documents service's status that means uploaded and usable (documents.ts says why).
 */
export interface DocumentCondition {
  customerId: string;
  status: string;
}

/**
 * How many requests one customer may make on one contract within a rolling period, checked
 * inside the write: every request made counts, whatever became of it (request-limit.ts).
 */
export interface RequestLimit {
  count: number;
  periodDays: number;
}

/**
 * The limit as this create's write checks it and records the request in it, worked out by the
 * use case (lib/termination/request-limit.ts): the caller's latest `count` times on the contract
 * may hold none after `windowStart`.
 */
export interface LimitCondition extends RequestLimit {
  /** Epoch seconds: a time the record keeps after it still counts. */
  windowStart: number;
  /** Epoch seconds this request counts from: its creation, rounded up. */
  countsFrom: number;
  /** Epoch seconds after which no time the record holds counts any more. */
  expiresAt: number;
}

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
  /** The 201 body, status included: stored with the key so that a replay answers the same bytes. */
  response: TerminationRequest;
  /** Epoch seconds after which the idempotency record no longer counts. */
  expiresAt: number;
  contract: ContractCondition;
  /** Each of input.documentIds must meet it. */
  documents: DocumentCondition;
  /** The caller's requests on this contract, this one included, must stay within it. */
  limit: LimitCondition;
}

/** What a customer's Idempotency-Key is bound to. */
export interface IdempotencyRecord {
  fingerprint: string;
  requestId: string;
  response: TerminationRequest;
  expiresAt: number;
}

/** What a write found when its Idempotency-Key's condition failed: the create's and the withdrawal's, each with its own record. */
export type KeyRefusal<KeyRecord> =
  /** The key is bound: its record, or none when it had gone or expired by the read after the failure. */
  | { kind: 'key-taken'; record: KeyRecord | undefined }
  /** The key's request was erased (docs/operations.md): its record keeps only the fingerprint. */
  | { kind: 'key-erased'; fingerprint: string };

/** What one attempt to create found: written, or the first of its conditions that failed (key, contract, slot, number, documents, limit). */
export type WriteOutcome =
  | { kind: 'created' }
  | KeyRefusal<IdempotencyRecord>
  /** The contract as the condition refused it, or, with `readAfter`, as a read found it after (it may have changed since). */
  | { kind: 'contract-condition-failed'; contract: Record<string, unknown> | undefined; readAfter: boolean }
  /** The contract's active slot is held: by this request of this customer, or by nothing any more at the read after. */
  | { kind: 'slot-taken'; holder: { requestNumber: string; customerId: string | undefined } | undefined }
  | { kind: 'number-taken' }
  /** Documents that failed their condition, by their place in input.documentIds: unknown, another customer's, or not usable. */
  | { kind: 'documents-refused'; positions: number[] }
  /**
   * The caller's limit on this contract is reached: the creation times (epoch seconds, newest
   * first) of their latest requests on it, as the condition refused them or a read found them
   * after; none when the read found no record.
   */
  | { kind: 'limit-reached'; createdAtSeconds: number[] | undefined }
  /** Another write on the same items got in the way, or the request id exists already: no condition of ours failed. */
  | { kind: 'conflict' };

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
  /**
   * The first page's: the creation times (epoch seconds, newest first) the caller's limit record
   * on the contract holds (docs/decisions/0020-request-limit.md), up to the limit's count;
   * undefined for no record, and on every later page.
   */
  limitTimes?: number[];
}

/** The page a list asks for: its size, the request id it starts after, and the limit whose record the first page reads. */
export interface PageQuery {
  limit: number;
  after?: string | undefined;
  requestLimit: RequestLimit;
}

/** One of a customer's requests as the index by customer lists it: with the contract it is on (0023-a-customers-requests-by-index.md). */
export interface CustomerRequest extends StoredRequest {
  contractId: string;
}

export interface CustomerRequestPage {
  items: CustomerRequest[];
  /** Set when another page may follow: the last request id of this one. */
  lastRequestId?: string;
}

/** A move of a request's status as its write needs it (lifecycle.ts): where it may come from, and whether it frees the contract. */
export interface StatusMove {
  from: readonly Status[];
  /** The write also deletes the contract's active slot, on condition that it names the request. */
  freesSlot: boolean;
  /** Set on a move to a final status: epoch seconds after which the table's TTL deletes the request (retention.ts). */
  retainUntil?: number;
}

/** A request as a refused status write found it. */
export interface RequestState {
  /** Absent on an item that names no customer. */
  customerId: string | undefined;
  status: Status;
  statusReason: string | undefined;
  /** The back-office decisions it applied. */
  decisionIds: readonly string[];
}

/** What a status write found when its request's or its slot's condition failed. */
export type StatusWriteRefusal =
  /** The request's condition failed: the request as it was, or none on that contract. */
  | { kind: 'request-condition-failed'; request: RequestState | undefined }
  /** The slot's condition failed: the request the slot names instead, if any. */
  | { kind: 'slot-condition-failed'; slotRequestId: string | undefined }
  /** Another write on the same items got in the way: no condition of ours failed. */
  | { kind: 'conflict' };

/** What one attempt to apply a decision found: the request first, then the slot. */
export type DecisionWriteOutcome = { kind: 'applied' } | StatusWriteRefusal;

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
  /** The statuses the request may be withdrawn from; the write also frees the contract's slot. */
  from: readonly Status[];
  /** Epoch seconds after which the table's TTL deletes the withdrawn request (retention.ts). */
  retainUntil: number;
}

export interface WithdrawalRecord {
  fingerprint: string;
  response: Withdrawal;
}

/** What one attempt to withdraw found: the key first, then the request (the caller's, in a status of `from`), then the slot. */
export type WithdrawalOutcome = { kind: 'withdrawn' } | KeyRefusal<WithdrawalRecord> | StatusWriteRefusal;

/**
 * The service's table, and its reads of the contracts table. Every method throws
 * StoreUnavailableError when the store could not answer, and MalformedItemError for stored data
 * it cannot read back. Records past their `expiresAt` (at `nowSeconds`) count as absent: the
 * table's TTL deletes them late.
 */
export interface TerminationStore {
  /** One atomic attempt to create the request. */
  create(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome>;
  /** The key's record, unless there is none or it has expired. */
  findIdempotencyRecord(
    customerId: string,
    idempotencyKey: string,
    nowSeconds: number,
    abortSignal?: AbortSignal,
  ): Promise<IdempotencyRecord | undefined>;
  findRequest(contractId: string, requestId: string, abortSignal?: AbortSignal): Promise<StoredRequest | undefined>;
  /**
   * A page of the requests `customerId` made on the contract, newest first, after `after`; the
   * first page with the times of the caller's limit record, read in the same call.
   */
  listRequests(contractId: string, customerId: string, page: PageQuery, abortSignal?: AbortSignal): Promise<RequestPage>;
  /** The request with what was submitted and every change of its status (0022-what-a-customer-sees-of-a-request.md). */
  findRequestHistory(contractId: string, requestId: string, abortSignal?: AbortSignal): Promise<RequestHistory | undefined>;
  /** A page of the requests `customerId` made on any contract, newest first, after `after`: from an eventually consistent index. */
  listCustomerRequests(customerId: string, limit: number, after?: string, abortSignal?: AbortSignal): Promise<CustomerRequestPage>;
  /** The contract as its owner stored it: another system's data, judged by contract-rules.ts. */
  findContract(contractId: string, abortSignal?: AbortSignal): Promise<Record<string, unknown> | undefined>;
  /** One attempt to move the request to the decision's status, moving as `move` allows. */
  applyDecision(decision: Decision, move: StatusMove, appliedAt: string): Promise<DecisionWriteOutcome>;
  /** One atomic attempt to withdraw a request: its status, its contract's slot and the key at once. */
  withdraw(intent: WithdrawalIntent, nowSeconds: number, abortSignal?: AbortSignal): Promise<WithdrawalOutcome>;
}
