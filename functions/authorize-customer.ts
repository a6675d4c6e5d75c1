import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { allowPolicy } from '../lib/auth/policy';
import { bearerToken, createTokenVerifier, InvalidTokenError } from '../lib/auth/token-verifier';
import { loadAuthConfig } from '../lib/config/config';
import { logger } from '../lib/logging/logger';

const customerIdOf = createTokenVerifier(loadAuthConfig());

/** TOKEN authorizer: a verified JWT becomes `customerId` in the authorizer context, else 401. */
export const handler = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  try {
    const customerId = await customerIdOf(bearerToken(event.authorizationToken));
    return allowPolicy(customerId, event.methodArn);
  } catch (error) {
    if (error instanceof InvalidTokenError) {
      logger.info('token refused', { reason: error.reason });
      // The exact text "Unauthorized" is what makes API Gateway answer 401.
      throw new Error('Unauthorized', { cause: error });
    }
    // The JWKS could not be had: API Gateway answers AUTHORIZER_FAILURE, which the gateway
    // responses turn into 503 SERVICE_UNAVAILABLE. Never an open door.
    logger.error('token check failed', { error });
    throw new Error('Authorizer failure', { cause: error });
  }
};
