import type { FromSchema } from 'json-schema-to-ts';
import {
  NO_HIDDEN_TEXT,
  REASON_CODES,
  STATUS_SUBMITTED,
  STATUS_WITHDRAWN,
  STATUSES,
  terminationRequestInputSchema,
  uuid,
  type Status,
} from './schemas';

/*
 * The JSON Schemas of the events (docs/events.md): the decision the back office sends in, and
 * the three events the service publishes. The consumer and the publisher validate with these, and
 * docs/events.md is generated from them. `x-personal-data: true` marks a field that identifies a
 * customer or holds what they wrote: such a field never reaches a log.
 */

type DecisionStatus = Exclude<Status, typeof STATUS_SUBMITTED | typeof STATUS_WITHDRAWN>;

/** The statuses the back office may set: every one but the service's own start and the customer's withdrawal. */
export const DECISION_STATUSES: readonly DecisionStatus[] = STATUSES.filter(
  (status): status is DecisionStatus => status !== STATUS_SUBMITTED && status !== STATUS_WITHDRAWN,
);

export const EVENT_TYPES = {
  submitted: 'TerminationRequestSubmitted',
  statusChanged: 'TerminationRequestStatusChanged',
  erased: 'TerminationRequestErased',
} as const;

const status = { type: 'string', enum: STATUSES } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;
const personal = { 'x-personal-data': true } as const;

/**
 * Said in the description of every field whose text a person or another system chose: the
 * service accepts and passes it on as written (a customer may write `=` or `<`), so whoever shows
 * it escapes it. docs/events.md lists the fields that say it.
 */
export const ESCAPE_ON_OUTPUT =
  'Plain text, passed on as written, never escaped or stripped: escape it wherever it is shown, for HTML (&, <, >, quotes), and in a spreadsheet or CSV cell so that a leading =, +, -, @ or line break does not make it a formula (put an apostrophe before it).';

/** A field's own description, then ESCAPE_ON_OUTPUT. */
const escaped = (description: string) => `${description} ${ESCAPE_ON_OUTPUT}`;

/** Text for the customer from the back office: the comment's character rules, and never markup. */
const reasonText = {
  type: 'string',
  minLength: 1,
  maxLength: 1000,
  format: 'plain-text',
  description: escaped(
    `The back office's explanation for the customer, shown with the status. Plain text, never HTML: clients render it as text, and a \`<\` followed by a letter, \`/\`, \`!\` or \`?\` is refused. Up to 1000 characters (code points); line breaks are allowed. ${NO_HIDDEN_TEXT}`,
  ),
  ...personal,
} as const;

/**
 * What every event of this service says of the request it is about: ids only. The customer is
 * named once, in the request's Submitted event; a status change names the request, which the
 * back office already knows (docs/events.md, *Changes to these events*).
 */
const requestIdentity = {
  eventId: { ...uuid, description: 'Stable: the same for every delivery of this event. Drop a repeated one.' },
  requestId: uuid,
  contractId: uuid,
  requestNumber: { type: 'string', maxLength: 20 },
} as const;

const customerId = {
  type: 'string',
  minLength: 1,
  description: escaped("The customer, as the bank's identity provider names them in the token."),
  ...personal,
} as const;

/** A compact JWS (RFC 7515): three base64url parts, the last the signature. */
export const COMPACT_JWS = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';

/**
 * The detail of the back office's `TerminationRequestStatusChanged`. contractId is required
 * as well as requestId: the request is stored under its contract, so a decision is applied in
 * one write (docs/decisions/0017-lifecycle.md). Unknown fields are ignored (a newer back office
 * may add some).
 */
export const statusDecisionSchema = {
  $id: 'StatusDecision',
  type: 'object',
  required: ['eventId', 'requestId', 'contractId', 'status', 'occurredAt', 'signature'],
  properties: {
    eventId: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9._:/-]+$',
      description: escaped("The back office's id of this decision; the same decision sent again carries the same id."),
    },
    requestId: uuid,
    contractId: uuid,
    status: { type: 'string', enum: DECISION_STATUSES },
    reason: reasonText,
    occurredAt: { ...timestamp, description: 'When the back office decided.' },
    signature: {
      type: 'string',
      pattern: COMPACT_JWS,
      description:
        "The back office's signature over every other field: a compact JWS whose claims repeat them exactly (docs/events.md, Signing a decision). It carries the reason too, encoded, not encrypted.",
      ...personal,
    },
  },
} as const;

/**
 * The fields a decision's signature covers: every field of the detail but the signature, each of
 * which its claims must repeat exactly (docs/decisions/0017-lifecycle.md).
 */
export const DECISION_SIGNED_FIELDS = [
  'eventId',
  'requestId',
  'contractId',
  'status',
  'reason',
  'occurredAt',
] as const satisfies readonly Exclude<keyof typeof statusDecisionSchema.properties, 'signature'>[];

export type StatusDecisionDetail = FromSchema<typeof statusDecisionSchema>;

const input = terminationRequestInputSchema.properties;

/** Published once per created request: what the back office needs to act on it. */
export const submittedEventSchema = {
  $id: 'TerminationRequestSubmitted',
  type: 'object',
  additionalProperties: false,
  required: [
    'eventId',
    'requestId',
    'contractId',
    'customerId',
    'requestNumber',
    'status',
    'reasonCode',
    'desiredTerminationDate',
    'bankDetails',
    'createdAt',
  ],
  properties: {
    ...requestIdentity,
    customerId,
    status: { type: 'string', const: STATUS_SUBMITTED },
    reasonCode: { type: 'string', enum: REASON_CODES, ...personal },
    desiredTerminationDate: input.desiredTerminationDate,
    bankDetails: {
      ...input.bankDetails,
      properties: {
        bik: input.bankDetails.properties.bik,
        accountNumber: { ...input.bankDetails.properties.accountNumber, ...personal },
        recipientName: {
          ...input.bankDetails.properties.recipientName,
          description: escaped(input.bankDetails.properties.recipientName.description),
          ...personal,
        },
      },
    },
    comment: {
      ...input.comment,
      description: escaped(
        `${input.comment.description} Free text: whatever the customer chose to write, which may include special categories of personal data (health, family circumstances; 152-FZ art. 10) although the page asks them not to. Keep it only where the request is kept, and never copy it into a system or a report that does not need it.`,
      ),
      ...personal,
    },
    documentIds: input.documentIds,
    createdAt: timestamp,
  },
} as const;

export type SubmittedDetail = FromSchema<typeof submittedEventSchema>;

/** Published once per applied status change. */
export const statusChangedEventSchema = {
  $id: 'TerminationRequestStatusChanged',
  type: 'object',
  additionalProperties: false,
  required: ['eventId', 'requestId', 'contractId', 'requestNumber', 'previousStatus', 'status', 'changedAt', 'changedBy'],
  properties: {
    ...requestIdentity,
    previousStatus: status,
    status,
    reason: reasonText,
    changedAt: { ...timestamp, description: 'When the back office decided (its occurredAt), or when the customer withdrew the request.' },
    changedBy: {
      type: 'string',
      enum: ['BACK_OFFICE', 'CUSTOMER'],
      description: 'Who moved the request: the back office by a decision, or the customer by withdrawing it (status WITHDRAWN).',
    },
    decisionEventId: {
      ...statusDecisionSchema.properties.eventId,
      description: escaped("The back office's eventId of the decision applied; absent when the customer withdrew the request."),
    },
  },
} as const;

export type StatusChangedDetail = FromSchema<typeof statusChangedEventSchema>;

/**
 * Published once per request an operator erased at the customer's request
 * (docs/decisions/0025-erasure.md), from the erasure ledger: ids and a time only. It names no
 * customer: the back office knows whose request it was from its Submitted event, and erases its
 * own copy by the request's id.
 */
export const erasedEventSchema = {
  $id: 'TerminationRequestErased',
  type: 'object',
  additionalProperties: false,
  required: ['eventId', 'requestId', 'contractId', 'erasedAt'],
  properties: {
    ...requestIdentity,
    requestNumber: {
      ...requestIdentity.requestNumber,
      description: "The erased request's number, when the erasure ledger holds it (every erasure since the ledger recorded numbers).",
    },
    erasedAt: {
      ...timestamp,
      description:
        'When the service erased the request and everything that named it (its number, its key records). It holds nothing of the request any more: erase your copy, as the data-protection officer who ordered it expects.',
    },
  },
} as const;

export type ErasedDetail = FromSchema<typeof erasedEventSchema>;

/**
 * The service's signature on each event it publishes (lib/events/event-signature.ts): a compact
 * JWS, ES256, whose claims name the event's source and detail-type and the SHA-256 of the
 * detail's canonical form (RFC 8785) without this field. It repeats no field, so it carries no
 * personal data.
 */
export const eventSignatureSchema = {
  type: 'string',
  pattern: COMPACT_JWS,
  maxLength: 1024,
  description:
    "The service's signature on this event: a compact JWS (ES256) by the stage's signing key, named by `kid`, over the claims `iss` (the event's source), `iat`, `detailType` (the event's detail-type) and `detailSha256` (the base64url SHA-256 of this detail's RFC 8785 canonical form, this field left out). Verify it before acting on the event (docs/events.md, Verifying an event). A republished event has the same eventId and a new signature.",
} as const;

/** A published event's detail as it goes out: its fields and the signature, which is always there. */
function signed<Schema extends { required: readonly string[]; properties: object }>(schema: Schema) {
  return {
    ...schema,
    required: [...schema.required, 'signature'],
    properties: { ...schema.properties, signature: eventSignatureSchema },
  } as const;
}

/** The details the service publishes, signed, by detail-type: what the back office receives and docs/asyncapi.yaml describes. */
export const PUBLISHED_EVENT_SCHEMAS = {
  [EVENT_TYPES.submitted]: signed(submittedEventSchema),
  [EVENT_TYPES.statusChanged]: signed(statusChangedEventSchema),
  [EVENT_TYPES.erased]: signed(erasedEventSchema),
} as const;
