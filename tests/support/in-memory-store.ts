import { meetsCondition } from '../../lib/termination/contract-rules';
import type {
  CustomerRequestPage,
  DecisionWriteOutcome,
  IdempotencyRecord,
  NewRequest,
  PageQuery,
  RequestPage,
  RequestState,
  StatusMove,
  StoredRequest,
  TerminationStore,
  WithdrawalIntent,
  WithdrawalOutcome,
  WithdrawalRecord,
  WriteOutcome,
} from '../../lib/termination/ports/store';
import type { Decision } from '../../lib/termination/ports/decision';
import type { RequestHistory, StatusChange } from '../../lib/termination/ports/request-history';
import type { TerminationRequestInput } from '../../lib/api-model/schemas';

/*
 * The store port kept in memory, for unit tests of the use cases' order of checks
 * (docs/decisions/0013-order-of-checks.md) with no Java and no DynamoDB. Plain storage: a write
 * checks the conditions it is handed, in the order of the real write's items, and reports the
 * first that fails with the item it concerned, as lib/dynamodb does. What that means is the use
 * cases' to say. tests/support/store-contract.ts holds this store and the real one to the same
 * outcomes, case by case.
 */

interface StoredState extends StoredRequest {
  contractId: string;
  decisionIds: string[];
  submission: TerminationRequestInput;
  changes: StatusChange[];
}

/** A record that TTL would have deleted by now counts as absent, as in the real table's conditions. */
const live = <T extends { expiresAt: number }>(record: T | undefined, nowSeconds: number): T | undefined =>
  record && record.expiresAt > nowSeconds ? record : undefined;

const stateOf = ({ customerId, status, statusReason, decisionIds }: StoredState): RequestState => ({
  customerId,
  status,
  statusReason,
  decisionIds: [...decisionIds],
});

const stored = ({ requestId, requestNumber, customerId, status, createdAt, statusReason }: StoredState): StoredRequest => ({
  requestId,
  requestNumber,
  customerId,
  status,
  createdAt,
  ...(statusReason === undefined ? {} : { statusReason }),
});

export class InMemoryStore implements TerminationStore {
  readonly contracts = new Map<string, Record<string, unknown>>();
  /** `customerId#key` -> the record the key is bound to. */
  readonly keys = new Map<string, IdempotencyRecord>();
  readonly requests = new Map<string, StoredState>();
  /** contractId -> the request holding its active slot. */
  readonly slots = new Map<string, { requestId: string; requestNumber: string; customerId: string }>();
  readonly numbers = new Set<string>();
  readonly withdrawalKeys = new Map<string, WithdrawalRecord & { expiresAt: number }>();
  /** The documents service's table: documentId -> the document. */
  readonly documents = new Map<string, Record<string, unknown>>();
  /**
   * `contractId#customerId` -> the times the customer's limit record holds, t0 (the newest) first,
   * as lib/dynamodb/request-limit.ts keeps them: 0 for none, and the times beyond a count lowered
   * since left where they were.
   */
  readonly limits = new Map<string, number[]>();
  /** Every call, by method name: what the use case asked of the store, in order. */
  readonly calls: string[] = [];

  addContract(contract: Record<string, unknown> & { contractId: string }): void {
    this.contracts.set(contract.contractId, contract);
  }

  /** Makes the contract's slot name another request, or removes it: broken data, for the port's contract suite. */
  setSlot(contractId: string, slot: { requestId: string; requestNumber: string; customerId: string } | undefined): void {
    if (slot) this.slots.set(contractId, slot);
    else this.slots.delete(contractId);
  }

  addDocument(document: Record<string, unknown> & { documentId: string }): void {
    this.documents.set(document.documentId, document);
  }

  create(request: NewRequest, nowSeconds: number): Promise<WriteOutcome> {
    this.calls.push('create');
    return Promise.resolve(this.tryCreate(request, nowSeconds));
  }

  private tryCreate(request: NewRequest, nowSeconds: number): WriteOutcome {
    const key = `${request.customerId}#${request.idempotencyKey}`;
    const record = live(this.keys.get(key), nowSeconds);
    if (record) return { kind: 'key-taken', record };
    const contract = this.contracts.get(request.contractId);
    // A failed condition on no item comes back without one: the real store reads it after.
    if (!meetsCondition(contract, request.contract))
      return { kind: 'contract-condition-failed', contract, readAfter: contract === undefined };
    const holder = this.slots.get(request.contractId);
    if (holder) return { kind: 'slot-taken', holder: { requestNumber: holder.requestNumber, customerId: holder.customerId } };
    if (this.numbers.has(request.requestNumber)) return { kind: 'number-taken' };
    if (this.requests.has(request.requestId)) return { kind: 'conflict' };
    const positions = (request.input.documentIds ?? []).flatMap((documentId, i) => {
      const document = this.documents.get(documentId);
      return document?.['customerId'] === request.documents.customerId && document['status'] === request.documents.status ? [] : [i];
    });
    if (positions.length > 0) return { kind: 'documents-refused', positions };
    const limitKey = `${request.contractId}#${request.customerId}`;
    const times = this.limits.get(limitKey) ?? [];
    const { count } = request.limit;
    const oldest = times[count - 1];
    if (oldest !== undefined && oldest > request.limit.windowStart) {
      const held = times.slice(0, count);
      return { kind: 'limit-reached', createdAtSeconds: held.includes(0) ? held.slice(0, held.indexOf(0)) : held };
    }
    // This request's time first, the count's times shifted by one, those beyond the count left as they are.
    const shifted = Array.from({ length: count }, (_, i) => (i === 0 ? request.limit.countsFrom : (times[i - 1] ?? 0)));
    this.limits.set(limitKey, [...shifted, ...times.slice(count)]);
    const { requestId, requestNumber, customerId, contractId } = request;
    this.keys.set(key, { fingerprint: request.fingerprint, requestId, response: request.response, expiresAt: request.expiresAt });
    this.slots.set(contractId, { requestId, requestNumber, customerId });
    this.numbers.add(requestNumber);
    this.requests.set(requestId, {
      requestId,
      requestNumber,
      customerId,
      contractId,
      status: request.response.status,
      createdAt: request.response.createdAt,
      decisionIds: [],
      submission: request.input,
      changes: [],
    });
    return { kind: 'created' };
  }

  findIdempotencyRecord(customerId: string, idempotencyKey: string, nowSeconds: number): Promise<IdempotencyRecord | undefined> {
    this.calls.push('findIdempotencyRecord');
    return Promise.resolve(live(this.keys.get(`${customerId}#${idempotencyKey}`), nowSeconds));
  }

  findRequest(contractId: string, requestId: string): Promise<StoredRequest | undefined> {
    this.calls.push('findRequest');
    const found = this.requestOn(contractId, requestId);
    return Promise.resolve(found && stored(found));
  }

  listRequests(contractId: string, customerId: string, { limit, after, requestLimit }: PageQuery): Promise<RequestPage> {
    this.calls.push('listRequests');
    const mine = [...this.requests.values()]
      .filter((r) => r.contractId === contractId && r.customerId === customerId && (after === undefined || r.requestId < after))
      .sort((a, b) => (a.requestId < b.requestId ? 1 : -1));
    const items = mine.slice(0, limit).map(stored);
    const last = items.at(-1);
    const times = after === undefined ? this.limits.get(`${contractId}#${customerId}`)?.slice(0, requestLimit.count) : undefined;
    return Promise.resolve({
      items,
      ...(mine.length > limit && last ? { lastRequestId: last.requestId } : {}),
      ...(times === undefined ? {} : { limitTimes: times.includes(0) ? times.slice(0, times.indexOf(0)) : times }),
    });
  }

  findRequestHistory(contractId: string, requestId: string): Promise<RequestHistory | undefined> {
    this.calls.push('findRequestHistory');
    const found = this.requestOn(contractId, requestId);
    if (found === undefined) return Promise.resolve(undefined);
    const { requestNumber, customerId, createdAt, status, submission, changes } = found;
    return Promise.resolve({ requestId, requestNumber, contractId, customerId, createdAt, status, submission, changes: [...changes] });
  }

  listCustomerRequests(customerId: string, limit: number, after?: string): Promise<CustomerRequestPage> {
    this.calls.push('listCustomerRequests');
    const mine = [...this.requests.values()]
      .filter((r) => r.customerId === customerId && (after === undefined || r.requestId < after))
      .sort((a, b) => (a.requestId < b.requestId ? 1 : -1));
    const items = mine.slice(0, limit).map((r) => ({ ...stored(r), contractId: r.contractId }));
    const last = items.at(-1);
    return Promise.resolve(mine.length > limit && last ? { items, lastRequestId: last.requestId } : { items });
  }

  findContract(contractId: string): Promise<Record<string, unknown> | undefined> {
    this.calls.push('findContract');
    return Promise.resolve(this.contracts.get(contractId));
  }

  withdraw(intent: WithdrawalIntent, nowSeconds: number): Promise<WithdrawalOutcome> {
    this.calls.push('withdraw');
    const key = `${intent.customerId}#${intent.idempotencyKey}`;
    const record = live(this.withdrawalKeys.get(key), nowSeconds);
    if (record) return Promise.resolve({ kind: 'key-taken', record: { fingerprint: record.fingerprint, response: record.response } });
    const request = this.requestOn(intent.contractId, intent.requestId);
    if (request?.customerId !== intent.customerId || !intent.from.includes(request.status)) {
      return Promise.resolve({ kind: 'request-condition-failed', request: request && stateOf(request) });
    }
    const slotRequestId = this.slots.get(intent.contractId)?.requestId;
    if (slotRequestId !== intent.requestId) return Promise.resolve({ kind: 'slot-condition-failed', slotRequestId });
    this.withdrawalKeys.set(key, { fingerprint: intent.fingerprint, response: intent.response, expiresAt: intent.expiresAt });
    request.changes.push({
      status: intent.response.status,
      previousStatus: request.status,
      changedAt: intent.response.withdrawnAt,
      changedBy: 'CUSTOMER',
    });
    request.status = intent.response.status;
    delete request.statusReason;
    this.slots.delete(intent.contractId);
    return Promise.resolve({ kind: 'withdrawn' });
  }

  applyDecision(decision: Decision, move: StatusMove): Promise<DecisionWriteOutcome> {
    this.calls.push('applyDecision');
    const request = this.requestOn(decision.contractId, decision.requestId);
    if (request === undefined || !move.from.includes(request.status)) {
      return Promise.resolve({ kind: 'request-condition-failed', request: request && stateOf(request) });
    }
    const slotRequestId = this.slots.get(decision.contractId)?.requestId;
    if (move.freesSlot && slotRequestId !== decision.requestId) return Promise.resolve({ kind: 'slot-condition-failed', slotRequestId });
    request.changes.push({
      status: decision.status,
      previousStatus: request.status,
      changedAt: decision.occurredAt,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      changedBy: 'BACK_OFFICE',
      decisionEventId: decision.eventId,
    });
    request.status = decision.status;
    request.decisionIds.push(decision.eventId);
    if (decision.reason === undefined) delete request.statusReason;
    else request.statusReason = decision.reason;
    if (move.freesSlot) this.slots.delete(decision.contractId);
    return Promise.resolve({ kind: 'applied' });
  }

  private requestOn(contractId: string, requestId: string): StoredState | undefined {
    const request = this.requests.get(requestId);
    return request?.contractId === contractId ? request : undefined;
  }
}
