import { createHash } from 'node:crypto';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { WithdrawalIntent, WithdrawalOutcome } from '../termination/ports';
import { asWithdrawalRecord, erasedKeyFingerprint, type Failure } from './items';
import { requestKeyOf, withdrawalKeyOf, type Tables } from './keys';
import type { WithdrawalEntry } from './request-item';
import { explainStatusRefusal, slotRelease, statusIn } from './status-write';

/*
 * A customer's withdrawal as data (docs/decisions/0018-withdrawal.md): one TransactWriteItems
 * that records the key with its answer, moves the request to WITHDRAWN (setting its expiry,
 * docs/decisions/0024-retention-by-calendar-year.md) if it is the caller's and in a status it may be withdrawn
 * from, and deletes the contract's slot if it names the request.
 * termination-table.ts sends it, and hands a refusal's first failed condition to
 * explainWithdrawalRefusal.
 */

// Positions of the items; cancellation reasons come back in this order. The key decides first.
const KEY = 0;
const REQUEST = 1;
const SLOT = 2;

export function buildWithdrawalTransaction(tables: Tables, intent: WithdrawalIntent, nowSeconds: number): TransactWriteCommandInput {
  const { withdrawnAt } = intent.response;
  const from = statusIn(intent.from);
  return {
    // The SDK's own retry of an attempt that committed but lost its answer is then a no-op. One
    // token per call (a replay is another call, with other values: the same token would be a
    // mismatch); tokens are account-wide and at most 36 characters.
    ClientRequestToken: createHash('sha256')
      .update(`${intent.customerId}\n${intent.idempotencyKey}\n${withdrawnAt}`)
      .digest('base64url')
      .slice(0, 36),
    TransactItems: [
      {
        Put: {
          TableName: tables.requests,
          Item: {
            ...withdrawalKeyOf(intent.customerId, intent.idempotencyKey),
            kind: 'WITHDRAWAL_KEY',
            fingerprint: intent.fingerprint,
            requestId: intent.requestId,
            contractId: intent.contractId,
            responseJson: JSON.stringify(intent.response),
            createdAt: withdrawnAt,
            expiresAt: intent.expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Update: {
          TableName: tables.requests,
          Key: { ...requestKeyOf(intent.contractId, intent.requestId) },
          UpdateExpression:
            'SET #status = :withdrawn, statusChangedAt = :at, updatedAt = :at, ' +
            'statusHistory = list_append(if_not_exists(statusHistory, :none), :entries), ' +
            // WITHDRAWN is final: the retention period starts, and TTL deletes the request after it.
            'expiresAt = :retainUntil, withdrawalKey = :withdrawalKey REMOVE statusReason',
          ConditionExpression: `attribute_exists(pk) AND customerId = :customerId AND ${from.expression}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':withdrawn': intent.response.status,
            ':at': withdrawnAt,
            ':none': [],
            ':entries': [
              { status: intent.response.status, by: 'customer', occurredAt: withdrawnAt, appliedAt: withdrawnAt } satisfies WithdrawalEntry,
            ],
            ':customerId': intent.customerId,
            ':retainUntil': intent.retainUntil,
            // So an erasure finds the key record that names the request (customer-data.ts).
            ':withdrawalKey': intent.idempotencyKey,
            ...from.values,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      { Delete: slotRelease(tables, intent.contractId, intent.requestId) },
    ],
  };
}

/** Which condition of the withdrawal failed first, in item order: the key's, the request's, then the slot's. */
export function explainWithdrawalRefusal(
  failure: Failure | undefined,
  intent: WithdrawalIntent,
  nowSeconds: number,
): Exclude<WithdrawalOutcome, { kind: 'withdrawn' }> {
  if (failure?.position === KEY) {
    const erased = erasedKeyFingerprint(failure.item);
    if (erased !== undefined) return { kind: 'key-erased', fingerprint: erased };
    return { kind: 'key-taken', record: asWithdrawalRecord(failure.item, nowSeconds) };
  }
  return explainStatusRefusal(failure, { request: REQUEST, slot: SLOT }, intent.requestId);
}
