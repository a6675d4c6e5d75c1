import { StoreUnavailableError } from './ports';
import { RefusedError, type Refusal } from './refusals';

/** How every use case ends besides its own outcomes: a refusal, or the store unavailable (503). */
export type EndedEarly = { kind: 'refused'; refusal: Refusal } | { kind: 'unavailable'; cause: unknown };

/**
 * Runs a use case within its time budget: a refusal it throws becomes its outcome, and a store
 * that failed or the budget running out becomes `unavailable`. Anything else it throws is a bug.
 */
export async function withinBudget<Outcome>(
  budgetMs: number,
  run: (abortSignal: AbortSignal) => Promise<Outcome>,
): Promise<Outcome | EndedEarly> {
  const abortSignal = AbortSignal.timeout(budgetMs);
  try {
    return await run(abortSignal);
  } catch (error) {
    if (error instanceof RefusedError) return { kind: 'refused', refusal: error.refusal };
    if (error instanceof StoreUnavailableError || abortSignal.aborted) return { kind: 'unavailable', cause: error };
    throw error;
  }
}
