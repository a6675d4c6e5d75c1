import type { Problem } from '../api-model/problems';
import type { Withdrawal } from '../api-model/schemas';
import { isUuid } from '../api-model/validator';
import { backoff } from '../backoff';
import { contractRefusal } from './contract-access';
import { requestFingerprint } from './fingerprint';
import { type TerminationStore, type WithdrawalIntent } from './ports';
import { refuse, type Refusal } from './refusals';
import { withinBudget } from './within-budget';

/*
 * A customer withdraws their own request (docs/decisions/0018-withdrawal.md): while it is
 * SUBMITTED or IN_REVIEW it becomes WITHDRAWN, final, and its contract is free again, in one
 * write that also binds the Idempotency-Key to the answer. Checks in order: the key's presence,
 * the form (ids, key), the key's earlier use, then the request (404/403 as for a GET), then its
 * status (409).
 */

export interface WithdrawDeps {
  store: Pick<TerminationStore, 'withdraw' | 'findContract'>;
  idempotencyTtlSeconds: number;
  /** All DynamoDB work of one invocation, retries included, ends by then as unavailable. */
  budgetMs: number;
  now?: () => Date;
}

export interface WithdrawCall {
  customerId: string;
  contractId: string | undefined;
  requestId: string | undefined;
  idempotencyKey: string | undefined;
  /** The answer's message, in the caller's language: stored, so a replay answers the same bytes. */
  withdrawnMessage: () => string;
  edgeProblems: Problem[];
}

export type WithdrawOutcome =
  | { kind: 'withdrawn' | 'withdrawal-replayed'; withdrawal: Withdrawal }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'unavailable'; cause: unknown };

function intentOf(call: WithdrawCall, deps: WithdrawDeps, now: Date): WithdrawalIntent {
  if (call.idempotencyKey === undefined || call.idempotencyKey.trim() === '') {
    throw refuse('IDEMPOTENCY_KEY_MISSING', [{ field: 'Idempotency-Key', code: 'required' }]);
  }
  const problems = [...call.edgeProblems];
  if (!isUuid(call.contractId)) problems.push({ field: 'contractId', code: 'mustBeUuid' });
  if (!isUuid(call.requestId)) problems.push({ field: 'requestId', code: 'mustBeUuid' });
  if (!isUuid(call.idempotencyKey)) problems.push({ field: 'Idempotency-Key', code: 'mustBeUuid' });
  if (problems.length > 0 || call.contractId === undefined || call.requestId === undefined) throw refuse('VALIDATION_ERROR', problems);
  const contractId = call.contractId.toLowerCase();
  const requestId = call.requestId.toLowerCase();
  return {
    requestId,
    contractId,
    customerId: call.customerId,
    idempotencyKey: call.idempotencyKey.toLowerCase(),
    fingerprint: requestFingerprint(contractId, { withdraw: requestId }),
    response: { requestId, status: 'WITHDRAWN', withdrawnAt: now.toISOString(), message: call.withdrawnMessage() },
    expiresAt: Math.floor(now.getTime() / 1000) + deps.idempotencyTtlSeconds,
  };
}

async function withdraw(deps: WithdrawDeps, call: WithdrawCall, now: Date, abortSignal: AbortSignal): Promise<WithdrawOutcome> {
  const intent = intentOf(call, deps, now);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (let attempt = 0; ; attempt++) {
    const outcome = await deps.store.withdraw(intent, nowSeconds, abortSignal);
    switch (outcome.kind) {
      case 'withdrawn':
        return { kind: 'withdrawn', withdrawal: intent.response };
      case 'key-used':
        if (outcome.record.fingerprint !== intent.fingerprint) {
          throw refuse('IDEMPOTENCY_KEY_REUSED', [{ field: 'Idempotency-Key', code: 'keyReused' }]);
        }
        return { kind: 'withdrawal-replayed', withdrawal: outcome.record.response };
      case 'not-found':
        throw (
          (await contractRefusal(deps.store, intent.contractId, intent.customerId, abortSignal)) ??
          refuse('TERMINATION_REQUEST_NOT_FOUND', [{ field: 'requestId', code: 'requestNotFound' }])
        );
      case 'not-withdrawable':
        throw refuse('REQUEST_NOT_WITHDRAWABLE', [{ field: 'status', code: 'notWithdrawable', status: outcome.current }]);
      case 'retry':
        await backoff(attempt, 10, 200, abortSignal);
    }
  }
}

/** POST .../termination-requests/{requestId}/withdrawal */
export async function withdrawTerminationRequest(deps: WithdrawDeps, call: WithdrawCall): Promise<WithdrawOutcome> {
  return withinBudget(deps.budgetMs, (abortSignal) => withdraw(deps, call, deps.now?.() ?? new Date(), abortSignal));
}
