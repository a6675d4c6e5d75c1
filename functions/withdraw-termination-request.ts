import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadServiceConfig } from '../lib/config';
import { storeFor } from '../lib/dynamodb/termination-table';
import { answerCall } from '../lib/http/edge';
import { bodyRefusal, header } from '../lib/http/request';
import { withLambdaContext } from '../lib/observability/lambda-context';
import { withdrawTerminationRequest, type WithdrawDeps } from '../lib/termination/withdraw-termination-request';

const config = loadServiceConfig();
const deps: WithdrawDeps = {
  store: storeFor(config),
  idempotencyTtlSeconds: config.idempotencyTtlSeconds,
  retention: config.retention,
  budgetMs: config.budgetMs,
};

/** POST /api/v1/contracts/{contractId}/termination-requests/{requestId}/withdrawal: no body. */
export const handler = withLambdaContext((event: APIGatewayProxyEvent, invocation): Promise<APIGatewayProxyResult> =>
  answerCall(
    event,
    invocation,
    config,
    (customerId, context) =>
      bodyRefusal(event) ??
      withdrawTerminationRequest(deps, {
        customerId,
        contractId: event.pathParameters?.['contractId'],
        requestId: event.pathParameters?.['requestId'],
        idempotencyKey: header(event, 'Idempotency-Key'),
        context,
      }),
  ),
);
