import type { Status, TerminationRequestDetails } from '../api-model/schemas';
import type { RequestHistory } from './ports/request-history';
import type { TerminationStore } from './ports/store';
import { readOwnRequest, type RequestCall, type RequestView } from './read-termination-requests';
import type { EndedEarly } from './within-budget';

/*
 * What a customer sees of their own request beyond its current status
 * (docs/decisions/0022-what-a-customer-sees-of-a-request.md): what they submitted, the account
 * number cut to its last 4 digits, and each status it reached with its time and the bank's words.
 * One DynamoDB call when the request is the caller's; a miss costs one read of the contract, as
 * for GET of one request (0015-reading-requests.md).
 */

/** The digits of the refund account a customer sees again; the rest never leaves the service. */
export const SHOWN_ACCOUNT_DIGITS = 4;

/** The request's details as its owner sees them; the edge adds the message for its status, in their language. */
export interface RequestDetailsView {
  request: RequestView;
  submitted: TerminationRequestDetails['submitted'];
  timeline: { status: Status; at: string; reason?: string }[];
}

export type DetailsOutcome = { kind: 'details'; details: RequestDetailsView } | EndedEarly;

export interface DetailsDeps {
  store: Pick<TerminationStore, 'findRequestHistory' | 'findContract'>;
  budgetMs: number;
}

/** The history as its owner may see it: the number masked, every status with its time and its words. */
export function detailsOf(history: RequestHistory): RequestDetailsView {
  const { submission, changes } = history;
  const { accountNumber, ...bankDetails } = submission.bankDetails;
  const current = changes.at(-1);
  return {
    request: {
      requestId: history.requestId,
      requestNumber: history.requestNumber,
      status: history.status,
      createdAt: history.createdAt,
      ...(current?.reason === undefined ? {} : { statusReason: current.reason }),
    },
    submitted: { ...submission, bankDetails: { ...bankDetails, accountNumberLast4: accountNumber.slice(-SHOWN_ACCOUNT_DIGITS) } },
    timeline: [
      { status: changes[0]?.previousStatus ?? history.status, at: history.createdAt },
      ...changes.map(({ status, changedAt, reason }) => ({ status, at: changedAt, ...(reason === undefined ? {} : { reason }) })),
    ],
  };
}

/** GET .../termination-requests/{requestId}/details: the same rule as GET of one request. */
export function getTerminationRequestDetails(deps: DetailsDeps, call: RequestCall): Promise<DetailsOutcome> {
  return readOwnRequest(deps, call, deps.store.findRequestHistory.bind(deps.store), (history) => ({
    kind: 'details',
    details: detailsOf(history),
  }));
}
