import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one logger: structured JSON (Powertools). Never pass it a token, a header map or a request
 * body: account numbers and JWTs must not reach the logs (docs/decisions/0012-failures-and-logging.md).
 * Its service name is POWERTOOLS_SERVICE_NAME, set once for every function in serverless.yml.
 */
export const logger = new Logger();

/** `40817810700000000001` -> `****************0001`: enough to tell accounts apart in a log. */
export function maskAccountNumber(accountNumber: string): string {
  return `${'*'.repeat(Math.max(0, accountNumber.length - 4))}${accountNumber.slice(-4)}`;
}
