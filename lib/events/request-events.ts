import type { DynamoDBRecord } from 'aws-lambda';
import { v5 as uuidV5 } from 'uuid';
import { EVENT_TYPES, submittedEventSchema, type StatusChangedDetail, type SubmittedDetail } from '../api-model/event-schemas';
import { isStatusChangedDetail, isSubmittedDetail } from '../api-model/validator';
import { requestHistoryOf } from '../dynamodb/request-item';
import type { RequestIds } from '../dynamodb/request-reads';
import { MalformedItemError } from '../termination/ports/errors';
import type { RequestHistory, StatusChange } from '../termination/ports/request-history';
import { imageValues } from './stream-image';

/*
 * The events of a request (docs/events.md), built from the request as its item records it
 * (lib/dynamodb/request-item.ts): TerminationRequestSubmitted for its creation, and one
 * TerminationRequestStatusChanged for each change of its status. A stream record claims one of
 * them: a new request item its Submitted, a request item whose status changed that change;
 * every other item (slot, key, number) and every other change means nothing to the outside.
 * Pure: the publisher checks a claim against the table and sends what the table confirms.
 */

/** Fixed: event ids must be the same in every run, on every machine. */
const EVENT_ID_NAMESPACE = '6f1c8a52-3f0e-4d8b-9a57-2b51c0b1f7d4';

/**
 * A request reaches each status at most once (nothing moves back), so request and status name
 * one event: every delivery of it, from any retry of any record, carries the same id.
 */
export const eventIdOf = (requestId: string, status: string): string => uuidV5(`${requestId}/${status}`, EVENT_ID_NAMESPACE);

export type RequestEvent =
  | { detailType: typeof EVENT_TYPES.submitted; detail: SubmittedDetail; time: string }
  | { detailType: typeof EVENT_TYPES.statusChanged; detail: StatusChangedDetail; time: string };

export class MalformedRecordError extends Error {
  constructor(sequenceNumber: string | undefined, what: string) {
    super(`Stream record ${sequenceNumber ?? '(no sequence number)'}: ${what}`);
    this.name = 'MalformedRecordError';
  }
}

const SUBMITTED = submittedEventSchema.properties.status.const;

const identity = (request: RequestHistory) => ({
  requestId: request.requestId,
  contractId: request.contractId,
  customerId: request.customerId,
  requestNumber: request.requestNumber,
});

/** The request's TerminationRequestSubmitted: what the customer submitted, as the request was created. */
export function submittedEventOf(request: RequestHistory): RequestEvent {
  const detail = {
    eventId: eventIdOf(request.requestId, SUBMITTED),
    ...identity(request),
    status: SUBMITTED,
    ...request.submission,
    createdAt: request.createdAt,
  };
  if (!isSubmittedDetail(detail)) throw new MalformedItemError(`request item ${request.requestId}: not the fields of a Submitted event`);
  return { detailType: EVENT_TYPES.submitted, detail, time: detail.createdAt };
}

/** The TerminationRequestStatusChanged of one change of the request's status. */
export function statusChangedEventOf(request: RequestHistory, change: StatusChange): RequestEvent {
  const detail = {
    eventId: eventIdOf(request.requestId, change.status),
    ...identity(request),
    previousStatus: change.previousStatus,
    status: change.status,
    ...(change.reason === undefined ? {} : { reason: change.reason }),
    changedAt: change.changedAt,
    // Only the customer withdraws; every other move is a back-office decision (0018-withdrawal.md).
    ...(change.changedBy === 'CUSTOMER'
      ? { changedBy: change.changedBy }
      : { changedBy: change.changedBy, decisionEventId: change.decisionEventId }),
  };
  if (!isStatusChangedDetail(detail))
    throw new MalformedItemError(
      `request item ${request.requestId}: its change to ${change.status} is not the fields of a StatusChanged event`,
    );
  return { detailType: EVENT_TYPES.statusChanged, detail, time: detail.changedAt };
}

/** Every event the request made, in the order it made them. */
export function eventsOf(request: RequestHistory): RequestEvent[] {
  return [submittedEventOf(request), ...request.changes.map((change) => statusChangedEventOf(request, change))];
}

/** What a stream record says the request did: the event it would make, and the request to check it against. */
export interface Claim {
  request: RequestIds;
  event: RequestEvent;
}

/** The record's claim, or undefined when it means no event. A request item it cannot read is MalformedRecordError. */
export function claimOf(record: DynamoDBRecord): Claim | undefined {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  const newImage = record.dynamodb?.NewImage;
  if (record.eventName === 'REMOVE' || newImage === undefined) return undefined;
  try {
    const request = requestHistoryOf(imageValues(newImage));
    if (request === undefined) return undefined;
    const ids = { contractId: request.contractId, requestId: request.requestId };
    if (record.eventName === 'INSERT') {
      if (request.changes.length > 0) throw new MalformedRecordError(sequenceNumber, 'a new request item that has changed status');
      return { request: ids, event: submittedEventOf(request) };
    }
    const oldImage = record.dynamodb?.OldImage;
    const before = oldImage === undefined ? undefined : requestHistoryOf(imageValues(oldImage));
    if (before?.status === request.status) return undefined;
    const change = request.changes.at(-1);
    if (before === undefined || change === undefined)
      throw new MalformedRecordError(sequenceNumber, 'a status change without the fields of a StatusChanged event');
    // The record's own account of the move: from the status its old image had.
    return { request: ids, event: statusChangedEventOf(request, { ...change, previousStatus: before.status }) };
  } catch (error) {
    if (error instanceof MalformedItemError) throw new MalformedRecordError(sequenceNumber, error.message);
    throw error;
  }
}
