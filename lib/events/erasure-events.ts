import type { DynamoDBRecord } from 'aws-lambda';
import { EVENT_TYPES, type ErasedDetail } from '../api-model/event-schemas';
import { isErasedDetail } from '../api-model/validator';
import { ledgerEntryOf, type LedgerEntry } from '../dynamodb/erasure-ledger';
import type { RequestIds } from '../dynamodb/request-reads';
import { MalformedItemError } from '../termination/ports/errors';
import { eventIdOf, MalformedRecordError } from './request-events';
import { imageValues } from './stream-image';

/*
 * The event of an erasure (docs/events.md, TerminationRequestErased), built from the erasure
 * ledger's entry (lib/dynamodb/erasure-ledger.ts): ids and a time only. A ledger stream record
 * claims one: a new entry that names a request. Every other record means nothing to the outside:
 * a limit record's erasure (it names no request), a TTL expiry or any other removal of an entry
 * (the stream mapping's filter drops those before the publisher sees them; these are dropped
 * again if handed by hand). Pure: the publisher checks a claim against the ledger and the
 * requests table, and sends the event it rebuilds from the ledger's own item.
 */

/** The status-like name an erasure's eventId is made from: one erasure event per request, however often it is sent. */
const ERASED = 'ERASED';

export type ErasedEvent = { detailType: typeof EVENT_TYPES.erased; detail: ErasedDetail; time: string };

/** The erasure's event, or undefined when the entry names no request (a limit record's). */
export function erasedEventOf(entry: LedgerEntry): ErasedEvent | undefined {
  if (entry.requestId === undefined) return undefined;
  const detail = {
    eventId: eventIdOf(entry.requestId, ERASED),
    requestId: entry.requestId,
    contractId: entry.contractId,
    ...(entry.requestNumber === undefined ? {} : { requestNumber: entry.requestNumber }),
    erasedAt: entry.erasedAt,
  };
  if (!isErasedDetail(detail)) throw new MalformedItemError(`ledger entry ${entry.key.sk}: not the fields of an Erased event`);
  return { detailType: EVENT_TYPES.erased, detail, time: detail.erasedAt };
}

/** What a ledger record says: the entry as the record carries it, the event it would make, and the request that must be gone. */
export interface ErasureClaim {
  entry: LedgerEntry;
  request: RequestIds;
  event: ErasedEvent;
}

/** The record's claim, or undefined when it means no event. An entry it cannot read is MalformedRecordError. */
export function erasureClaimOf(record: DynamoDBRecord): ErasureClaim | undefined {
  const newImage = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || newImage === undefined) return undefined;
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  const entry = ledgerEntryOf(imageValues(newImage));
  if (entry === undefined) throw new MalformedRecordError(sequenceNumber, 'a new ledger item that is not an erasure');
  try {
    const event = erasedEventOf(entry);
    if (event === undefined || entry.requestId === undefined) return undefined;
    return { entry, request: { contractId: entry.contractId, requestId: entry.requestId }, event };
  } catch (error) {
    if (error instanceof MalformedItemError) throw new MalformedRecordError(sequenceNumber, error.message);
    throw error;
  }
}
