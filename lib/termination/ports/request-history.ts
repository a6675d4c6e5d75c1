import type { Status, TerminationRequestInput } from '../../api-model/schemas';

/*
 * The event model: a request as its item records it, which every event the service says of a
 * request is rebuilt from (lib/events). lib/dynamodb reads an item into it (request-item.ts).
 */

/**
 * One move of a request's status, as the request's item records it: who moved it, when, from
 * what, and the words for the customer. A request reaches each status at most once.
 */
export type StatusChange = {
  status: Status;
  /** The status it left: the one the change before reached, or the status every request is created in. */
  previousStatus: Status;
  /** When the back office decided (its occurredAt), or when the customer withdrew. */
  changedAt: string;
  /** The back office's words for the customer, when it gave some. */
  reason?: string;
} & ({ changedBy: 'BACK_OFFICE'; decisionEventId: string } | { changedBy: 'CUSTOMER' });

/**
 * A request as its item records it: what the customer submitted, and every change of its status
 * since, in the order they were written. Every event the service says of a request is rebuilt
 * from this (lib/events): the table is the only source of what the service says.
 */
export interface RequestHistory {
  requestId: string;
  requestNumber: string;
  contractId: string;
  customerId: string;
  createdAt: string;
  status: Status;
  submission: TerminationRequestInput;
  changes: readonly StatusChange[];
}
