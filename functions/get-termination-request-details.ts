import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config';
import { answerCall } from '../lib/http/edge';
import { getTerminationRequestDetails } from '../lib/termination/request-details';
import { storeFor } from '../lib/dynamodb/termination-table';
import { withLambdaContext } from '../lib/observability/lambda-context';

const config = loadServiceConfig();
const deps = {
  budgetMs: config.budgetMs,
  store: storeFor(config),
};

/** GET /api/v1/contracts/{contractId}/termination-requests/{requestId}/details */
export const handler = withLambdaContext((event: APIGatewayProxyEvent, invocation): Promise<APIGatewayProxyResult> =>
  answerCall(event, invocation, config, (customerId, context) =>
    getTerminationRequestDetails(deps, {
      customerId,
      contractId: event.pathParameters?.['contractId'],
      requestId: event.pathParameters?.['requestId'],
      context,
    }),
  ),
);
