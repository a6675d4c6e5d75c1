import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one logger: structured JSON (Powertools). Never pass it a token, a header map or a request
 * body: account numbers and JWTs must not reach the logs (D9).
 */
export const logger = new Logger({ serviceName: 'contract-termination' });

