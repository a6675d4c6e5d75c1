import { STATUS_WITHDRAWN, type Withdrawal } from '../api-model/schemas';
import { CallForm } from './call-form';
import { accessRefusal } from './contract-access';
import { requestFingerprint } from './fingerprint';
import { moveTo } from './lifecycle';
import { MalformedItemError } from './ports/errors';
import type { TerminationStore, WithdrawalIntent, WithdrawalOutcome } from './ports/store';
import { erasedKeyRefusal, refuse, type Refusal, type Refused } from './refusals';
import { AGAIN, RETRY, retrying, triesBy, type Again } from '../retry';
import { retainedUntil, type RetentionRule } from './retention';
import { withinBudget } from './within-budget';
import type { CallContext } from './call-context';

/*
 * A customer withdraws their own request (docs/decisions/0018-withdrawal.md): while its status
 * is one of WITHDRAWABLE_STATUSES it becomes WITHDRAWN, final, and its contract is free again, in one
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
  /** The edge's problems; the answer's message, stored so that a replay answers the same bytes; the time left. */
  context: CallContext;
}

export type WithdrawOutcome =
  | { kind: 'withdrawn' | 'withdrawal-replayed'; withdrawal: Withdrawal }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'unavailable'; cause: unknown };

function intentOf(call: WithdrawCall, deps: WithdrawDeps, now: Date): WithdrawalIntent | Refused {
  const form = CallForm.ofWrite(call);
  if (!(form instanceof CallForm)) return form;
  const contractId = form.uuid(call.contractId, 'contractId');
  const requestId = form.uuid(call.requestId, 'requestId');
  const idempotencyKey = form.uuid(call.idempotencyKey, 'Idempotency-Key');
  const malformed = form.verdict();
  if (malformed) return malformed;
  return {
    requestId,
    contractId,
    customerId: call.customerId,
    idempotencyKey,
    fingerprint: requestFingerprint(contractId, { withdraw: requestId }),
    response: { requestId, status: STATUS_WITHDRAWN, withdrawnAt: now.toISOString(), message: call.context.messages.withdrawn() },
    expiresAt: Math.floor(now.getTime() / 1000) + deps.idempotencyTtlSeconds,
    from: moveTo(STATUS_WITHDRAWN).from,
    retainUntil: retainedUntil(now, deps.retention),
  };
}

/**
 * What a withdrawal that did not go through means: a replay, a refusal, or another attempt after
 * a pause. It returns every answer; it throws only on broken data (a slot that names another request).
 */
async function meaningOf(
  outcome: Exclude<WithdrawalOutcome, { kind: 'withdrawn' }>,
  intent: WithdrawalIntent,
  store: WithdrawDeps['store'],
  abortSignal: AbortSignal,
): Promise<WithdrawOutcome | Again> {
  switch (outcome.kind) {
    case 'key-taken':
      if (outcome.record === undefined) return AGAIN;
      if (outcome.record.fingerprint !== intent.fingerprint) {
        return refuse('IDEMPOTENCY_KEY_REUSED', [{ field: 'Idempotency-Key', code: 'keyReused' }]);
      }
      return { kind: 'withdrawal-replayed', withdrawal: outcome.record.response };
    case 'key-erased':
      return erasedKeyRefusal(outcome.fingerprint, intent.fingerprint);
    case 'request-condition-failed': {
      const { request } = outcome;
      // Not there, or another customer's: to this caller it does not exist, and the contract
      // decides between 404 and 403 (0015-reading-requests.md).
      if (request?.customerId !== intent.customerId) {
        return (
          (await accessRefusal(store, intent.contractId, intent.customerId, abortSignal)) ??
          refuse('TERMINATION_REQUEST_NOT_FOUND', [{ field: 'requestId', code: 'requestNotFound' }])
        );
      }
      // A status the condition allows: a writer got in between. Look again.
      if (intent.from.includes(request.status)) return AGAIN;
      return refuse('REQUEST_NOT_WITHDRAWABLE', [{ field: 'status', code: 'notWithdrawable', status: request.status }]);
    }
    case 'slot-condition-failed':
      // The request was withdrawable but the slot does not name it: stored data broke a rule.
      throw new MalformedItemError(`slot of contract ${intent.contractId}: does not name active request ${intent.requestId}`);
    case 'conflict':
      return AGAIN;
  }
}

async function withdraw(deps: WithdrawDeps, call: WithdrawCall, now: Date, abortSignal: AbortSignal): Promise<WithdrawOutcome> {
  const intent = intentOf(call, deps, now);
  if ('kind' in intent) return intent;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  // Tried again (lib/retry.ts) until it decides or the budget's signal ends it as unavailable.
  return retrying<WithdrawOutcome>(triesBy(RETRY.write, abortSignal), async () => {
    const outcome = await deps.store.withdraw(intent, nowSeconds, abortSignal);
    if (outcome.kind === 'withdrawn') return { kind: 'withdrawn', withdrawal: intent.response };
    return meaningOf(outcome, intent, deps.store, abortSignal);
  });
}

/** POST .../termination-requests/{requestId}/withdrawal */
export async function withdrawTerminationRequest(deps: WithdrawDeps, call: WithdrawCall): Promise<WithdrawOutcome> {
  return withinBudget(deps.budgetMs, call.context.invocation, (abortSignal) =>
    withdraw(deps, call, deps.now?.() ?? new Date(), abortSignal),
  );
}
