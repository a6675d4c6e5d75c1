import type { FromSchema } from 'json-schema-to-ts';

/*
 * The JSON Schemas of the API: the validator compiles these and the API description publishes
 * them. TypeScript types below are derived from them, never written by hand.
 */

/** The reasons dictionary: the only place the allowed reasonCode values are listed. */
export const REASON_CODES = [
  'RELOCATION',
  'FINANCIAL_HARDSHIP',
  'SERVICE_DISSATISFACTION',
  'BETTER_OFFER_ELSEWHERE',
  'NO_LONGER_NEEDED',
  'OTHER',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

const uuid = { type: 'string', format: 'uuid' } as const;

/*
 * Characters a person's text may not hold (docs/decisions/0009-input-validation.md): control and
 * format characters (zero-width, bidi overrides), line and paragraph separators, private-use
 * code points, unpaired surrogates, and whatever Unicode says to render as nothing (e.g. U+3164).
 * Lengths count code points (Ajv's maxLength does).
 */
const NO_HIDDEN = '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cs}\\p{Default_Ignorable_Code_Point}';
/** Variation selectors are default-ignorable too, but harmless: they only pick an emoji's look. */
const VARIATION_SELECTORS = '\\uFE00-\\uFE0F';
/** At least one letter, nothing hidden. */
export const RECIPIENT_NAME_PATTERN = `^(?=.*\\p{L})(?:[${VARIATION_SELECTORS}]|[^${NO_HIDDEN}])*$`;
/** Nothing hidden, but line breaks are allowed. */
export const COMMENT_PATTERN = `^(?:[\\n\\r\\u2028\\u2029${VARIATION_SELECTORS}]|[^${NO_HIDDEN}])*$`;

export const terminationRequestInputSchema = {
  $id: 'TerminationRequestInput',
  type: 'object',
  additionalProperties: false,
  required: ['reasonCode', 'desiredTerminationDate', 'bankDetails'],
  properties: {
    reasonCode: { type: 'string', enum: REASON_CODES },
    desiredTerminationDate: { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
    bankDetails: {
      type: 'object',
      additionalProperties: false,
      required: ['bik', 'accountNumber', 'recipientName'],
      properties: {
        bik: { type: 'string', pattern: '^[0-9]{9}$' },
        accountNumber: { type: 'string', pattern: '^[0-9]{20}$' },
        recipientName: { type: 'string', minLength: 1, maxLength: 255, pattern: RECIPIENT_NAME_PATTERN },
      },
    },
    comment: { type: 'string', maxLength: 1000, pattern: COMMENT_PATTERN },
    documentIds: { type: 'array', maxItems: 10, uniqueItems: true, items: uuid },
  },
} as const;

export type TerminationRequestInput = FromSchema<typeof terminationRequestInputSchema>;

export const terminationRequestSchema = {
  $id: 'TerminationRequest',
  type: 'object',
  additionalProperties: false,
  required: ['requestId', 'requestNumber', 'status', 'createdAt', 'message'],
  properties: {
    requestId: uuid,
    requestNumber: { type: 'string', maxLength: 20 },
    status: { type: 'string', enum: ['SUBMITTED'] },
    createdAt: { type: 'string', format: 'date-time' },
    message: { type: 'string' },
  },
} as const;

export type TerminationRequest = FromSchema<typeof terminationRequestSchema>;

/** A page of a contract's requests, newest first; nextCursor fetches the next page. */
export const terminationRequestListSchema = {
  $id: 'TerminationRequestList',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: { type: 'array', items: { $ref: 'TerminationRequest' } },
    nextCursor: { type: 'string', minLength: 1 },
  },
} as const;

export const errorBodySchema = {
  $id: 'Error',
  type: 'object',
  additionalProperties: false,
  required: ['errorCode', 'message', 'correlationId', 'details'],
  properties: {
    errorCode: { type: 'string' },
    message: { type: 'string' },
    correlationId: { type: 'string' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'reason'],
        properties: { field: { type: 'string' }, reason: { type: 'string' } },
      },
    },
  },
} as const;

export type ErrorBody = FromSchema<typeof errorBodySchema>;
export type ErrorDetail = ErrorBody['details'][number];

/** Header and path values that must be UUIDs (any case; docs/decisions/0007-contracts.md). */
export const uuidSchema = { $id: 'Uuid', ...uuid } as const;
