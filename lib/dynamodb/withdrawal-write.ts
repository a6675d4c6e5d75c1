import { createHash } from 'node:crypto';
import type { WithdrawalIntent, WithdrawalOutcome } from '../termination/ports/store';
import { asWithdrawalRecord, erasedKeyFingerprint, KEY_RECORD_KIND, keyRecordPut } from './items';
import { withdrawalKeyOf, type Tables } from './keys';
import { withdrawalUpdate } from './request-item';
import { explainStatusRefusal, slotRelease, type StatusPart } from './status-write';
import { namedTransaction, type Failure, type NamedTransaction, type WriteItem } from './write-parts';

/*
 * A customer's withdrawal as data (docs/decisions/0018-withdrawal.md): one TransactWriteItems
 * that records the key with its answer, moves the request to WITHDRAWN (setting its expiry,
 * docs/decisions/0024-retention-by-calendar-year.md) if it is the caller's and in a status it may be withdrawn
 * from, and deletes the contract's slot if it names the request.
 * termination-table.ts sends it, and hands a refusal's first failed part to
 * explainWithdrawalRefusal. The request's update is request-item.ts's.
 */

/** The parts of a withdrawal, in the order DynamoDB checks them: the key decides first. */
export type WithdrawalPart = 'key' | StatusPart;

export function buildWithdrawalTransaction(tables: Tables, intent: WithdrawalIntent, nowSeconds: number): NamedTransaction<WithdrawalPart> {
  const { withdrawnAt } = intent.response;
  // The SDK's own retry of an attempt that committed but lost its answer is then a no-op. One
  // token per call (a replay is another call, with other values: the same token would be a
  // mismatch); tokens are account-wide and at most 36 characters.
  const token = createHash('sha256')
    .update(`${intent.customerId}\n${intent.idempotencyKey}\n${withdrawnAt}`)
    .digest('base64url')
    .slice(0, 36);
  const key: WriteItem = {
    Put: keyRecordPut(
      tables.requests,
      {
        ...withdrawalKeyOf(intent.customerId, intent.idempotencyKey),
        kind: KEY_RECORD_KIND.withdrawal,
        fingerprint: intent.fingerprint,
        requestId: intent.requestId,
        contractId: intent.contractId,
        response: intent.response,
        createdAt: withdrawnAt,
        expiresAt: intent.expiresAt,
      },
      nowSeconds,
    ),
  };
  return namedTransaction<WithdrawalPart>(
    [
      { name: 'key', item: key },
      { name: 'request', item: { Update: withdrawalUpdate(tables.requests, intent) } },
      { name: 'slot', item: { Delete: slotRelease(tables, intent.contractId, intent.requestId) } },
    ],
    token,
  );
}

/** What the withdrawal's first failed part says: the key's, else the request's or the slot's (status-write.ts). */
export function explainWithdrawalRefusal(
  failure: Failure<WithdrawalPart> | undefined,
  intent: WithdrawalIntent,
  nowSeconds: number,
): Exclude<WithdrawalOutcome, { kind: 'withdrawn' }> {
  if (failure?.part === 'key') {
    const erased = erasedKeyFingerprint(failure.item);
    if (erased !== undefined) return { kind: 'key-erased', fingerprint: erased };
    return { kind: 'key-taken', record: asWithdrawalRecord(failure.item, nowSeconds) };
  }
  return explainStatusRefusal(failure, intent.requestId);
}
