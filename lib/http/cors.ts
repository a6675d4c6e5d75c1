import cors from '../../resources/cors.json' with { type: 'json' };

/*
 * Browsers on the allowed origins may read every answer (docs/decisions/0016-browsers.md): the
 * origin is echoed only when it is on the stage's list, with the headers a client needs exposed.
 * No credentials: the API takes bearer tokens, never cookies. The same lists shape the
 * preflight answers (scripts/serverless/stage-settings.cjs, scripts/local/gateway.ts).
 */

export const CORS = cors;

/** The CORS headers of an answer to a request from `origin`. */
export function corsHeaders(origin: string | undefined, allowedOrigins: readonly string[]): Record<string, string> {
  // Vary always: a cache must not give one origin's answer to another.
  if (origin === undefined || !allowedOrigins.includes(origin)) return { Vary: 'Origin' };
  return { Vary: 'Origin', 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': cors.exposeHeaders.join(', ') };
}
