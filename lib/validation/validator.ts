import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { REASON_CODES } from '../termination/reasons';
import type { Texts } from '../http/texts';
import { terminationRequestInputSchema, terminationRequestSchema, uuidSchema, type ErrorDetail, type TerminationRequest, type TerminationRequestInput } from './schemas';

const ajv = new Ajv({ allErrors: true, strict: true, unicodeRegExp: true });
addFormats(ajv, ['date', 'uuid', 'date-time']);

const validateInput = ajv.compile<TerminationRequestInput>(terminationRequestInputSchema);
const validateUuid = ajv.compile<string>(uuidSchema);
const validateTerminationRequest = ajv.compile<TerminationRequest>(terminationRequestSchema);

export function isUuid(value: unknown): value is string {
  return validateUuid(value);
}

export function isTerminationRequest(value: unknown): value is TerminationRequest {
  return validateTerminationRequest(value);
}

/** `/bankDetails/bik` -> `bankDetails.bik`, `/documentIds/3` -> `documentIds[3]`: the path as the client wrote it. */
function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath === '' ? [] : instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  return segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path ? `${path}.${s}` : s), '');
}

const FIELD_REASONS: Record<string, (texts: Texts) => string> = {
  desiredTerminationDate: (t) => t.reason.date,
  'bankDetails.bik': (t) => t.reason.digits(9),
  'bankDetails.accountNumber': (t) => t.reason.digits(20),
  'bankDetails.recipientName': (t) => t.reason.recipientName,
};

function detailOf(error: ErrorObject, texts: Texts): ErrorDetail {
  const r = texts.reason;
  const params: Record<string, unknown> = error.params;
  const field = fieldPath(error.instancePath);
  switch (error.keyword) {
    case 'required':
      return { field: fieldPath(error.instancePath, String(params['missingProperty'])), reason: r.required };
    case 'additionalProperties': {
      const name = String(params['additionalProperty']);
      return { field: fieldPath(error.instancePath, name), reason: name === 'customerId' ? r.customerIdForbidden : r.unknownField };
    }
    case 'type': {
      const expected = params['type'];
      const reason = expected === 'object' ? r.mustBeObject : expected === 'array' ? r.mustBeArray : expected === 'string' ? r.mustBeString : r.invalid;
      return { field, reason: field.startsWith('documentIds[') ? r.mustBeUuid : reason };
    }
    case 'enum':
      return { field, reason: r.notInDictionary(REASON_CODES) };
    case 'format':
      return { field, reason: params['format'] === 'uuid' ? r.mustBeUuid : (FIELD_REASONS[field]?.(texts) ?? r.invalid) };
    case 'maxItems':
      return { field, reason: r.maxItems(Number(params['limit'])) };
    case 'uniqueItems':
      return { field: `${field}[${String(params['i'])}]`, reason: r.duplicate };
    case 'maxLength':
      return { field, reason: FIELD_REASONS[field]?.(texts) ?? r.maxLength(Number(params['limit'])) };
    default:
      return { field, reason: FIELD_REASONS[field]?.(texts) ?? r.invalid };
  }
}

/** Every path at which a `customerId` key appears, at any depth (D7: it must never be sent). */
function customerIdPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => customerIdPaths(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const childPath = path ? `${path}.${key}` : key;
    return [...(key === 'customerId' ? [childPath] : []), ...customerIdPaths(child, childPath)];
  });
}

export type InputValidation = { ok: true; input: TerminationRequestInput } | { ok: false; details: ErrorDetail[] };

/** Strict structural validation of the body (D7), listing every problem, one per field. */
export function validateTerminationInput(body: unknown, texts: Texts): InputValidation {
  if (validateInput(body)) return { ok: true, input: body };
  const byField = new Map<string, ErrorDetail>();
  for (const path of customerIdPaths(body)) byField.set(path, { field: path, reason: texts.reason.customerIdForbidden });
  for (const error of validateInput.errors ?? []) {
    const detail = detailOf(error, texts);
    if (!byField.has(detail.field)) byField.set(detail.field, detail);
  }
  return { ok: false, details: [...byField.values()] };
}
