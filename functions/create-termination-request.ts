import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config/config';
import type { Outcome } from '../lib/http/answers';
import { edgeFailure, readEdge, respond, unauthorized } from '../lib/http/edge';
import { requestLocation } from '../lib/http/location';
import { header, readJsonObjectBody } from '../lib/http/request';
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
  const edge = readEdge(event);
  let outcome: Outcome;
  try {
    if (edge.customerId === undefined) throw unauthorized();
    outcome = await createTerminationRequest(deps, {
      customerId: edge.customerId,
      contractId: event.pathParameters?.['contractId'],
      idempotencyKey: header(event, 'Idempotency-Key'),
      body: readJsonObjectBody(event),
      createdMessage: edge.texts.created,
      edgeProblems: edge.problems,
    });
  } catch (error) {
    outcome = edgeFailure(error);
  }
  const contractId = event.pathParameters?.['contractId']?.toLowerCase() ?? '';
  return respond(edge, outcome, {
    retryAfterSeconds: config.retryAfterSeconds,
    allowedOrigins: config.allowedOrigins,
    location: (requestId) => requestLocation(event, contractId, requestId),
  });
};
