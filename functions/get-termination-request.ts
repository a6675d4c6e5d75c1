import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config/config';
import type { Outcome } from '../lib/http/answers';
import { edgeFailure, readEdge, respond, unauthorized } from '../lib/http/edge';
import { createDocumentClient } from '../lib/storage/dynamodb-client';
import { getTerminationRequest } from '../lib/termination/read-termination-requests';
import { TerminationStore } from '../lib/termination/termination-store';

const config = loadServiceConfig();
const store = new TerminationStore(createDocumentClient(config.dynamodb), {
  requests: config.requestsTableName,
  contracts: config.contractsTableName,
});

/** GET /api/v1/contracts/{contractId}/termination-requests/{requestId} */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const edge = readEdge(event);
  let outcome: Outcome;
  try {
    if (edge.customerId === undefined) throw unauthorized();
    outcome = await getTerminationRequest(store, {
      customerId: edge.customerId,
      contractId: event.pathParameters?.['contractId'],
      requestId: event.pathParameters?.['requestId'],
      message: edge.texts.requestStatus,
      edgeProblems: edge.problems,
    });
  } catch (error) {
    outcome = edgeFailure(error);
  }
  return respond(edge, outcome, { retryAfterSeconds: config.retryAfterSeconds, allowedOrigins: config.allowedOrigins });
};
