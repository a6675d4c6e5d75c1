import { LOCAL_ACCOUNT_ID } from './template-patterns';
import type { EventBridgeEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { DECISION_SIGNED_FIELDS, type StatusDecisionDetail } from '../../lib/api-model/event-schemas';
import backOfficeTestKey from './back-office-test-key.json' with { type: 'json' };
import { signingKeyFromPem, signJwt, type SigningKey } from './signing-key';

export const LOCAL_DECISION_SOURCE = 'bank.back-office';
export const DECISION_DETAIL_TYPE = 'TerminationRequestStatusChanged';

/**
 * The back office's signing key of the tests and the local stack (back-office-test-key.json):
 * committed, so that the samples of events/ carry signatures that verify and npm run backoffice
 * signs as the back office does. No deployed stage trusts it: tests/deploy/template.test.ts.
 */
export const LOCAL_BACK_OFFICE_KEY: SigningKey = signingKeyFromPem(backOfficeTestKey.kid, backOfficeTestKey.privateKeyPem);

/** Where the local stack's JWKS server publishes the local back office's public key (jwks-server.ts). */
export const BACK_OFFICE_JWKS_PATH = '/.well-known/back-office-jwks.json';

/** How a decision is signed: as docs/events.md tells the back office, unless a test says otherwise. */
export interface SignatureOptions {
  key?: SigningKey;
  /** When it was signed (iat): now unless told otherwise, e.g. a dead letter kept for days. */
  issuedAt?: Date;
  /** Claims to add or replace; an undefined value leaves the claim out. */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

/** The fields a signature covers, as a decision's detail carries them. */
export type SignedFields = Pick<StatusDecisionDetail, (typeof DECISION_SIGNED_FIELDS)[number]>;

/**
 * The back office's signature over a decision (docs/events.md, Signing a decision): a compact
 * JWS, RS256, whose claims are iss (the decisions' source), iat and every signed field of the
 * detail exactly as sent.
 */
export function signDecision(fields: SignedFields, options: SignatureOptions = {}, source = LOCAL_DECISION_SOURCE): string {
  return signatureOver(fields, options, source);
}

/** The same signature over whatever a detail's fields hold: a malformed detail too, so that a test's or a sample's is refused for what it says. */
export function signatureOver(
  fields: Readonly<Record<string, unknown>>,
  options: SignatureOptions = {},
  source = LOCAL_DECISION_SOURCE,
): string {
  const key = options.key ?? LOCAL_BACK_OFFICE_KEY;
  const claims: Record<string, unknown> = { iss: source, iat: Math.floor((options.issuedAt ?? new Date()).getTime() / 1000) };
  for (const field of DECISION_SIGNED_FIELDS) claims[field] = fields[field];
  return signJwt(key, { alg: 'RS256', typ: 'JWT', kid: key.kid, ...options.header }, { ...claims, ...options.claims });
}

export interface DecisionOptions {
  requestId: string;
  contractId: string;
  status: StatusDecisionDetail['status'];
  reason?: string;
  /** The back office's id of the decision: a new one unless a resend is meant. */
  eventId?: string;
  occurredAt?: string;
  /** How it is signed: with the local back office's key, now, unless told otherwise. */
  signature?: SignatureOptions;
}

/** A back-office decision, signed, as EventBridge delivers it to the consumer (docs/events.md). */
export function decisionEvent(options: DecisionOptions, source = LOCAL_DECISION_SOURCE): EventBridgeEvent<string, StatusDecisionDetail> {
  const time = options.occurredAt ?? new Date().toISOString();
  const fields: SignedFields = {
    eventId: options.eventId ?? randomUUID(),
    requestId: options.requestId,
    contractId: options.contractId,
    status: options.status,
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    occurredAt: time,
  };
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': DECISION_DETAIL_TYPE,
    source,
    account: LOCAL_ACCOUNT_ID,
    time,
    region: 'eu-central-1',
    resources: [],
    detail: { ...fields, signature: signDecision(fields, options.signature, source) },
  };
}
