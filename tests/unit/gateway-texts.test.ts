import { describe, expect, it } from 'vitest';
import { gatewayResponses } from '../../scripts/local/template-file';
import { loadServiceConfig } from '../../lib/config';
import type { ErrorCode } from '../../lib/http/errors';
import { isErrorCode, OUTCOMES } from '../../lib/http/outcomes';
import { SECURITY_HEADERS } from '../../lib/http/answers';
import { textsFor } from '../../lib/http/texts';
import type { Problem } from '../../lib/api-model/problems';

/*
 * API Gateway answers some errors itself (resources/api.yml), in English, with
 * templates CloudFormation cannot compute. This ties their words to the handler's: the same
 * errorCode gets the same message, details and status whoever answers.
 */

const en = textsFor('en');
/** The details the handler gives for the codes the gateway also answers. */
const HANDLER_DETAILS: Partial<Record<ErrorCode, Problem[]>> = {
  UNAUTHORIZED: [{ field: 'Authorization', code: 'bearerTokenRequired' }],
  INTERNAL_ERROR: [],
  SERVICE_UNAVAILABLE: [],
};

const templated = gatewayResponses().map((response) => {
  const { logicalId: name, template } = response;
  // The body with API Gateway's variables filled in as it would: request id and message string.
  const body: unknown = JSON.parse(
    template.replaceAll('$context.requestId', 'req-1').replace('$context.error.messageString', '"Too Many Requests"'),
  );
  return { name, properties: response, body };
});

describe('gateway responses', () => {
  const withOurCodes = templated.flatMap(({ name, properties, body }) => {
    const code = body !== null && typeof body === 'object' && 'errorCode' in body ? String(body.errorCode) : '';
    return isErrorCode(code) ? [{ name, properties, body, code }] : [];
  });

  it('include the ones the handler also answers: 401, 500, 503 (authorizer failure and misconfiguration)', () => {
    expect(withOurCodes.map((r) => r.code).sort()).toEqual([
      'INTERNAL_ERROR',
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
      // An integration that times out or cannot be invoked.
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
      'UNAUTHORIZED',
    ]);
  });

  it.each(withOurCodes)('$name says what the handler says for $code', ({ properties, body, code }) => {
    expect(body).toEqual({
      errorCode: code,
      message: en.error(code, {}),
      correlationId: 'req-1',
      details: (HANDLER_DETAILS[code] ?? []).map((problem) => ({ field: problem.field, reason: en.problem(problem) })),
    });
    if (properties.statusCode !== undefined) expect(Number(properties.statusCode)).toBe(OUTCOMES[code].status);
  });

  it('gives Retry-After on 503 as the handler does by default', () => {
    const failures = withOurCodes.filter((r) => r.code === 'SERVICE_UNAVAILABLE');
    const defaults = loadServiceConfig({ REQUESTS_TABLE_NAME: 'r', CONTRACTS_TABLE_NAME: 'c' });
    expect(failures).toHaveLength(4);
    for (const failure of failures) {
      expect(failure.properties.parameters).toMatchObject({
        'gatewayresponse.header.Retry-After': `'${defaults.retryAfterSeconds}'`,
      });
    }
  });

  it("carry the security headers the handler sets, and the gateway's request id as X-Correlation-Id", () => {
    const expected = Object.fromEntries(
      Object.entries(SECURITY_HEADERS).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`]),
    );
    for (const { properties } of templated) {
      expect(properties.parameters).toMatchObject({
        ...expected,
        'gatewayresponse.header.X-Correlation-Id': 'context.requestId',
      });
    }
  });

  it('ask for a bearer token on 401, as the handler does', () => {
    const unauthorized = withOurCodes.find((r) => r.code === 'UNAUTHORIZED');
    expect(unauthorized?.properties.parameters).toMatchObject({ 'gatewayresponse.header.WWW-Authenticate': "'Bearer'" });
  });

  it('answer an unknown route with 404, never the 403 that reads as "not your contract"', () => {
    const routes = templated.filter(({ properties }) => ['MISSING_AUTHENTICATION_TOKEN', 'RESOURCE_NOT_FOUND'].includes(properties.type));
    expect(routes).toHaveLength(2);
    for (const { properties, body } of routes) {
      expect(properties.statusCode).toBe('404');
      expect(body).toMatchObject({ errorCode: 'ROUTE_NOT_FOUND' });
    }
  });

  it('every template is the error body with the correlation id', () => {
    for (const { body } of templated) expect(body).toMatchObject({ correlationId: 'req-1', details: expect.any(Array) });
  });
});
