import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Problem } from '../api-model/problems';
import { EdgeRefusal } from './errors';

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

const malformed = (problem: Problem) => new EdgeRefusal('MALFORMED_REQUEST', [problem]);

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
export function readJsonObjectBody(event: Pick<APIGatewayProxyEvent, 'headers' | 'body' | 'isBase64Encoded'>): Record<string, unknown> {
  const contentType = contentTypeProblem(header(event, 'Content-Type'));
  if (contentType) throw malformed(contentType);
  // Typed string | null, but serverless offline hands some empty bodies over as `false`.
  const raw: string = typeof event.body === 'string' ? event.body : '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : undefined;
  if ((bytes ? bytes.length : Buffer.byteLength(raw, 'utf8')) > MAX_BODY_BYTES) {
    throw malformed({ field: 'body', code: 'tooLarge', limit: MAX_BODY_BYTES });
  }
  // JSON text is UTF-8 (RFC 8259): a body that is not is no JSON.
  const text = bytes ? decodeUtf8(bytes) : raw;
  if (text === undefined || !isCleanUtf8Text(text)) throw malformed({ field: 'body', code: 'notJson' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed({ field: 'body', code: 'notJson' });
  }
  if (!isPlainObject(parsed)) throw malformed({ field: 'body', code: 'notObject' });
  return parsed;
}

/** A call that takes no body (the withdrawal) refuses one, even `{}`: MALFORMED_REQUEST. */
export function assertNoBody(event: Pick<APIGatewayProxyEvent, 'body'>): void {
  // Typed string | null, but serverless offline hands some empty bodies over as `false`.
  if (typeof event.body === 'string' && event.body.length > 0) throw malformed({ field: 'body', code: 'bodyNotAllowed' });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
