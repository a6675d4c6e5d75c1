import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';

export interface EventOptions {
  contractId?: string;
  customerId?: string | null;
  body?: unknown;
  rawBody?: string | null;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
  /** A GET: of one request when requestId is given, else of the contract's list. */
  method?: 'GET' | 'POST';
  requestId?: string;
  query?: Record<string, string>;
  /** A POST of the request's withdrawal (requestId given): no body. */
  withdrawal?: boolean;
  /** A GET of the request's details (requestId given). */
  details?: boolean;
  /** A GET of the caller's requests on every contract: no contract in the path. */
  allContracts?: boolean;
}

/** A REST API (v1) proxy event as API Gateway sends it to this route after the authorizer. */
export function apiEvent(options: EventOptions): APIGatewayProxyEvent {
  const contractId = options.contractId ?? '00000000-0000-4000-8000-000000000000';
  const method = options.method ?? 'POST';
  const withdrawal = options.withdrawal === true;
  const headers: Record<string, string> = {
    ...(method === 'POST' && !withdrawal ? { 'Content-Type': 'application/json' } : {}),
    Host: 'api.example.test',
    ...options.headers,
  };
  const body = method === 'GET' || withdrawal ? null : options.rawBody !== undefined ? options.rawBody : JSON.stringify(options.body ?? {});
  const one = options.requestId !== undefined;
  const tail = withdrawal ? '/withdrawal' : options.details === true ? '/details' : '';
  const all = options.allContracts === true;
  const resource = all
    ? '/api/v1/termination-requests'
    : `/api/v1/contracts/{contractId}/termination-requests${one ? '/{requestId}' : ''}${tail}`;
  const path = all ? resource : `/api/v1/contracts/${contractId}/termination-requests${one ? `/${options.requestId ?? ''}` : ''}${tail}`;
  const query = options.query && Object.keys(options.query).length > 0 ? options.query : null;
  return {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query && Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    pathParameters: all ? null : one ? { contractId, requestId: options.requestId ?? '' } : { contractId },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123def4',
      authorizer:
        options.customerId === null
          ? null
          : {
              customerId: options.customerId ?? 'customer-anna',
              principalId: options.customerId ?? 'customer-anna',
              integrationLatency: 12,
            },
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '203.0.113.10',
        user: null,
        userAgent: 'termination-tests',
        userArn: null,
      },
      path: `/dev${path}`,
      stage: 'dev',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTimeEpoch: 1767225600000,
      resourceId: 'abc123',
      resourcePath: resource,
    },
    body,
    isBase64Encoded: options.isBase64Encoded ?? false,
  };
}

/** The REQUEST authorizer's event for the same call, as API Gateway sends it before the route. */
export function authorizerEvent(authorization: string | undefined, headers: Record<string, string> = {}): APIGatewayRequestAuthorizerEvent {
  const route = apiEvent({ headers: { ...(authorization === undefined ? {} : { Authorization: authorization }), ...headers } });
  const { accountId, apiId, stage, httpMethod, resourcePath } = route.requestContext;
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:eu-central-1:${accountId}:${apiId}/${stage}/${httpMethod}${route.path}`,
    resource: route.resource,
    path: route.path,
    httpMethod: route.httpMethod,
    headers: route.headers,
    multiValueHeaders: route.multiValueHeaders,
    pathParameters: route.pathParameters,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: { ...route.requestContext, authorizer: undefined, resourcePath },
  };
}
