import type { DynamoDBRecord } from 'aws-lambda';
import { v5 as uuidV5 } from 'uuid';
import { EVENT_TYPES, submittedEventSchema, type StatusChangedDetail, type SubmittedDetail } from '../api-model/event-schemas';
import { isStatusChangedDetail, isSubmittedDetail } from '../api-model/validator';
import { imageValues } from './stream-image';

/*
 * The events a change of the requests table means (docs/events.md): a new request item is
 * TerminationRequestSubmitted, a request item whose status changed is
 * TerminationRequestStatusChanged; every other item (slot, key, number) and every other change
 * means nothing to the outside. Pure: the publisher sends what this returns.
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

const pick = (item: Record<string, unknown>, names: readonly string[]) =>
  Object.fromEntries(names.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]));

/** What a Submitted event copies from the request item: every field of its schema but its own id. */
const SUBMITTED_FIELDS = Object.keys(submittedEventSchema.properties).filter((name) => name !== 'eventId');

export function eventOfRecord(record: DynamoDBRecord): RequestEvent | undefined {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  const newImage = record.dynamodb?.NewImage;
  if (record.eventName === 'REMOVE' || newImage === undefined) return undefined;
  const item = imageValues(newImage);
  if (item['kind'] !== 'REQUEST') return undefined;

  if (record.eventName === 'INSERT') {
    const detail = { eventId: eventIdOf(String(item['requestId']), 'SUBMITTED'), ...pick(item, SUBMITTED_FIELDS) };
    if (!isSubmittedDetail(detail))
      throw new MalformedRecordError(sequenceNumber, 'a new request item without the fields of a Submitted event');
    return { detailType: EVENT_TYPES.submitted, detail, time: detail.createdAt };
  }

  const oldImage = record.dynamodb?.OldImage;
  const previousStatus = oldImage === undefined ? undefined : imageValues(oldImage)['status'];
  if (previousStatus === item['status']) return undefined;
  const byCustomer = item['status'] === 'WITHDRAWN';
  const decisionEventId = lastDecisionId(item);
  const detail = {
    eventId: eventIdOf(String(item['requestId']), String(item['status'])),
    ...pick(item, ['requestId', 'contractId', 'customerId', 'requestNumber', 'status']),
    previousStatus,
    ...(item['statusReason'] === undefined ? {} : { reason: item['statusReason'] }),
    changedAt: item['statusChangedAt'],
    // Only the customer withdraws; every other move is a back-office decision (0018-withdrawal.md).
    ...(byCustomer ? { changedBy: 'CUSTOMER' } : { changedBy: 'BACK_OFFICE', decisionEventId }),
  };
  // A back-office move names the decision applied; one without is not a record this service wrote.
  if ((!byCustomer && decisionEventId === undefined) || !isStatusChangedDetail(detail))
    throw new MalformedRecordError(sequenceNumber, 'a status change without the fields of a StatusChanged event');
  return { detailType: EVENT_TYPES.statusChanged, detail, time: detail.changedAt };
}

function lastDecisionId(item: Record<string, unknown>): unknown {
  const ids = item['decisionIds'];
  return Array.isArray(ids) ? ids.at(-1) : undefined;
}
