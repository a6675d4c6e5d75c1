import type { EventBridgeEvent } from 'aws-lambda';
import { decisionDependencies } from '../lib/dependencies/decision';
import { DECISION_OUTCOMES } from '../lib/http/outcomes';
import { logger } from '../lib/observability/logger';
import { applyStatusDecision } from '../lib/termination/apply-status-decision';
import { withLambdaContext } from '../lib/observability/lambda-context';

/**
 * EventBridge -> a back-office decision (docs/events.md). A decision that can never apply is
 * logged as an ERROR and sent to the dead-letter queue, and the invocation succeeds: it is never
 * retried and blocks nothing. What may pass (DynamoDB unavailable, the back office's JWKS out of
 * reach) throws: Lambda tries the event again, then hands it to the same queue. Each outcome's
 * line is DECISION_OUTCOMES's.
 */
export const handler = withLambdaContext(
  decisionDependencies,
  async (event: EventBridgeEvent<string, unknown>, { deps, deadLetters }, invocation): Promise<{ outcome: string }> => {
    const outcome = await applyStatusDecision(
      deps,
      { source: event.source, detailType: event['detail-type'], account: event.account, detail: event.detail },
      invocation,
    );
    // Ids and statuses only: the reason is words for the customer (personal data, docs/events.md).
    const decision = outcome.decision;
    const line = DECISION_OUTCOMES[outcome.kind];
    logger[line.level](line.message, {
      outcome: line.outcome,
      eventBridgeId: event.id,
      ...(decision
        ? { eventId: decision.eventId, requestId: decision.requestId, contractId: decision.contractId, status: decision.status }
        : {}),
      ...(outcome.kind === 'duplicate' ? { current: outcome.current } : {}),
      ...(outcome.kind === 'refused' ? { refusal: outcome.refusal, problems: outcome.problems } : {}),
    });
    if (outcome.kind === 'refused') await deadLetters.send({ reason: outcome.refusal, problems: outcome.problems, event });
    return { outcome: outcome.kind === 'refused' ? outcome.refusal : outcome.kind };
  },
);
