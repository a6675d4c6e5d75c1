import { backoff } from '../backoff';
import type { Status } from '../api-model/schemas';
import { validateStatusDecisionDetail } from '../api-model/validator';
import type { Decision, TerminationStore } from './ports';

/*
 * A back-office decision in (docs/decisions/0017-lifecycle.md). Each event is judged alone:
 * applied, a duplicate (nothing to do), or refused for good (it goes to the dead-letter queue,
 * never blocking the events behind it). Only a failure that may pass (DynamoDB throttled,
 * unreachable, contended) is thrown, for the invocation to be tried again.
 */

export interface DecisionEvent {
  source: unknown;
  detailType: unknown;
  detail: unknown;
}

export interface DecisionDeps {
  store: Pick<TerminationStore, 'applyDecision'>;
  /** The only source and detail-type accepted as decisions. */
  expected: { source: string; detailType: string };
  now: () => Date;
  /** Attempts when concurrent writes on the same items keep a decision from deciding. */
  maxAttempts?: number;
}

export type DecisionRefusal = 'unexpected-event' | 'malformed-detail' | 'forbidden-transition' | 'unknown-request' | 'slot-mismatch';

export type DecisionOutcome =
  | { kind: 'applied'; decision: Decision }
  | { kind: 'duplicate'; decision: Decision; current: Status }
  | { kind: 'refused'; refusal: DecisionRefusal; problems: string[]; decision?: Decision };

export class DecisionContendedError extends Error {
  constructor(requestId: string) {
    super(`Decision on ${requestId} kept meeting concurrent writes`);
    this.name = 'DecisionContendedError';
  }
}

function readDecision(event: DecisionEvent, expected: DecisionDeps['expected']): Decision | DecisionOutcome {
  if (event.source !== expected.source || event.detailType !== expected.detailType) {
    return {
      kind: 'refused',
      refusal: 'unexpected-event',
      problems: [`expected source ${expected.source} and detail-type ${expected.detailType}`],
    };
  }
  const checked = validateStatusDecisionDetail(event.detail);
  if (!checked.ok) return { kind: 'refused', refusal: 'malformed-detail', problems: checked.problems };
  const { eventId, requestId, contractId, status, reason, occurredAt } = checked.detail;
  // The format lets through times no table timestamp can be (a year 0 or 9999 with an offset,
  // a leap second): those would be written, then refused by the event that publishes them.
  const time = new Date(occurredAt);
  const year = time.getUTCFullYear();
  if (!Number.isFinite(time.getTime()) || year < 2000 || year > 2999) {
    return { kind: 'refused', refusal: 'malformed-detail', problems: ['occurredAt: must be a time between the years 2000 and 2999'] };
  }
  // UUIDs are stored in lower case; timestamps in UTC, as every other timestamp of the table.
  return {
    eventId,
    requestId: requestId.toLowerCase(),
    contractId: contractId.toLowerCase(),
    status,
    reason,
    occurredAt: time.toISOString(),
  };
}

export async function applyStatusDecision(deps: DecisionDeps, event: DecisionEvent): Promise<DecisionOutcome> {
  const decision = readDecision(event, deps.expected);
  if ('kind' in decision) return decision;
  const maxAttempts = deps.maxAttempts ?? 5;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const outcome = await deps.store.applyDecision(decision, deps.now().toISOString());
    switch (outcome.kind) {
      case 'applied':
        return { kind: 'applied', decision };
      case 'duplicate':
        return { kind: 'duplicate', decision, current: outcome.current };
      case 'forbidden':
        return {
          kind: 'refused',
          refusal: 'forbidden-transition',
          problems: [
            outcome.current === decision.status
              ? `already ${outcome.current}, with other words for the customer: a decision is not changed`
              : `${outcome.current} may not move to ${decision.status}`,
          ],
          decision,
        };
      case 'unknown-request':
        return { kind: 'refused', refusal: 'unknown-request', problems: ['no such request on that contract'], decision };
      case 'slot-mismatch':
        return {
          kind: 'refused',
          refusal: 'slot-mismatch',
          problems: [`the contract's active slot names ${outcome.slotRequestId ?? 'no request'}`],
          decision,
        };
      case 'retry':
        await backoff(attempt, 20);
    }
  }
  throw new DecisionContendedError(decision.requestId);
}
