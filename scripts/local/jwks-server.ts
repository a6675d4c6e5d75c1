import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BACK_OFFICE_JWKS_PATH, LOCAL_BACK_OFFICE_KEY } from './decision-event';
import { refusedForeignHost } from './host-guard';
import { jwksOf, type EventSigningKey } from './kms-stand-in';
import {
  EVENT_SIGNING_KEYS_CACHE_CONTROL,
  EVENT_SIGNING_KEYS_CONTENT_TYPE,
  EVENT_SIGNING_KEYS_PATH,
} from '../../lib/events/event-signing-keys';

export const JWKS_PATH = '/.well-known/jwks.json';

/** More routes for the same server (the API description); true when it answered. */
export type ExtraRoutes = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Serves the local JWKS over HTTP on loopback, as an identity provider would over HTTPS, the
 * local back office's (BACK_OFFICE_JWKS_PATH), whose key signs the decisions of the local stack,
 * and, given the events' signing key, the document of its public half (EVENT_SIGNING_KEYS_PATH, with
 * the headers the deployed document has: lib/events/event-signing-keys.ts).
 */
export async function startJwksServer(
  /** The keys, or a function giving the keys of the moment (a test rotating them). */
  jwks: unknown,
  port: number,
  extra?: ExtraRoutes,
  eventSigningKey?: EventSigningKey,
): Promise<{ uri: string; backOfficeUri: string; origin: string; stop: () => Promise<void> }> {
  const eventKeys = eventSigningKey && JSON.stringify(jwksOf(eventSigningKey));
  const server: Server = createServer((req, res) => {
    if (refusedForeignHost(req, res, '127.0.0.1')) return;
    if (req.method === 'GET' && req.url === JWKS_PATH) {
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(typeof jwks === 'function' ? Reflect.apply(jwks, undefined, []) : jwks));
    } else if (req.method === 'GET' && req.url === BACK_OFFICE_JWKS_PATH) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(LOCAL_BACK_OFFICE_KEY.jwks));
    } else if (req.method === 'GET' && req.url === EVENT_SIGNING_KEYS_PATH && eventKeys !== undefined) {
      res
        .writeHead(200, { 'Content-Type': EVENT_SIGNING_KEYS_CONTENT_TYPE, 'Cache-Control': EVENT_SIGNING_KEYS_CACHE_CONTROL })
        .end(eventKeys);
    } else if (!extra?.(req, res)) {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  const bound = address !== null && typeof address === 'object' ? address.port : port;
  const origin = `http://127.0.0.1:${bound}`;
  return {
    uri: `${origin}${JWKS_PATH}`,
    backOfficeUri: `${origin}${BACK_OFFICE_JWKS_PATH}`,
    origin,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
