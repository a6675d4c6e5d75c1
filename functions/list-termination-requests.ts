import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config';
import { answerCall } from '../lib/http/edge';
import { listTerminationRequests } from '../lib/termination/read-termination-requests';
import { storeFor } from '../lib/dynamodb/termination-table';
import { withLambdaContext } from '../lib/observability/lambda-context';

const config = loadServiceConfig();
const deps = {
  budgetMs: config.budgetMs,
  store: storeFor(config),
};

/** GET /api/v1/contracts/{contractId}/termination-requests?limit=&cursor= */
export const handler = withLambdaContext((event: APIGatewayProxyEvent, invocation): Promise<APIGatewayProxyResult> =>
  answerCall(event, invocation, config, (customerId, context) =>
    listTerminationRequests(deps, {
      customerId,
      contractId: event.pathParameters?.['contractId'],
      limit: event.queryStringParameters?.['limit'],
      cursor: event.queryStringParameters?.['cursor'],
      context,
    }),
  ),
);
