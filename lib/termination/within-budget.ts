import { StoreUnavailableError } from './ports/errors';
import type { Refused } from './refusals';
import { budgetSignal, type Invocation } from '../retry';

/** How every use case ends besides its own outcomes: a refusal, or the store unavailable (503). */
export type EndedEarly = Refused | { kind: 'unavailable'; cause: unknown };

/**
 * Whether an error is the budget's own abort: its reason thrown (throwIfAborted), or a wait the
 * budget cut short (an AbortError caused by it). The store's calls cut short by it come back as
 * StoreUnavailableError.
 */
function isBudgetAbort(error: unknown, abortSignal: AbortSignal): boolean {
  if (!abortSignal.aborted) return false;
  return error === abortSignal.reason || (error instanceof Error && error.name === 'AbortError' && error.cause === abortSignal.reason);
}

/**
 * Runs a use case within its time budget (budgetMs, or less when the invocation has less left:
 * lib/retry.ts): a store that failed or the budget running out becomes `unavailable`; refusals
 * are the use case's own values, returned. Anything else it throws is a bug, also after the budget ran
 * out: it is thrown as it is (a 500, logged with its stack).
 */
export async function withinBudget<Outcome>(
  budgetMs: number,
  invocation: Invocation | undefined,
  run: (abortSignal: AbortSignal) => Promise<Outcome>,
): Promise<Outcome | EndedEarly> {
  const abortSignal = budgetSignal(budgetMs, invocation?.remainingMs()) ?? AbortSignal.timeout(budgetMs);
  try {
    return await run(abortSignal);
  } catch (error) {
    if (error instanceof StoreUnavailableError || isBudgetAbort(error, abortSignal)) return { kind: 'unavailable', cause: error };
    throw error;
  }
}
