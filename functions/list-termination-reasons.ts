import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadEdgeConfig } from '../lib/config';
import { answerCall } from '../lib/http/edge';
import { withLambdaContext } from '../lib/observability/lambda-context';
import { listTerminationReasons } from '../lib/termination/reasons';

const config = loadEdgeConfig();

/** GET /api/v1/termination-reasons: the reasons a customer may give, labelled in their language. */
export const handler = withLambdaContext((event: APIGatewayProxyEvent, invocation): Promise<APIGatewayProxyResult> =>
  answerCall(event, invocation, config, (_customerId, context) => listTerminationReasons(context)),
);
