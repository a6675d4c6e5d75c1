import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Problem } from '../api-model/problems';
import { edgeRefusal, type EdgeRefused } from './errors';

export const MAX_BODY_BYTES = 16 * 1024;

/** Header value by case-insensitive name; API Gateway keeps the client's spelling. */
export function header(event: { headers: Record<string, string | undefined> | null }, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}

/** What is wrong with a Content-Type for a JSON body, or undefined when nothing is. */
function contentTypeProblem(value: string | undefined): Problem | undefined {
  const [mediaType = '', ...params] = (value ?? '').split(';').map((p) => p.trim().toLowerCase());
  if (mediaType !== 'application/json') return { field: 'Content-Type', code: 'contentType' };
  // Only UTF-8 JSON is accepted (RFC 8259); a charset parameter, if any, must say so.
  const utf8 = params.every((p) => !p.startsWith('charset=') || p === 'charset=utf-8' || p === 'charset="utf-8"');
  return utf8 ? undefined : { field: 'Content-Type', code: 'charsetNotUtf8' };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** U+FFFD, what a decoder writes where bytes were not UTF-8. */
const REPLACEMENT_CHARACTER = '\uFFFD';

const malformed = (problem: Problem) => edgeRefusal('MALFORMED_REQUEST', [problem]);

/** The body as read: a JSON object, or the edge's refusal of it. */
export type BodyRead = { kind: 'body'; body: Record<string, unknown> } | EdgeRefused;

/** The bytes' text, or undefined when they are not UTF-8. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Whether a decoded text can have come from valid UTF-8. The gateway hands a plain body over
 * already decoded, writing U+FFFD where bytes were not UTF-8: that mark, or a lone surrogate, is
 * all that is left of them. So a text holding either is refused, whichever way it came (a client
 * that means U+FFFD writes the JSON escape \ufffd, which is plain ASCII).
 */
const isCleanUtf8Text = (text: string) => !text.includes(REPLACEMENT_CHARACTER) && !/\p{Cs}/u.test(text);

/** The body as a parsed JSON object, or MALFORMED_REQUEST. */
export function readJsonObjectBody(event: Pick<APIGatewayProxyEvent, 'headers' | 'body' | 'isBase64Encoded'>): BodyRead {
  const contentType = contentTypeProblem(header(event, 'Content-Type'));
  if (contentType) return malformed(contentType);
  // Typed string | null, but serverless offline hands some empty bodies over as `false`.
  const raw: string = typeof event.body === 'string' ? event.body : '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : undefined;
  if ((bytes ? bytes.length : Buffer.byteLength(raw, 'utf8')) > MAX_BODY_BYTES) {
    return malformed({ field: 'body', code: 'tooLarge', limit: MAX_BODY_BYTES });
  }
  // JSON text is UTF-8 (RFC 8259): a body that is not is no JSON.
  const text = bytes ? decodeUtf8(bytes) : raw;
  if (text === undefined || !isCleanUtf8Text(text)) return malformed({ field: 'body', code: 'notJson' });
  const parsed = parseJson(text);
  if (parsed === NOT_JSON) return malformed({ field: 'body', code: 'notJson' });
  return isPlainObject(parsed) ? { kind: 'body', body: parsed } : malformed({ field: 'body', code: 'notObject' });
}

const NOT_JSON = Symbol('not JSON');

/** The text's JSON value, or NOT_JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** A call that takes no body (the withdrawal) refuses one, even `{}`: MALFORMED_REQUEST; undefined when there is none. */
export function bodyRefusal(event: Pick<APIGatewayProxyEvent, 'body'>): EdgeRefused | undefined {
  // Typed string | null, but serverless offline hands some empty bodies over as `false`.
  return typeof event.body === 'string' && event.body.length > 0 ? malformed({ field: 'body', code: 'bodyNotAllowed' }) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The contract and the request a route's path names, as they came. */
export const requestPath = (event: Pick<APIGatewayProxyEvent, 'pathParameters'>) => ({
  contractId: event.pathParameters?.['contractId'],
  requestId: event.pathParameters?.['requestId'],
});

/** The page a list call asks for (`limit`, `cursor`), as it came. */
export const pageQuery = (event: Pick<APIGatewayProxyEvent, 'queryStringParameters'>) => ({
  limit: event.queryStringParameters?.['limit'],
  cursor: event.queryStringParameters?.['cursor'],
});
