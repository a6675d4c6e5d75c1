import type { DynamoDBRecord } from 'aws-lambda';
import { publishInOrder, type PublishDeps, type PublishResult } from './publish-batches';
import { firstOfEach, type RecordIds } from './record-copies';
import { MalformedRecordError } from './request-events';
import type { SigningDeps } from './sign-events';
import { signedEntries, type EntryConfig, type OutgoingEvent } from './signed-entries';
import { UnreadableImageError } from './stream-image';

/*
 * The two ends every stream of the publisher shares (publish-stream-records.ts): reading a
 * batch's records into the claims its module makes of them, and sending the events its tables
 * confirmed, each once, signed, in order. What lies between, confirming a claim, is each
 * module's own.
 */

export interface Failure {
  sequenceNumber: string;
  reason: string;
}

export type Claimed<Claim> = RecordIds & { claim: Claim };

/**
 * Each record's claim, in order, up to the first record that cannot be read (MalformedRecordError,
 * UnreadableImageError): everything before it is published, it and what follows go back to the stream.
 */
export function claimsOf<Claim>(
  records: DynamoDBRecord[],
  claimOf: (record: DynamoDBRecord) => Claim | undefined,
): { claims: Claimed<Claim>[]; skipped: number; failed?: Failure } {
  const claims: Claimed<Claim>[] = [];
  let skipped = 0;
  for (const record of records) {
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    let claim;
    try {
      claim = claimOf(record);
    } catch (error) {
      if (!(error instanceof MalformedRecordError) && !(error instanceof UnreadableImageError)) throw error;
      return { claims, skipped, failed: { sequenceNumber, reason: error.message } };
    }
    if (claim === undefined) skipped++;
    else claims.push({ sequenceNumber, eventId: record.eventID ?? '', claim });
  }
  return { claims, skipped };
}

/**
 * The confirmed events out: each record once (record-copies.ts), signed, in order. The first
 * failure in stream order is reported: one while publishing, then one while signing, then
 * `earlier`, the one that stopped the confirming (each comes before the next).
 */
export async function sendConfirmed(
  confirmed: (RecordIds & { event: OutgoingEvent })[],
  config: EntryConfig,
  deps: PublishDeps & Pick<SigningDeps, 'signer'>,
  earlier: Failure | undefined,
): Promise<PublishResult & { copies: RecordIds[] }> {
  const { records: unique, copies } = firstOfEach(confirmed);
  const signing = await signedEntries(unique, config, deps);
  const result = await publishInOrder(signing.pending, deps);
  const first = result.failed ?? signing.failed ?? earlier;
  return { ...result, copies, ...(first === undefined ? {} : { failed: first }) };
}
