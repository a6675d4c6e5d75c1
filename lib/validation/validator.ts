import type { ErrorObject } from 'ajv';
import { REASON_CODES } from '../termination/reasons';
import type { Texts } from '../http/texts';
import { validateInput, validateTerminationRequest, validateUuid } from './compiled-validators';
import type { ErrorDetail, TerminationRequest, TerminationRequestInput } from './schemas';

export function isUuid(value: unknown): value is string {
  return validateUuid(value);
}

export function isTerminationRequest(value: unknown): value is TerminationRequest {
  return validateTerminationRequest(value);
}

const joinField = (path: string, name: string) => (path ? `${path}.${name}` : name);

/**
 * `/bankDetails/bik` -> `bankDetails.bik`, `/documentIds/3` -> `documentIds[3]`: the path as the
 * client wrote it. In this schema only arrays have numeric segments; a property name (`child`)
 * is always a name, even when it is all digits.
 */
function fieldPath(instancePath: string, child?: string): string {
  const segments =
    instancePath === ''
      ? []
      : instancePath
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path = segments.reduce((p, s) => (/^\d+$/.test(s) ? `${p}[${s}]` : joinField(p, s)), '');
  return child === undefined ? path : joinField(path, child);
}

/** Every documentIds item that repeats an earlier one; UUIDs compare case-insensitively. */
function duplicateDocumentIds(body: unknown): number[] {
  const ids = body !== null && typeof body === 'object' && 'documentIds' in body ? body.documentIds : undefined;
  if (!Array.isArray(ids)) return [];
  const seen = new Set<string>();
  const repeats: number[] = [];
  ids.forEach((id: unknown, i) => {
    if (typeof id !== 'string') return;
    const normal = id.toLowerCase();
    if (seen.has(normal)) repeats.push(i);
    seen.add(normal);
  });
  return repeats;
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
      const reason =
        expected === 'object' ? r.mustBeObject : expected === 'array' ? r.mustBeArray : expected === 'string' ? r.mustBeString : r.invalid;
      return { field, reason: field.startsWith('documentIds[') ? r.mustBeUuid : reason };
    }
    case 'enum':
      return { field, reason: r.notInDictionary(REASON_CODES) };
    case 'format':
      return { field, reason: params['format'] === 'uuid' ? r.mustBeUuid : (FIELD_REASONS[field]?.(texts) ?? r.invalid) };
    case 'maxItems':
      return { field, reason: r.maxItems(Number(params['limit'])) };
    case 'maxLength':
      return { field, reason: FIELD_REASONS[field]?.(texts) ?? r.maxLength(Number(params['limit'])) };
    default:
      return { field, reason: FIELD_REASONS[field]?.(texts) ?? r.invalid };
  }
}

/** Deeper than any valid body nests (3); a customerId below it is refused as part of its parent anyway. */
const MAX_SCAN_DEPTH = 8;

/**
 * Every path at which a `customerId` key appears (D7: it must never be sent). Iterative and
 * depth-capped: a 16 KiB body can nest thousands of levels, and recursion would overflow.
 */
function customerIdPaths(body: unknown): string[] {
  const found: string[] = [];
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (depth > MAX_SCAN_DEPTH || value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item: unknown, i) => pending.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = joinField(path, key);
      if (key === 'customerId') found.push(childPath);
      pending.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return found.sort();
}

export type InputValidation = { ok: true; input: TerminationRequestInput } | { ok: false; details: ErrorDetail[] };

/** Strict structural validation of the body (D7), listing every problem, one per field. */
export function validateTerminationInput(body: unknown, texts: Texts): InputValidation {
  const duplicates = duplicateDocumentIds(body);
  if (validateInput(body) && duplicates.length === 0) return { ok: true, input: body };
  const byField = new Map<string, ErrorDetail>();
  for (const path of customerIdPaths(body)) byField.set(path, { field: path, reason: texts.reason.customerIdForbidden });
  // Ajv's uniqueItems names one pair only (and not case-insensitively): every repeat is listed here instead.
  for (const i of duplicates) byField.set(`documentIds[${i}]`, { field: `documentIds[${i}]`, reason: texts.reason.duplicate });
  for (const error of validateInput.errors ?? []) {
    if (error.keyword === 'uniqueItems') continue;
    const detail = detailOf(error, texts);
    if (!byField.has(detail.field)) byField.set(detail.field, detail);
  }
  return { ok: false, details: [...byField.values()] };
}
