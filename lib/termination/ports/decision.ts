import type { DECISION_STATUSES } from '../../api-model/event-schemas';

/* The decision port: a back-office decision as the use case checked it and the store applies it. */

/** A back-office decision, checked and normalised (docs/decisions/0017-lifecycle.md). */
export interface Decision {
  /** The back office's id of the decision: a request remembers the ids it applied. */
  eventId: string;
  requestId: string;
  contractId: string;
  status: (typeof DECISION_STATUSES)[number];
  reason: string | undefined;
  occurredAt: string;
}
