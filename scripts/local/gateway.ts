import { randomUUID } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  STATUS_CODES,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { gatewayResponses } from './template-file';
import { CORS } from '../../lib/http/cors';
import { refusedForeignHost } from './host-guard';

/*
 * What API Gateway does in front of the functions and serverless offline does not: preflight
 * answers for the allowed origins only (offline grants CORS to any origin), and the gateway's own
 * answers (an authorizer's 401, an unknown route, a body too large, throttling, an integration
 * that fails or times out) rendered from the very templates that are deployed
 * (resources/api.yml) instead of offline's own bodies. npm start and the HTTP
 * tests put it in front of serverless offline, so a browser meets the API as deployed.
 *
 * Rendering follows API Gateway: a gateway response template is not VTL, only variables are
 * substituted (docs/decisions/0011-error-body.md). This renders the variables and header
 * mappings the templates use and fails loudly on anything else, so a template that would not
 * render on AWS does not render here either. Offline refuses bodies over 10 MB itself (413), as
 * API Gateway does with REQUEST_TOO_LARGE.
 */

const ROUTES: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/api\/v1\/contracts\/[^/]+\/termination-requests$/, methods: ['GET', 'POST'] },
  { pattern: /^\/api\/v1\/contracts\/[^/]+\/termination-requests\/[^/]+$/, methods: ['GET'] },
  { pattern: /^\/api\/v1\/contracts\/[^/]+\/termination-requests\/[^/]+\/withdrawal$/, methods: ['POST'] },
  { pattern: /^\/api\/v1\/contracts\/[^/]+\/termination-requests\/[^/]+\/details$/, methods: ['GET'] },
  { pattern: /^\/api\/v1\/termination-requests$/, methods: ['GET'] },
  { pattern: /^\/api\/v1\/termination-reasons$/, methods: ['GET'] },
];

interface GatewayResponseDefinition {
  type: string;
  statusCode: number | undefined;
  parameters: [string, string][];
  template: string;
}

const DEFINITIONS: GatewayResponseDefinition[] = gatewayResponses().map((response) => ({
  type: response.type,
  statusCode: response.statusCode === undefined ? undefined : Number(response.statusCode),
  parameters: Object.entries(response.parameters),
  template: response.template,
}));

const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** What API Gateway knows of a call when it answers it itself. */
interface GatewayContext {
  requestId: string;
  responseType: string;
  /** API Gateway's own text, as a JSON string (quotes included). */
  messageString: string;
}

function unsupported(type: string, what: string): Error {
  return new Error(`resources/api.yml: ${type} uses ${what}, which API Gateway's gateway responses (and this gateway) do not render`);
}

/** The template with its variables filled, as API Gateway's simple substitution does. */
export function renderTemplate(type: string, template: string, context: GatewayContext): string {
  const directive = /#(?:if|elseif|else|end|set|foreach|break|stop|macro|define|parse|include|evaluate)\b|#\{/.exec(template);
  if (directive) throw unsupported(type, `the VTL directive ${directive[0]}`);
  // Plain references only: `$!x`, `${x}` and calls are VTL, which a gateway response is not.
  return template.replace(/\$!?\{?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\(?/g, (reference) => {
    if (reference === '$context.requestId') return context.requestId;
    if (reference === '$context.error.responseType') return context.responseType;
    if (reference === '$context.error.messageString') return context.messageString;
    throw unsupported(type, `the reference ${reference}`);
  });
}

/** A header mapping's value: a quoted static value or a context variable the templates use. */
export function renderParameter(type: string, source: string, context: GatewayContext): string {
  if (source.length >= 2 && source.startsWith("'") && source.endsWith("'")) return source.slice(1, -1);
  if (source === 'context.requestId') return context.requestId;
  throw unsupported(type, `the header mapping ${source}`);
}

/**
 * A gateway response as API Gateway renders it: the response type's own definition, or the
 * DEFAULT_4XX/DEFAULT_5XX one when it has none; one request id in the header and the body.
 */
export function gatewayAnswer(type: string, status: number): { status: number; headers: Record<string, string>; body: string } {
  const fallback = status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX';
  const definition = DEFINITIONS.find((d) => d.type === type) ?? DEFINITIONS.find((d) => d.type === fallback);
  if (!definition) throw new Error(`No gateway response ${type} (nor ${fallback}) in resources/api.yml`);
  const context: GatewayContext = {
    requestId: randomUUID(),
    responseType: type,
    messageString: JSON.stringify(STATUS_CODES[status] ?? 'Error'),
  };
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [key, source] of definition.parameters) {
    if (!key.startsWith('gatewayresponse.header.')) throw unsupported(definition.type, `the parameter ${key}`);
    headers[key.slice('gatewayresponse.header.'.length)] = renderParameter(definition.type, source, context);
  }
  return { status: definition.statusCode ?? status, headers, body: renderTemplate(definition.type, definition.template, context) };
}

/** The response type API Gateway would have answered with, for an answer offline made itself. */
function typeOf(status: number): string {
  switch (status) {
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'ACCESS_DENIED';
    case 404:
      return 'RESOURCE_NOT_FOUND';
    case 413:
      return 'REQUEST_TOO_LARGE';
    case 429:
      return 'THROTTLED';
    default:
      return status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX';
  }
}

function sendAnswer(res: ServerResponse, answer: { status: number; headers: Record<string, string>; body: string | Buffer }): void {
  // One answer per call: a late error of the upstream (a refused upload) changes nothing.
  if (res.headersSent) return;
  res.writeHead(answer.status, answer.headers).end(answer.body);
}

/**
 * The headers as the function is to see them. API Gateway hands a body sent without a
 * Content-Type to the function without one (which refuses it, 400); serverless offline would call
 * it application/json and let it through. Named application/octet-stream, what HTTP takes an
 * untyped body to be (RFC 9110, 8.3), it meets the same refusal locally as deployed.
 */
function typed(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const hasBody = Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
  return hasBody && headers['content-type'] === undefined ? { ...headers, 'content-type': 'application/octet-stream' } : headers;
}

export interface LocalGateway {
  url: string;
  stop: () => Promise<void>;
}

/** A call the gateway answered: what npm start prints, one line per call. */
export interface AnsweredCall {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The answer's X-Correlation-Id: the key to the call's lines in the functions' log. */
  correlationId: string | undefined;
  /** The error body's errorCode, on an error. */
  errorCode: string | undefined;
  /** The Origin a browser sent: a web page's call. */
  origin: string | undefined;
}

function errorCodeOf(status: number, body: string | Buffer): string | undefined {
  if (status < 400) return undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString());
    return parsed !== null && typeof parsed === 'object' && 'errorCode' in parsed && typeof parsed.errorCode === 'string'
      ? parsed.errorCode
      : undefined;
  } catch {
    return undefined;
  }
}

export async function startLocalGateway(options: {
  port: number;
  host: string;
  /** serverless offline's URL. */
  upstream: string;
  /** The Unix socket serverless offline listens on, when it does (npm start): the URL then names only the path's origin. */
  upstreamSocketPath?: string;
  allowedOrigins: readonly string[];
  onCall?: (call: AnsweredCall) => void;
  /**
   * Asks the authorizer again whether it refuses the call's token. serverless offline answers 401
   * whatever made its authorizer fail (a refusal, an error, a time-out); API Gateway answers 401
   * only for a refusal, and AUTHORIZER_FAILURE for the rest.
   */
  refusesToken?: (call: { method: string; path: string; headers: IncomingHttpHeaders }) => Promise<boolean>;
}): Promise<LocalGateway> {
  const { allowedOrigins } = options;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (refusedForeignHost(req, res, options.host)) return;
    const url = new URL(req.url ?? '/', 'http://gateway');
    const started = Date.now();
    // Every answer goes out through send(); the first one is the call's.
    const send = (response: ServerResponse, answer: { status: number; headers: Record<string, string>; body: string | Buffer }) => {
      if (response.headersSent) return;
      sendAnswer(response, answer);
      options.onCall?.({
        method: req.method ?? '',
        path: url.pathname,
        status: answer.status,
        durationMs: Date.now() - started,
        correlationId: Object.entries(answer.headers).find(([name]) => name.toLowerCase() === 'x-correlation-id')?.[1],
        errorCode: errorCodeOf(answer.status, answer.body),
        origin: headerOf(req.headers, 'Origin'),
      });
    };
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
      req.resume();
      send(res, gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', 403));
      return;
    }

    const socket = options.upstreamSocketPath === undefined ? {} : { socketPath: options.upstreamSocketPath };
    const upstream = httpRequest(
      `${options.upstream}${req.url ?? '/'}`,
      { method: req.method, headers: typed(req.headers), ...socket },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const status = answer.statusCode ?? 502;
          // The functions always name a correlation id; an answer without one is offline's own.
          if (headerOf(answer.headers, 'X-Correlation-Id') === undefined) {
            // A 401 is the authorizer's: a refusal of the token stays 401; an authorizer that failed or
            // timed out is AUTHORIZER_FAILURE, as API Gateway answers it, so a valid token is never told to sign in again.
            if (status === 401 && options.refusesToken) {
              void options
                .refusesToken({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers })
                .catch(() => false)
                .then((refused) => send(res, refused ? gatewayAnswer('UNAUTHORIZED', 401) : gatewayAnswer('AUTHORIZER_FAILURE', 500)));
              return;
            }
            send(res, gatewayAnswer(typeOf(status), status));
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
      },
    );
    // API Gateway waits 29 s for an integration, then answers INTEGRATION_TIMEOUT itself.
    upstream.setTimeout(29_000, () => upstream.destroy(new Error('integration timeout')));
    // Offline unreachable is an integration that cannot be invoked: INTEGRATION_FAILURE.
    upstream.on('error', (error) =>
      send(res, gatewayAnswer(error.message === 'integration timeout' ? 'INTEGRATION_TIMEOUT' : 'INTEGRATION_FAILURE', 504)),
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
