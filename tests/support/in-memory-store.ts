import { judgeContract } from '../../lib/termination/contract-rules';
import { isFinal, mayMove, WITHDRAWABLE_STATUSES } from '../../lib/termination/lifecycle';
import type {
  Decision,
  DecisionWriteOutcome,
  IdempotencyRecord,
  NewRequest,
  RequestPage,
  StoredRequest,
  TerminationStore,
  WithdrawalIntent,
  WithdrawalOutcome,
  WithdrawalRecord,
  WriteOutcome,
} from '../../lib/termination/ports';

/*
 * The store port kept in memory, for unit tests of the use cases' order of checks
 * (docs/decisions/0013-order-of-checks.md) with no Java and no DynamoDB. It decides one create
 * as the real transaction does, key first, then contract, then slot, then number; the
 * integration tests hold the real one to the same outcomes.
 */

interface StoredDecisionState extends StoredRequest {
  contractId: string;
  decisionIds: string[];
}

export class InMemoryStore implements TerminationStore {
  readonly contracts = new Map<string, Record<string, unknown>>();
  readonly keys = new Map<string, IdempotencyRecord & { customerId: string }>();
  readonly requests = new Map<string, StoredDecisionState>();
  /** contractId -> the request holding its active slot. */
  readonly slots = new Map<string, { requestId: string; requestNumber: string; customerId: string }>();
  readonly numbers = new Set<string>();
  readonly withdrawalKeys = new Map<string, WithdrawalRecord & { expiresAt: number }>();
  /** Every call, by method name: what the use case asked of the store, in order. */
  readonly calls: string[] = [];

  addContract(contract: Record<string, unknown> & { contractId: string }): void {
    this.contracts.set(contract.contractId, contract);
  }

  create(request: NewRequest, nowSeconds: number): Promise<WriteOutcome> {
    this.calls.push('create');
    const key = `${request.customerId}#${request.idempotencyKey}`;
    const record = this.keys.get(key);
    if (record && record.expiresAt > nowSeconds) return Promise.resolve({ kind: 'key-used', record });
    const verdict = judgeContract(this.contracts.get(request.contractId), request.customerId, request.input.desiredTerminationDate);
    if (verdict.kind !== 'ok') return Promise.resolve({ kind: 'contract', verdict });
    const slot = this.slots.get(request.contractId);
    if (slot) {
      return Promise.resolve(
        slot.customerId === request.customerId ? { kind: 'slot-taken', requestNumber: slot.requestNumber } : { kind: 'slot-taken' },
      );
    }
    if (this.numbers.has(request.requestNumber)) return Promise.resolve({ kind: 'number-taken' });
    this.keys.set(key, {
      customerId: request.customerId,
      fingerprint: request.fingerprint,
      requestId: request.requestId,
      response: request.response,
      expiresAt: request.expiresAt,
    });
    this.slots.set(request.contractId, {
      requestId: request.requestId,
      requestNumber: request.requestNumber,
      customerId: request.customerId,
    });
    this.numbers.add(request.requestNumber);
    this.requests.set(request.requestId, {
      requestId: request.requestId,
      requestNumber: request.requestNumber,
      customerId: request.customerId,
      contractId: request.contractId,
      status: 'SUBMITTED',
      createdAt: request.response.createdAt,
      decisionIds: [],
    });
    return Promise.resolve({ kind: 'created' });
  }

  findIdempotencyRecord(customerId: string, idempotencyKey: string, nowSeconds: number): Promise<IdempotencyRecord | undefined> {
    this.calls.push('findIdempotencyRecord');
    const record = this.keys.get(`${customerId}#${idempotencyKey}`);
    return Promise.resolve(record && record.expiresAt > nowSeconds ? record : undefined);
  }

  findRequest(contractId: string, requestId: string): Promise<StoredRequest | undefined> {
    this.calls.push('findRequest');
    const found = this.requests.get(requestId);
    return Promise.resolve(found?.contractId === contractId ? stored(found) : undefined);
  }

  listRequests(contractId: string, customerId: string, limit: number, after?: string): Promise<RequestPage> {
    this.calls.push('listRequests');
    const mine = [...this.requests.values()]
      .filter((r) => r.contractId === contractId && r.customerId === customerId && (after === undefined || r.requestId < after))
      .sort((a, b) => (a.requestId < b.requestId ? 1 : -1));
    const items = mine.slice(0, limit).map(stored);
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
    const record = this.withdrawalKeys.get(key);
    if (record && record.expiresAt > nowSeconds) return Promise.resolve({ kind: 'key-used', record });
    const request = this.requests.get(intent.requestId);
    if (request?.contractId !== intent.contractId || request.customerId !== intent.customerId)
      return Promise.resolve({ kind: 'not-found' });
    if (!WITHDRAWABLE_STATUSES.includes(request.status)) return Promise.resolve({ kind: 'not-withdrawable', current: request.status });
    this.withdrawalKeys.set(key, { fingerprint: intent.fingerprint, response: intent.response, expiresAt: intent.expiresAt });
    request.status = 'WITHDRAWN';
    delete request.statusReason;
    this.slots.delete(intent.contractId);
    return Promise.resolve({ kind: 'withdrawn' });
  }

  applyDecision(decision: Decision): Promise<DecisionWriteOutcome> {
    this.calls.push('applyDecision');
    const request = this.requests.get(decision.requestId);
    if (request?.contractId !== decision.contractId) return Promise.resolve({ kind: 'unknown-request' });
    const current = request.status;
    if (request.decisionIds.includes(decision.eventId)) return Promise.resolve({ kind: 'duplicate', current });
    if (current === decision.status && request.statusReason === decision.reason) return Promise.resolve({ kind: 'duplicate', current });
    if (!mayMove(current, decision.status)) return Promise.resolve({ kind: 'forbidden', current });
    request.status = decision.status;
    request.decisionIds.push(decision.eventId);
    if (decision.reason === undefined) delete request.statusReason;
    else request.statusReason = decision.reason;
    if (isFinal(decision.status) && this.slots.get(decision.contractId)?.requestId === decision.requestId)
      this.slots.delete(decision.contractId);
    return Promise.resolve({ kind: 'applied' });
  }
}

const stored = ({ requestId, requestNumber, customerId, status, createdAt, statusReason }: StoredDecisionState): StoredRequest => ({
  requestId,
  requestNumber,
  customerId,
  status,
  createdAt,
  ...(statusReason === undefined ? {} : { statusReason }),
});
