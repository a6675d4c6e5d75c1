import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config/config';
import { UnauthorizedError } from '../lib/http/errors';
import { header, readJsonObjectBody } from '../lib/http/request';
import { asApiError, errorResponse, jsonResponse } from '../lib/http/responses';
import { preferredLanguage, textsFor } from '../lib/http/texts';
import { correlationOf } from '../lib/http/correlation';
import { logger, maskAccountNumber } from '../lib/logging/logger';
import { recordOutcome } from '../lib/monitoring/metrics';
import { createDocumentClient } from '../lib/storage/dynamodb-client';
import { createTerminationRequest } from '../lib/termination/create-termination-request';
import { TerminationStore } from '../lib/termination/termination-store';

const config = loadServiceConfig();
const deps = {
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
  const { correlationId, problems: headerProblems } = correlationOf(event, texts);
  // The customer comes from the authorizer and from nowhere else (D1).
  const customerId = event.requestContext.authorizer?.['customerId'];
  const contractId = event.pathParameters?.['contractId'];
  logger.resetKeys();
  logger.appendKeys({ correlationId, contractId, customerId: typeof customerId === 'string' ? customerId : undefined });

  try {
    if (typeof customerId !== 'string' || customerId === '') throw new UnauthorizedError();
    const result = await createTerminationRequest(deps, {
      customerId,
      contractId,
      idempotencyKey: header(event, 'Idempotency-Key'),
      body: readJsonObjectBody(event, texts),
      texts,
      headerProblems,
    });
    logger.info('request answered', {
      outcome: result.replayed ? 'replayed' : 'created',
      statusCode: result.statusCode,
      requestId: result.request.requestId,
      refundAccount: maskAccountNumber(result.accountNumber),
      durationMs: Date.now() - started,
    });
    recordOutcome(result.statusCode);
    return jsonResponse(result.statusCode, result.request, correlationId, {
      Location: `/api/v1/contracts/${contractId ?? ''}/termination-requests/${result.request.requestId}`,
      ...(result.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
    });
  } catch (error) {
    const apiError = asApiError(error);
    const fields = { outcome: 'refused', statusCode: apiError.status, errorCode: apiError.errorCode, durationMs: Date.now() - started };
    if (apiError.status >= 500)
      logger.error('request failed', { ...fields, error: apiError === error && 'cause' in apiError ? apiError.cause : error });
    else logger.info('request refused', fields);
    recordOutcome(apiError.status);
    return errorResponse(apiError, correlationId, texts, config.retryAfterSeconds);
  }
};
