import { CallForm } from './call-form';
import type { TerminationStore } from './ports/store';
import { cursorParts, encodeCursor, pageAsked, view, type PageCall, type ReadCall, type RequestView } from './read-termination-requests';
import { withinBudget, type EndedEarly } from './within-budget';

/*
 * The caller's requests on every contract, newest first, a page at a time
 * (docs/decisions/0023-a-customers-requests-by-index.md): one Query of the index by customer,
 * whatever the page holds. A request belongs to the customer who made it, so a contract's
 * earlier or later owner never sees it here; the index is eventually consistent, so a request
 * made a moment ago may show a moment later.
 */

export type CustomerListOutcome =
  { kind: 'customer-listed'; requests: { contractId: string; request: RequestView }[]; nextCursor: string | undefined } | EndedEarly;

export interface CustomerListDeps {
  store: Pick<TerminationStore, 'listCustomerRequests'>;
  budgetMs: number;
}

/** GET /api/v1/termination-requests?limit=&cursor= */
export function listCustomerTerminationRequests(
  { store, budgetMs }: CustomerListDeps,
  call: Omit<ReadCall, 'contractId'> & PageCall,
): Promise<CustomerListOutcome> {
  return withinBudget(budgetMs, call.context.invocation, async (abortSignal) => {
    const form = new CallForm(call.context.problems);
    // A cursor names the caller's own last request and its contract; only the request positions this list.
    const { limit, after } = pageAsked(form, call, (cursor) => cursorParts(cursor)?.requestId);
    const malformed = form.verdict();
    if (malformed) return malformed;

    const page = await store.listCustomerRequests(call.customerId, limit, after, abortSignal);
    const last = page.items.at(-1);
    return {
      kind: 'customer-listed',
      requests: page.items.map(({ contractId, ...request }) => ({ contractId, request: view(request) })),
      nextCursor: page.lastRequestId === undefined || last === undefined ? undefined : encodeCursor(last.contractId, page.lastRequestId),
    };
  });
}
