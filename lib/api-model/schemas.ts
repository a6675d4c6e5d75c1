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

/** A request's statuses (docs/decisions/0017-lifecycle.md); transitions are in lib/termination/lifecycle.ts. */
export const STATUSES = ['SUBMITTED', 'IN_REVIEW', 'APPROVED', 'COMPLETED', 'REJECTED', 'WITHDRAWN'] as const;

export type Status = (typeof STATUSES)[number];

/** Whether a value is one of the statuses: what a reader of stored data checks before handing a status on. */
export function isStatus(value: unknown): value is Status {
  return STATUSES.some((status) => status === value);
}

/** Every request starts here: the service sets it when it creates one. */
export const STATUS_SUBMITTED = 'SUBMITTED' satisfies Status;

/** The customer's own move: a withdrawal (docs/decisions/0018-withdrawal.md). Every other move is the back office's. */
export const STATUS_WITHDRAWN = 'WITHDRAWN' satisfies Status;

export const uuid = { type: 'string', format: 'uuid' } as const;

/**
 * Marks a field that identifies a customer or holds what a person wrote: docs/data-protection.md
 * says, from these marks, where each such field goes, for how long and under which key.
 */
export const PERSONAL = { 'x-personal-data': true } as const;

/** The character rule of formats.ts, in words for the API description. */
export const NO_HIDDEN_TEXT =
  'No control or format characters (zero-width, bidi overrides), line or paragraph separators, private-use characters, unpaired surrogates or other default-ignorable characters; variation selectors are allowed.';

/** How many digits a BIK has, and an account number: their patterns below are made of these. */
export const BIK_DIGITS = 9;
export const ACCOUNT_DIGITS = 20;

export const terminationRequestInputSchema = {
  $id: 'TerminationRequestInput',
  type: 'object',
  additionalProperties: false,
  required: ['reasonCode', 'desiredTerminationDate', 'bankDetails'],
  properties: {
    // What the customer asks for and why: personal data of the customer, as the rest of the body.
    reasonCode: { type: 'string', enum: REASON_CODES, ...PERSONAL },
    desiredTerminationDate: { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', ...PERSONAL },
    bankDetails: {
      type: 'object',
      additionalProperties: false,
      required: ['bik', 'accountNumber', 'recipientName'],
      properties: {
        bik: { type: 'string', pattern: `^[0-9]{${BIK_DIGITS}}$` },
        accountNumber: { type: 'string', pattern: `^[0-9]{${ACCOUNT_DIGITS}}$`, ...PERSONAL },
        recipientName: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          format: 'recipient-name',
          description: `1 to 255 characters (code points) with at least one letter. ${NO_HIDDEN_TEXT}`,
          ...PERSONAL,
        },
      },
    },
    comment: {
      type: 'string',
      maxLength: 1000,
      format: 'customer-text',
      description: `Up to 1000 characters (code points); line breaks are allowed. ${NO_HIDDEN_TEXT} For reasonCode OTHER it must hold a letter or a digit.`,
      ...PERSONAL,
    },
    documentIds: {
      type: 'array',
      maxItems: 10,
      uniqueItems: true,
      items: uuid,
      description:
        "Ids of the customer's own documents, uploaded to the bank's documents service and usable when the request is made: a create refuses any other with 422 DOCUMENT_NOT_AVAILABLE, and a repeat, compared ignoring case, with 400 VALIDATION_ERROR.",
      ...PERSONAL,
    },
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
    // Described in the API description from the lifecycle's own lists (scripts/openapi.ts).
    status: { type: 'string', enum: STATUSES },
    createdAt: { type: 'string', format: 'date-time' },
    message: {
      type: 'string',
      description: 'For the customer, in their language: what the current status means. Plain text: render it as text, never as HTML.',
    },
    statusReason: {
      type: 'string',
      maxLength: 1000,
      description:
        "The back office's explanation of the current status, for the customer, as the back office wrote it. Plain text of at most 1000 characters, possibly with line breaks, never markup: render it as text, never as HTML.",
      ...PERSONAL,
    },
  },
} as const;

export type TerminationRequest = FromSchema<typeof terminationRequestSchema>;

/** The reasons a customer may give (GET /api/v1/termination-reasons): every reasonCode the create takes, labelled. */
export const terminationReasonListSchema = {
  $id: 'TerminationReasonList',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['reasonCode', 'label', 'commentRequired'],
        properties: {
          reasonCode: { type: 'string', enum: REASON_CODES },
          label: { type: 'string', description: "In the caller's language (Accept-Language: en or ru)." },
          commentRequired: { type: 'boolean', description: 'Whether a create with this reason needs a comment (COMMENT_REQUIRED).' },
        },
      },
    },
  },
} as const;

export type TerminationReasonList = FromSchema<typeof terminationReasonListSchema>;

/** The answer to a withdrawal (docs/decisions/0018-withdrawal.md); a replay answers the same bytes. */
export const withdrawalSchema = {
  $id: 'Withdrawal',
  type: 'object',
  additionalProperties: false,
  required: ['requestId', 'status', 'withdrawnAt', 'message'],
  properties: {
    requestId: uuid,
    status: { type: 'string', const: STATUS_WITHDRAWN },
    withdrawnAt: { type: 'string', format: 'date-time' },
    message: { type: 'string', description: 'For the customer, in the language of the first call. Plain text.' },
  },
} as const;

export type Withdrawal = FromSchema<typeof withdrawalSchema>;

/** A page of a contract's requests, newest first; nextCursor fetches the next page. */
export const terminationRequestListSchema = {
  $id: 'TerminationRequestList',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: { type: 'array', items: { $ref: 'TerminationRequest' } },
    nextCursor: { type: 'string', minLength: 1 },
    // While the caller's limit of requests on the contract holds: from when a new one is possible (0020-request-limit.md).
    nextRequestAllowedAt: { type: 'string', format: 'date-time' },
  },
} as const;

/**
 * A request as its owner may see all of it (docs/decisions/0022-what-a-customer-sees-of-a-request.md):
 * the answer of a GET, what they submitted with the account number cut to its last 4 digits,
 * and each status it reached, in order.
 */
export const terminationRequestDetailsSchema = {
  $id: 'TerminationRequestDetails',
  type: 'object',
  additionalProperties: false,
  required: ['request', 'submitted', 'timeline'],
  properties: {
    request: { $ref: 'TerminationRequest' },
    submitted: {
      type: 'object',
      additionalProperties: false,
      description: 'What the customer sent when they made the request. The full account number is never shown again.',
      required: ['reasonCode', 'desiredTerminationDate', 'bankDetails'],
      properties: {
        reasonCode: terminationRequestInputSchema.properties.reasonCode,
        desiredTerminationDate: terminationRequestInputSchema.properties.desiredTerminationDate,
        bankDetails: {
          type: 'object',
          additionalProperties: false,
          required: ['bik', 'accountNumberLast4', 'recipientName'],
          properties: {
            bik: terminationRequestInputSchema.properties.bankDetails.properties.bik,
            accountNumberLast4: {
              type: 'string',
              pattern: '^[0-9]{4}$',
              description: 'The last 4 digits of the account the refund goes to.',
              ...PERSONAL,
            },
            recipientName: { type: 'string', maxLength: 255, description: 'As the customer wrote it. Plain text.', ...PERSONAL },
          },
        },
        comment: { type: 'string', maxLength: 1000, description: 'As the customer wrote it. Plain text.', ...PERSONAL },
        documentIds: { type: 'array', maxItems: 10, items: uuid, ...PERSONAL },
      },
    },
    timeline: {
      type: 'array',
      minItems: 1,
      // A request reaches each status at most once (lib/termination/lifecycle.ts).
      maxItems: STATUSES.length,
      description: 'Each status the request reached, oldest first: SUBMITTED at its creation, then every move since.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'at'],
        properties: {
          status: { type: 'string', enum: STATUSES },
          at: {
            type: 'string',
            format: 'date-time',
            description: "When it reached the status: its creation, the bank's decision, or the withdrawal.",
          },
          reason: {
            type: 'string',
            maxLength: 1000,
            description: "The bank's words on this status, where it gave some. Plain text: render it as text, never as HTML.",
            ...PERSONAL,
          },
        },
      },
    },
  },
} as const;

export type TerminationRequestDetails = FromSchema<
  typeof terminationRequestDetailsSchema,
  { references: [typeof terminationRequestSchema] }
>;

/**
 * A page of the caller's requests on every contract, newest first
 * (docs/decisions/0023-a-customers-requests-by-index.md): each a GET's answer with the contract it is on.
 */
export const customerTerminationRequestListSchema = {
  $id: 'CustomerTerminationRequestList',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['contractId', 'request'],
        properties: { contractId: uuid, request: { $ref: 'TerminationRequest' } },
      },
    },
    nextCursor: { type: 'string', minLength: 1 },
  },
} as const;

/** Every error answer (named ErrorBody, not Error: generated code must not shadow the language's own Error). */
export const errorBodySchema = {
  $id: 'ErrorBody',
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
    nextRequestAllowedAt: {
      type: 'string',
      format: 'date-time',
      description:
        'REQUEST_LIMIT_REACHED only: the time (UTC) from which the customer may make a new request on this contract. Not a retry hint: the same call is refused until then.',
    },
  },
} as const;

export type ErrorBody = FromSchema<typeof errorBodySchema>;
export type ErrorDetail = ErrorBody['details'][number];

/** Header and path values that must be UUIDs (any case; docs/decisions/0007-contracts.md). */
export const uuidSchema = { $id: 'Uuid', ...uuid } as const;
