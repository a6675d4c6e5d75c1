import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { allowPolicy } from '../lib/auth/policy';
import { bearerToken } from '../lib/auth/token-verifier';
import { authorizerDependencies } from '../lib/dependencies/authorizer';
import { header } from '../lib/http/request';
import { logger } from '../lib/observability/logger';
import { UUID_PATTERN } from '../lib/api-model/uuid';
import { withLambdaContext } from '../lib/observability/lambda-context';

/**
 * REQUEST authorizer (cached on the Authorization header): a verified JWT becomes `customerId`
 * in the authorizer context, else 401. It sees the request's headers so that its log lines carry
 * the client's correlation id, and API Gateway's request id, which is the correlationId of the
 * gateway's own error bodies.
 */
export const handler = withLambdaContext(
  authorizerDependencies,
  async (event: APIGatewayRequestAuthorizerEvent, { customerIdOf }): Promise<APIGatewayAuthorizerResult> => {
    const sent = header(event, 'X-Correlation-Id');
    const apiRequestId = event.requestContext.requestId;
    logger.appendKeys({ correlationId: sent !== undefined && UUID_PATTERN.test(sent) ? sent : apiRequestId, apiRequestId });
    const verdict = await customerIdOf(bearerToken(header(event, 'Authorization'))).catch((error: unknown) => {
      // The JWKS could not be had: API Gateway answers AUTHORIZER_FAILURE, which the gateway
      // responses turn into 503 SERVICE_UNAVAILABLE. Never an open door.
      logger.error('token check failed', { error });
      throw new Error('Authorizer failure', { cause: error });
    });
    if (verdict.ok) return allowPolicy(verdict.customerId, event.methodArn);
    logger.info('token refused', { reason: verdict.problem });
    // The exact text "Unauthorized" is what makes API Gateway answer 401 (its authorizer protocol).
    throw new Error('Unauthorized');
  },
);
