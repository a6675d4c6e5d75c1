import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config';
import { answerCall } from '../lib/http/edge';
import { listCustomerTerminationRequests } from '../lib/termination/customer-requests';
import { storeFor } from '../lib/dynamodb/termination-table';
import { withLambdaContext } from '../lib/observability/lambda-context';

const config = loadServiceConfig();
const deps = {
  budgetMs: config.budgetMs,
  store: storeFor(config),
};

/** GET /api/v1/termination-requests?limit=&cursor= */
export const handler = withLambdaContext((event: APIGatewayProxyEvent, invocation): Promise<APIGatewayProxyResult> =>
  answerCall(event, invocation, config, (customerId, context) =>
    listCustomerTerminationRequests(deps, {
      customerId,
      limit: event.queryStringParameters?.['limit'],
      cursor: event.queryStringParameters?.['cursor'],
      context,
    }),
  ),
);
