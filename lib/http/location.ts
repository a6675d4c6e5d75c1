import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The path prefix the client called the API under: `/prod` on an execute-api URL, the base path
 * on a custom domain (`/termination`), nothing locally. It is what the client's path
 * (requestContext.path) has before the route's own path, with its parameters filled in.
 */
export function basePathOf(event: Pick<APIGatewayProxyEvent, 'resource' | 'pathParameters' | 'requestContext'>): string {
  const routePath = event.resource.replace(/\{(\w+)\+?\}/g, (_, name: string) => event.pathParameters?.[name] ?? '');
  const clientPath = event.requestContext.path;
  return clientPath.endsWith(routePath) ? clientPath.slice(0, clientPath.length - routePath.length) : '';
}

/** Where a request of a contract can be read back, as the client reached this API. */
export function requestLocation(
  event: Pick<APIGatewayProxyEvent, 'resource' | 'pathParameters' | 'requestContext'>,
  contractId: string,
  requestId: string,
): string {
  return `${basePathOf(event)}/api/v1/contracts/${contractId}/termination-requests/${requestId}`;
}
