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

function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const [mediaType = '', ...params] = value.split(';').map((p) => p.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  // Only UTF-8 JSON is accepted (RFC 8259); a charset parameter, if any, must say so.
  return params.every((p) => !p.startsWith('charset=') || p === 'charset=utf-8' || p === 'charset="utf-8"');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const malformed = (problem: Problem) => new EdgeRefusal('MALFORMED_REQUEST', [problem]);

/** The body as a parsed JSON object, or MALFORMED_REQUEST. */
export function readJsonObjectBody(event: Pick<APIGatewayProxyEvent, 'headers' | 'body' | 'isBase64Encoded'>): Record<string, unknown> {
  if (!isJsonContentType(header(event, 'Content-Type'))) {
    throw malformed({ field: 'Content-Type', code: 'contentType' });
  }
  // Typed string | null, but serverless offline hands some empty bodies over as `false`.
  const text: string = typeof event.body === 'string' ? event.body : '';
  const bytes = event.isBase64Encoded ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  if (bytes.length > MAX_BODY_BYTES) {
    throw malformed({ field: 'body', code: 'tooLarge', limit: MAX_BODY_BYTES });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.isBase64Encoded ? strictUtf8.decode(bytes) : text);
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
