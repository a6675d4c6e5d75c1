import type { EventBridgeEvent } from 'aws-lambda';
import { loadDecisionConfig } from '../lib/config';
import { deadLetterQueueFor } from '../lib/aws/dead-letter-queue';
import { DECISION_OUTCOMES } from '../lib/http/outcomes';
import { logger } from '../lib/observability/logger';
import { applyStatusDecision, type DecisionDeps } from '../lib/termination/apply-status-decision';
import { storeFor } from '../lib/dynamodb/termination-table';
import { withLambdaContext } from '../lib/observability/lambda-context';
import { createDecisionSignatureCheck } from '../lib/auth/decision-signature';

const config = loadDecisionConfig();
const deps: DecisionDeps = {
  store: storeFor(config),
  expected: { source: config.decisionSource, detailType: config.decisionDetailType, account: config.decisionAccountId },
  // The back office signs as the source it sends from.
  checkSignature: createDecisionSignatureCheck({ ...config.signatures, issuer: config.decisionSource }),
  now: () => new Date(),
  retentionSeconds: config.retentionSeconds,
};
const deadLetters = deadLetterQueueFor(config.deadLetterQueueUrl, config.sqs);

/**
 * EventBridge -> a back-office decision (docs/events.md). A decision that can never apply is
 * logged as an ERROR and sent to the dead-letter queue, and the invocation succeeds: it is never
 * retried and blocks nothing. What may pass (DynamoDB unavailable, the back office's JWKS out of
 * reach) throws: Lambda tries the event again, then hands it to the same queue. Each outcome's
 * line is DECISION_OUTCOMES's.
 */
export const handler = withLambdaContext(async (event: EventBridgeEvent<string, unknown>, invocation): Promise<{ outcome: string }> => {
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
});
