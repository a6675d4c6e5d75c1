import { FINAL_STATUSES } from './lifecycle';
import type { ErasureRules } from './ports/erasure';

/*
 * What an erasure may take (docs/decisions/0025-erasure.md): only a request that is final. An
 * active one is the customer's live instruction, which the back office is acting on; it is left,
 * and the operator is told why. The store's writes are conditioned on these statuses, so a
 * request that a decision or a restore makes active in between is never erased either.
 */
export const ERASURE_RULES: ErasureRules = {
  erasable: FINAL_STATUSES,
  keptBecause: 'active: the customer’s live instruction, which the bank is acting on; erasable once withdrawn or decided',
};
