import { AGAIN, budgetSignal, RETRY, retrying, triesBy, type Again, type Invocation } from '../retry';
import type { Status } from '../api-model/schemas';
import { DECISION_SIGNED_FIELDS } from '../api-model/event-schemas';
import { validateStatusDecisionDetail } from '../api-model/validator';
import { isFinal, moveTo } from './lifecycle';
import { retainedUntil, type RetentionRule } from './retention';
import type { CheckSignature } from './ports/signature';
import type { StatusMove, StatusWriteRefusal, TerminationStore } from './ports/store';
import type { Decision } from './ports/decision';

/*
 * A back-office decision in (docs/decisions/0017-lifecycle.md). Each event is judged alone:
 * applied, a duplicate (nothing to do), or refused for good (it goes to the dead-letter queue,
 * never blocking the events behind it). Only a failure that may pass (DynamoDB throttled,
 * unreachable, contended; the back office's keys out of reach) is thrown, for the invocation to
 * be tried again.
 */

export interface DecisionEvent {
  source: unknown;
  detailType: unknown;
  /** The account EventBridge says sent it. */
  account: unknown;
  detail: unknown;
}

export interface DecisionDeps {
  store: Pick<TerminationStore, 'applyDecision'>;
  /**
   * The only source, detail-type and sender's account accepted as decisions: checked here, not
   * only by the rule, so that no path around the rule (a dead letter redriven, a direct invoke)
   * applies anything else.
   */
  expected: { source: string; detailType: string; account: string };
  /**
   * The back office's signature over the decision, checked here whatever path brought it: what
   * is applied proves who decided it. There is no way to turn it off.
   */
  checkSignature: CheckSignature;
  now: () => Date;
  /** How long a request made final is kept (REQUEST_RETENTION_YEARS, in the business time zone). */
  retention: RetentionRule;
  /** Tries when concurrent writes on the same items keep a decision from deciding (lib/retry.ts). */
  maxAttempts?: number;
}

export type DecisionRefusal =
  'unexpected-event' | 'unauthenticated' | 'malformed-detail' | 'forbidden-transition' | 'unknown-request' | 'slot-mismatch';

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

const unauthenticated = (problem: string): DecisionOutcome => ({ kind: 'refused', refusal: 'unauthenticated', problems: [problem] });

/**
 * Whether the back office signed exactly this decision (0017-lifecycle.md): a signature that
 * verifies against its keys, whose claims repeat every signed field of the detail as it is, a
 * field absent from one absent from the other. Problems name fields, never their values (the
 * reason is words for the customer).
 */
async function authenticate(detail: unknown, checkSignature: CheckSignature): Promise<DecisionOutcome | undefined> {
  const fields: Readonly<Record<string, unknown>> = typeof detail === 'object' && detail !== null ? { ...detail } : {};
  const signature = fields['signature'];
  if (typeof signature !== 'string' || signature === '') return unauthenticated('no signature: the back office signs every decision');
  const verdict = await checkSignature(signature);
  if (!verdict.ok) return unauthenticated(`signature: ${verdict.problem}`);
  const { claims } = verdict;
  const uncovered = DECISION_SIGNED_FIELDS.filter((field) => JSON.stringify(claims[field]) !== JSON.stringify(fields[field]));
  if (uncovered.length > 0) return unauthenticated(`the signature does not cover this decision's ${uncovered.join(', ')}`);
  return undefined;
}

async function readDecision(event: DecisionEvent, deps: DecisionDeps): Promise<Decision | DecisionOutcome> {
  const { expected } = deps;
  if (event.source !== expected.source || event.detailType !== expected.detailType || event.account !== expected.account) {
    return {
      kind: 'refused',
      refusal: 'unexpected-event',
      problems: [`expected source ${expected.source}, detail-type ${expected.detailType} and account ${expected.account}`],
    };
  }
  const refused = await authenticate(event.detail, deps.checkSignature);
  if (refused !== undefined) return refused;
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

/**
 * What a decision the write refused means (0017-lifecycle.md): the request's condition failed,
 * so the request as it was says why: this decision applied before, or its status with the same
 * words for the customer: a duplicate; no request: unknown; a status the condition allows: a
 * writer got in between, look again; any other: a move the lifecycle forbids. A slot that does
 * not name the request is broken data.
 */
function meaningOf(outcome: StatusWriteRefusal, decision: Decision, move: StatusMove): DecisionOutcome | Again {
  switch (outcome.kind) {
    case 'request-condition-failed': {
      const { request } = outcome;
      if (request === undefined) {
        return { kind: 'refused', refusal: 'unknown-request', problems: ['no such request on that contract'], decision };
      }
      const current = request.status;
      if (request.decisionIds.includes(decision.eventId)) return { kind: 'duplicate', decision, current };
      // The same decision sent again under a new id; with other words for the customer it is not
      // the same decision, and never applied silently: the status cannot move to itself.
      if (current === decision.status && request.statusReason === decision.reason) return { kind: 'duplicate', decision, current };
      if (move.from.includes(current)) return AGAIN;
      return {
        kind: 'refused',
        refusal: 'forbidden-transition',
        problems: [
          current === decision.status
            ? `already ${current}, with other words for the customer: a decision is not changed`
            : `${current} may not move to ${decision.status}`,
        ],
        decision,
      };
    }
    case 'slot-condition-failed':
      return {
        kind: 'refused',
        refusal: 'slot-mismatch',
        problems: [`the contract's active slot names ${outcome.slotRequestId ?? 'no request'}`],
        decision,
      };
    case 'conflict':
      return AGAIN;
  }
}

/**
 * Judges a decision and applies it, tried again (lib/retry.ts) while concurrent writes keep it
 * from deciding, within the invocation's remaining time when it is known.
 */
export async function applyStatusDecision(deps: DecisionDeps, event: DecisionEvent, invocation?: Invocation): Promise<DecisionOutcome> {
  const decision = await readDecision(event, deps);
  if ('kind' in decision) return decision;
  const move = moveTo(decision.status);
  const policy = { ...RETRY.decision, maxAttempts: deps.maxAttempts ?? RETRY.decision.maxAttempts };
  return retrying<DecisionOutcome>(
    triesBy(policy, budgetSignal(undefined, invocation?.remainingMs())),
    async () => {
      const now = deps.now();
      // A final status starts the retention period, in the same write.
      const retained = isFinal(decision.status) ? { ...move, retainUntil: retainedUntil(now, deps.retention) } : move;
      const outcome = await deps.store.applyDecision(decision, retained, now.toISOString());
      if (outcome.kind === 'applied') return { kind: 'applied', decision };
      return meaningOf(outcome, decision, move);
    },
    {
      exhausted: () => {
        throw new DecisionContendedError(decision.requestId);
      },
    },
  );
}
