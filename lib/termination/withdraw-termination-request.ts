import type { Problem } from '../api-model/problems';
import type { Withdrawal } from '../api-model/schemas';
import { backoff } from '../backoff';
import { CallForm, requireKey } from './call-form';
import { accessRefusal } from './contract-access';
import { requestFingerprint } from './fingerprint';
import { moveTo } from './lifecycle';
import { MalformedItemError, type TerminationStore, type WithdrawalIntent, type WithdrawalOutcome } from './ports';
import { erasedKeyRefusal, refuse, type Refusal } from './refusals';
import { retainedUntil, type RetentionRule } from './retention';
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
  /** How long a withdrawn request is kept (REQUEST_RETENTION_YEARS, in the business time zone). */
  retention: RetentionRule;
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

/** The final status a withdrawal moves a request to. */
const WITHDRAWN = 'WITHDRAWN';

export type WithdrawOutcome =
  | { kind: 'withdrawn' | 'withdrawal-replayed'; withdrawal: Withdrawal }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'unavailable'; cause: unknown };

function intentOf(call: WithdrawCall, deps: WithdrawDeps, now: Date): WithdrawalIntent {
  requireKey(call.idempotencyKey);
  const form = new CallForm(call.edgeProblems);
  const contractId = form.uuid(call.contractId, 'contractId');
  const requestId = form.uuid(call.requestId, 'requestId');
  const idempotencyKey = form.uuid(call.idempotencyKey, 'Idempotency-Key');
  form.check();
  return {
    requestId,
    contractId,
    customerId: call.customerId,
    idempotencyKey,
    fingerprint: requestFingerprint(contractId, { withdraw: requestId }),
    response: { requestId, status: WITHDRAWN, withdrawnAt: now.toISOString(), message: call.withdrawnMessage() },
    expiresAt: Math.floor(now.getTime() / 1000) + deps.idempotencyTtlSeconds,
    from: moveTo(WITHDRAWN).from,
    retainUntil: retainedUntil(now, deps.retention),
  };
}

/** What a withdrawal that did not go through means: a replay, a refusal, or another attempt after a pause. */
async function meaningOf(
  outcome: Exclude<WithdrawalOutcome, { kind: 'withdrawn' }>,
  intent: WithdrawalIntent,
  store: WithdrawDeps['store'],
  abortSignal: AbortSignal,
): Promise<WithdrawOutcome | 'again'> {
  switch (outcome.kind) {
    case 'key-taken':
      if (outcome.record === undefined) return 'again';
      if (outcome.record.fingerprint !== intent.fingerprint) {
        throw refuse('IDEMPOTENCY_KEY_REUSED', [{ field: 'Idempotency-Key', code: 'keyReused' }]);
      }
      return { kind: 'withdrawal-replayed', withdrawal: outcome.record.response };
    case 'key-erased':
      throw erasedKeyRefusal(outcome.fingerprint, intent.fingerprint);
    case 'request-condition-failed': {
      const { request } = outcome;
      // Not there, or another customer's: to this caller it does not exist, and the contract
      // decides between 404 and 403 (0015-reading-requests.md).
      if (request?.customerId !== intent.customerId) {
        throw (
          (await accessRefusal(store, intent.contractId, intent.customerId, abortSignal)) ??
          refuse('TERMINATION_REQUEST_NOT_FOUND', [{ field: 'requestId', code: 'requestNotFound' }])
        );
      }
      // A status the condition allows: a writer got in between. Look again.
      if (intent.from.includes(request.status)) return 'again';
      throw refuse('REQUEST_NOT_WITHDRAWABLE', [{ field: 'status', code: 'notWithdrawable', status: request.status }]);
    }
    case 'slot-condition-failed':
      // The request was withdrawable but the slot does not name it: stored data broke a rule.
      throw new MalformedItemError(`slot of contract ${intent.contractId}: does not name active request ${intent.requestId}`);
    case 'conflict':
      return 'again';
  }
}

async function withdraw(deps: WithdrawDeps, call: WithdrawCall, now: Date, abortSignal: AbortSignal): Promise<WithdrawOutcome> {
  const intent = intentOf(call, deps, now);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (let attempt = 0; ; attempt++) {
    const outcome = await deps.store.withdraw(intent, nowSeconds, abortSignal);
    if (outcome.kind === 'withdrawn') return { kind: 'withdrawn', withdrawal: intent.response };
    const meaning = await meaningOf(outcome, intent, deps.store, abortSignal);
    if (meaning !== 'again') return meaning;
    await backoff(attempt, 10, 200, abortSignal);
  }
}

/** POST .../termination-requests/{requestId}/withdrawal */
export async function withdrawTerminationRequest(deps: WithdrawDeps, call: WithdrawCall): Promise<WithdrawOutcome> {
  return withinBudget(deps.budgetMs, (abortSignal) => withdraw(deps, call, deps.now?.() ?? new Date(), abortSignal));
}
