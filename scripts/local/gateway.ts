import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import gatewayResponses from '../../resources/gateway-responses.json' with { type: 'json' };
import { CORS, corsHeaders } from '../../lib/http/cors';

/*
 * What API Gateway does in front of the functions and serverless offline does not: preflight
 * answers for the allowed origins only (offline grants CORS to any origin), and the gateway's own
 * error answers (an authorizer's 401, an unknown route) rendered from the very templates that are
 * deployed (resources/gateway-responses.json) instead of offline's own bodies. npm start and the
 * HTTP tests put it in front of serverless offline, so a browser meets the API as deployed.
 */

const ROUTES: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/api\/v1\/contracts\/[^/]+\/termination-requests$/, methods: ['GET', 'POST'] },
  { pattern: /^\/api\/v1\/contracts\/[^/]+\/termination-requests\/[^/]+$/, methods: ['GET'] },
  { pattern: /^\/api\/v1\/contracts\/[^/]+\/termination-requests\/[^/]+\/withdrawal$/, methods: ['POST'] },
  { pattern: /^\/api\/v1\/termination-reasons$/, methods: ['GET'] },
];

type ResponseType =
  'UNAUTHORIZED' | 'ACCESS_DENIED' | 'RESOURCE_NOT_FOUND' | 'MISSING_AUTHENTICATION_TOKEN' | 'DEFAULT_4XX' | 'DEFAULT_5XX';

const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** A gateway response as API Gateway renders its template: variables filled, headers mapped. */
function gatewayAnswer(type: ResponseType, status: number, requestHeaders: IncomingHttpHeaders, allowedOrigins: readonly string[]) {
  const resource = Object.values(gatewayResponses.Resources).find((r) => r.Properties.ResponseType === type);
  if (!resource) throw new Error(`No gateway response ${type} in resources/gateway-responses.json`);
  const properties = resource.Properties;
  const body = properties.ResponseTemplates['application/json']
    .replaceAll('$context.requestId', randomUUID())
    .replaceAll('$context.error.responseType', type)
    .replaceAll('$context.error.messageString', JSON.stringify(status === 429 ? 'Too Many Requests' : 'Error'));
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [key, source] of Object.entries(properties.ResponseParameters)) {
    const name = key.replace('gatewayresponse.header.', '');
    const value = source.startsWith("'") ? source.slice(1, -1) : headerOf(requestHeaders, source.replace('method.request.header.', ''));
    if (value !== undefined) headers[name] = value;
  }
  // Deployed, the gateway's answers name the stage's first origin (scripts/serverless/stage-settings.cjs).
  const [first] = allowedOrigins;
  if (first) Object.assign(headers, corsHeaders(first, allowedOrigins));
  return { status: 'StatusCode' in properties ? Number(properties.StatusCode) : status, headers, body };
}

function typeOf(status: number): ResponseType {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'ACCESS_DENIED';
  if (status === 404) return 'RESOURCE_NOT_FOUND';
  return status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX';
}

function send(res: ServerResponse, answer: { status: number; headers: Record<string, string>; body: string | Buffer }): void {
  res.writeHead(answer.status, answer.headers).end(answer.body);
}

export interface LocalGateway {
  url: string;
  stop: () => Promise<void>;
}

export async function startLocalGateway(options: {
  port: number;
  host: string;
  /** serverless offline's URL. */
  upstream: string;
  allowedOrigins: readonly string[];
}): Promise<LocalGateway> {
  const { allowedOrigins } = options;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const route = ROUTES.find((r) => r.pattern.test(url.pathname));
    const origin = headerOf(req.headers, 'Origin');

    // Deployed, a stage without allowed origins has no OPTIONS method at all.
    if (req.method === 'OPTIONS' && route && allowedOrigins.length > 0) {
      // As osls's MOCK preflight: a listed origin is echoed; any other gets the first, which a browser refuses.
      const allowed = origin !== undefined && allowedOrigins.includes(origin) ? origin : allowedOrigins[0];
      const headers: Record<string, string> = allowed
        ? {
            'Access-Control-Allow-Origin': allowed,
            'Access-Control-Allow-Methods': ['OPTIONS', ...route.methods].join(','),
            'Access-Control-Allow-Headers': CORS.allowHeaders.join(','),
            'Access-Control-Max-Age': String(CORS.maxAgeSeconds),
          }
        : {};
      send(res, { status: 200, headers: { ...headers, Vary: 'Origin' }, body: '' });
      return;
    }
    if (!route || !route.methods.includes(req.method ?? '')) {
      send(res, gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', 403, req.headers, allowedOrigins));
      return;
    }

    const upstream = httpRequest(`${options.upstream}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const status = answer.statusCode ?? 502;
        // The functions always name a correlation id; an answer without one is offline's own.
        if (headerOf(answer.headers, 'X-Correlation-Id') === undefined) {
          send(res, gatewayAnswer(typeOf(status), status, req.headers, allowedOrigins));
          return;
        }
        // Offline grants CORS to every origin (Allow-Origin, Allow-Credentials) on every answer; only
        // the function sets Expose-Headers, so its presence says the function granted the origin.
        const granted = answer.headers['access-control-expose-headers'] !== undefined;
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value === undefined || name === 'connection' || name === 'transfer-encoding' || name === 'access-control-allow-credentials')
            continue;
          if (name.startsWith('access-control-') && !granted) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        send(res, { status, headers, body: Buffer.concat(chunks) });
      });
    });
    // API Gateway waits 29 s for an integration, then answers 504 itself.
    upstream.setTimeout(29_000, () => upstream.destroy(new Error('integration timeout')));
    upstream.on('error', (error) =>
      send(res, gatewayAnswer('DEFAULT_5XX', error.message === 'integration timeout' ? 504 : 502, req.headers, allowedOrigins)),
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : options.port;
  return {
    url: `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
