import type { ErrorObject } from 'ajv';
import {
  validateErasedDetail,
  validateInput,
  validateStatusChangedDetail,
  validateStatusDecision,
  validateStreamRedrive,
  validateSubmittedDetail,
  validateTerminationRequest,
  validateUuid,
  validateWithdrawal,
} from './compiled-validators';
import type { ErasedDetail, StatusChangedDetail, StatusDecisionDetail, SubmittedDetail } from './event-schemas';
import type { StreamRedrive } from './operator-commands';
import type { Problem } from './problems';
import {
  ACCOUNT_DIGITS,
  BIK_DIGITS,
  REASON_CODES,
  type TerminationRequest,
  type TerminationRequestInput,
  type Withdrawal,
} from './schemas';

export function isUuid(value: unknown): value is string {
  return validateUuid(value);
}

export function isTerminationRequest(value: unknown): value is TerminationRequest {
  return validateTerminationRequest(value);
}

export function isWithdrawal(value: unknown): value is Withdrawal {
  return validateWithdrawal(value);
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

/** Fields whose every format or length problem is told by one rule of the field. */
const FIELD_RULES: Record<string, (field: string) => Problem> = {
  desiredTerminationDate: (field) => ({ field, code: 'date' }),
  'bankDetails.bik': (field) => ({ field, code: 'digits', limit: BIK_DIGITS }),
  'bankDetails.accountNumber': (field) => ({ field, code: 'digits', limit: ACCOUNT_DIGITS }),
  'bankDetails.recipientName': (field) => ({ field, code: 'recipientName' }),
};

function problemOf(error: ErrorObject): Problem {
  const params: Record<string, unknown> = error.params;
  const field = fieldPath(error.instancePath);
  const fieldRule = FIELD_RULES[field]?.(field);
  switch (error.keyword) {
    case 'required':
      return { field: fieldPath(error.instancePath, String(params['missingProperty'])), code: 'required' };
    case 'additionalProperties': {
      const name = String(params['additionalProperty']);
      return { field: fieldPath(error.instancePath, name), code: name === 'customerId' ? 'customerIdForbidden' : 'unknownField' };
    }
    case 'type': {
      if (field.startsWith('documentIds[')) return { field, code: 'mustBeUuid' };
      const expected = params['type'];
      return {
        field,
        code:
          expected === 'object'
            ? 'mustBeObject'
            : expected === 'array'
              ? 'mustBeArray'
              : expected === 'string'
                ? 'mustBeString'
                : 'invalid',
      };
    }
    case 'enum':
      return { field, code: 'notInDictionary', allowed: REASON_CODES };
    case 'format':
      if (params['format'] === 'uuid') return { field, code: 'mustBeUuid' };
      if (params['format'] === 'customer-text') return { field, code: 'commentText' };
      return fieldRule ?? { field, code: 'invalid' };
    case 'maxItems':
      return { field, code: 'maxItems', limit: Number(params['limit']) };
    case 'maxLength':
      return fieldRule ?? { field, code: 'maxLength', limit: Number(params['limit']) };
    default:
      return fieldRule ?? { field, code: 'invalid' };
  }
}

/** Deeper than any valid body nests (3); a customerId below it is refused as part of its parent anyway. */
const MAX_SCAN_DEPTH = 8;

/**
 * Every path at which a `customerId` key appears (it must never be sent). Iterative and
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

export type InputValidation = { ok: true; input: TerminationRequestInput } | { ok: false; problems: Problem[] };

/** Strict structural validation of the body, listing every problem, one per field. */
export function validateTerminationInput(body: unknown): InputValidation {
  const duplicates = duplicateDocumentIds(body);
  if (validateInput(body) && duplicates.length === 0) return { ok: true, input: body };
  const byField = new Map<string, Problem>();
  for (const path of customerIdPaths(body)) byField.set(path, { field: path, code: 'customerIdForbidden' });
  // Ajv's uniqueItems names one pair only (and not case-insensitively): every repeat is listed here instead.
  for (const i of duplicates) byField.set(`documentIds[${i}]`, { field: `documentIds[${i}]`, code: 'duplicate' });
  for (const error of validateInput.errors ?? []) {
    if (error.keyword === 'uniqueItems') continue;
    const problem = problemOf(error);
    if (!byField.has(problem.field)) byField.set(problem.field, problem);
  }
  return { ok: false, problems: [...byField.values()] };
}

export type DecisionValidation = { ok: true; detail: StatusDecisionDetail } | { ok: false; problems: string[] };

/** Each error as `field: what is wrong`, for the log and the dead-letter queue (no values echoed). */
function problemsOf(errors: ErrorObject[] | null | undefined, root: string): string[] {
  return (errors ?? []).map((error) => {
    const at =
      error.keyword === 'required' ? fieldPath(error.instancePath, String(error.params['missingProperty'])) : fieldPath(error.instancePath);
    return `${at || root}: ${error.keyword === 'required' ? 'is required' : (error.message ?? 'is not valid')}`;
  });
}

/** The back office's decision, or what is wrong with it, for the log and the dead-letter queue (no values echoed). */
export function validateStatusDecisionDetail(detail: unknown): DecisionValidation {
  if (validateStatusDecision(detail)) return { ok: true, detail };
  return { ok: false, problems: problemsOf(validateStatusDecision.errors, 'detail') };
}

/** An operator's redrive of a stream batch (lib/api-model/operator-commands.ts), or what is wrong with it. */
export function validateStreamRedriveCommand(command: unknown): { ok: true; command: StreamRedrive } | { ok: false; problems: string[] } {
  if (validateStreamRedrive(command)) return { ok: true, command };
  return { ok: false, problems: problemsOf(validateStreamRedrive.errors, 'command') };
}

export function isSubmittedDetail(value: unknown): value is SubmittedDetail {
  return validateSubmittedDetail(value);
}

export function isStatusChangedDetail(value: unknown): value is StatusChangedDetail {
  return validateStatusChangedDetail(value);
}

export function isErasedDetail(value: unknown): value is ErasedDetail {
  return validateErasedDetail(value);
}
