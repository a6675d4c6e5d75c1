/*
 * A batch's copies of a record. The stream hands each change once; a batch that names one twice
 * (by its sequence number or its stream event id) was put together by someone else: a direct
 * invoke, or a redrive with a record repeated. The table confirms every copy of a genuine record,
 * so without this each would be published again. Copies are told apart after the table has
 * confirmed them: a forged record that borrows a genuine one's ids is refused for what it says
 * (UnconfirmedRecords) and never hides the genuine one. One record publishes once per invocation;
 * each copy is reported by its ids, counted in DuplicateRecords and alarmed
 * (resources/monitoring.yml).
 */

/** The metric that counts records handed again within one invocation; an alarm watches it. */
export const DUPLICATE_RECORDS_METRIC = 'DuplicateRecords';

/** A stream record's own ids: what makes two records one. */
export interface RecordIds {
  sequenceNumber: string;
  /** The stream record's eventID. */
  eventId: string;
}

/** Each record the first time its sequence number or event id comes, in order, and the copies left out (by their ids). */
export function firstOfEach<T extends RecordIds>(records: T[]): { records: T[]; copies: RecordIds[] } {
  const seen = { sequenceNumbers: new Set<string>(), eventIds: new Set<string>() };
  const kept: T[] = [];
  const copies: RecordIds[] = [];
  for (const record of records) {
    const { sequenceNumber, eventId } = record;
    if ((sequenceNumber !== '' && seen.sequenceNumbers.has(sequenceNumber)) || (eventId !== '' && seen.eventIds.has(eventId))) {
      copies.push({ sequenceNumber, eventId });
      continue;
    }
    seen.sequenceNumbers.add(sequenceNumber);
    seen.eventIds.add(eventId);
    kept.push(record);
  }
  return { records: kept, copies };
}
