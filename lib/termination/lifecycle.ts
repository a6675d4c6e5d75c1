import { STATUS_WITHDRAWN, STATUSES, type Status } from '../api-model/schemas';
import type { StatusMove } from './ports/store';

/*
 * Where a request may go (docs/decisions/0017-lifecycle.md, 0018-withdrawal.md): SUBMITTED ->
 * IN_REVIEW -> APPROVED -> COMPLETED, and SUBMITTED or IN_REVIEW -> REJECTED (the back office)
 * or WITHDRAWN (the customer). Forward skips are fine; nothing moves back, and COMPLETED,
 * REJECTED and WITHDRAWN are final.
 */

const RANK: Record<Status, number> = { SUBMITTED: 0, IN_REVIEW: 1, APPROVED: 2, COMPLETED: 3, REJECTED: 3, WITHDRAWN: 3 };

/** The statuses a customer may withdraw from: before the bank approved. */
export const WITHDRAWABLE_STATUSES: readonly Status[] = ['SUBMITTED', 'IN_REVIEW'];

/** The statuses the back office may reject from: before it approved. A rule of its own, apart from the withdrawal's. */
export const REJECTABLE_STATUSES: readonly Status[] = ['SUBMITTED', 'IN_REVIEW'];

export const FINAL_STATUSES: readonly Status[] = ['COMPLETED', 'REJECTED', 'WITHDRAWN'];

export const isFinal = (status: Status): boolean => FINAL_STATUSES.includes(status);

export function mayMove(from: Status, to: Status): boolean {
  if (isFinal(from)) return false;
  if (to === 'REJECTED') return REJECTABLE_STATUSES.includes(from);
  if (to === STATUS_WITHDRAWN) return WITHDRAWABLE_STATUSES.includes(from);
  return RANK[to] > RANK[from];
}

/** The statuses from which a request may move to `to`: the condition of the write that moves it. */
export const statusesBefore = (to: Status): Status[] => STATUSES.filter((from) => mayMove(from, to));

/** The write that moves a request to `to`: conditioned on the statuses it may come from; a final status frees the contract. */
export const moveTo = (to: Status): StatusMove => ({ from: statusesBefore(to), freesSlot: isFinal(to) });
