import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadCreateConfig } from '../lib/config';
import { answerCall } from '../lib/http/edge';
import { header, readJsonObjectBody } from '../lib/http/request';
import { createTerminationRequest, type CreateDeps } from '../lib/termination/create-termination-request';
import { storeFor } from '../lib/dynamodb/termination-table';
import { withLambdaContext } from '../lib/observability/lambda-context';

const config = loadCreateConfig();
const deps: CreateDeps = {
  store: storeFor(config),
  businessTimeZone: config.businessTimeZone,
  idempotencyTtlSeconds: config.idempotencyTtlSeconds,
  requestLimit: config.requestLimit,
  budgetMs: config.budgetMs,
};

/** POST /api/v1/contracts/{contractId}/termination-requests */
export const handler = withLambdaContext((event: APIGatewayProxyEvent, invocation): Promise<APIGatewayProxyResult> =>
  answerCall(event, invocation, config, (customerId, context) => {
    const read = readJsonObjectBody(event);
    if (read.kind === 'refused') return read;
    return createTerminationRequest(deps, {
      customerId,
      contractId: event.pathParameters?.['contractId'],
      idempotencyKey: header(event, 'Idempotency-Key'),
      body: read.body,
      context,
    });
  }),
);
