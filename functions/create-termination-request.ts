import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config/config';
import { answerFor, type Outcome } from '../lib/http/answers';
import { correlationOf } from '../lib/http/correlation';
import { EdgeRefusal } from '../lib/http/errors';
import { header, readJsonObjectBody } from '../lib/http/request';
import { preferredLanguage, textsFor } from '../lib/http/texts';
import { logger, maskAccountNumber } from '../lib/logging/logger';
import { recordOutcome } from '../lib/monitoring/metrics';
import { createDocumentClient } from '../lib/storage/dynamodb-client';
import { createTerminationRequest, type CreateDeps } from '../lib/termination/create-termination-request';
import { TerminationStore } from '../lib/termination/termination-store';

const config = loadServiceConfig();
const deps: CreateDeps = {
  store: new TerminationStore(createDocumentClient(config.dynamodb), {
    requests: config.requestsTableName,
    contracts: config.contractsTableName,
  }),
  businessTimeZone: config.businessTimeZone,
  idempotencyTtlSeconds: config.idempotencyTtlSeconds,
  budgetMs: config.budgetMs,
};

/** POST /api/v1/contracts/{contractId}/termination-requests */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const started = Date.now();
  const texts = textsFor(preferredLanguage(header(event, 'Accept-Language')));
  const { correlationId, problems: edgeProblems } = correlationOf(event);
  // The customer comes from the authorizer and from nowhere else.
  const customerId = event.requestContext.authorizer?.['customerId'];
  const contractId = event.pathParameters?.['contractId'];
  logger.resetKeys();
  logger.appendKeys({ correlationId, contractId, customerId: typeof customerId === 'string' ? customerId : undefined });

  let outcome: Outcome;
  try {
    if (typeof customerId !== 'string' || customerId === '')
      throw new EdgeRefusal('UNAUTHORIZED', [{ field: 'Authorization', code: 'bearerTokenRequired' }]);
    outcome = await createTerminationRequest(deps, {
      customerId,
      contractId,
      idempotencyKey: header(event, 'Idempotency-Key'),
      body: readJsonObjectBody(event),
      createdMessage: texts.created,
      edgeProblems,
    });
  } catch (error) {
    outcome = error instanceof EdgeRefusal ? { kind: 'refused', refusal: error.refusal } : { kind: 'failed', error };
  }

  const answer = answerFor(outcome, {
    correlationId,
    texts,
    retryAfterSeconds: config.retryAfterSeconds,
    location: (requestId) => `/api/v1/contracts/${contractId ?? ''}/termination-requests/${requestId}`,
  });
  const fields = { statusCode: answer.statusCode, durationMs: Date.now() - started };
  if (outcome.kind === 'created' || outcome.kind === 'replayed') {
    const { request, refundAccount } = outcome;
    logger.info('request answered', {
      ...fields,
      outcome: outcome.kind,
      requestId: request.requestId,
      refundAccount: maskAccountNumber(refundAccount),
    });
  } else if (answer.statusCode >= 500) {
    const cause = outcome.kind === 'failed' ? outcome.error : outcome.kind === 'unavailable' ? outcome.cause : undefined;
    logger.error('request failed', { ...fields, outcome: 'refused', errorCode: answer.errorCode, error: cause });
  } else {
    logger.info('request refused', { ...fields, outcome: 'refused', errorCode: answer.errorCode });
  }
  recordOutcome(answer.statusCode);
  return answer.response;
};
