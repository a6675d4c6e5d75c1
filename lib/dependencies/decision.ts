import { createDecisionSignatureCheck } from '../auth/decision-signature';
import { deadLetterQueueFor, type DeadLetterQueue } from '../aws/dead-letter-queue';
import { loadDecisionConfig } from '../config';
import { storeFor } from '../dynamodb/termination-table';
import type { DecisionDeps } from '../termination/apply-status-decision';

/** The decision consumer's, built once per cold start as the routes' are (routes.ts): the use case's dependencies and the dead-letter queue. */
export function decisionDependencies(): { deps: DecisionDeps; deadLetters: DeadLetterQueue } {
  const config = loadDecisionConfig();
  return {
    deps: {
      store: storeFor(config),
      expected: { source: config.decisionSource, detailType: config.decisionDetailType, account: config.decisionAccountId },
      // The back office signs as the source it sends from.
      checkSignature: createDecisionSignatureCheck({ ...config.signatures, issuer: config.decisionSource }),
      now: () => new Date(),
      retention: config.retention,
    },
    deadLetters: deadLetterQueueFor(config.deadLetterQueueUrl, config.sqs),
  };
}
