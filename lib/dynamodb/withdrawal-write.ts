import { createHash } from 'node:crypto';
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { WithdrawalIntent, WithdrawalOutcome } from '../termination/ports';
import type { Tables } from './create-transaction';
import { asWithdrawalRecord, conditionFailed, failedItem, type ReadItem } from './items';
import { requestKeyOf, withdrawalKeyOf } from './keys';
import type { WithdrawalEntry } from './request-item';
import { explainStatusRefusal, slotRelease, statusIn } from './status-write';

/*
 * A customer's withdrawal as data (docs/decisions/0018-withdrawal.md): one TransactWriteItems
 * that records the key with its answer, moves the request to WITHDRAWN if it is the caller's and
 * in a status it may be withdrawn from, and deletes the contract's slot if it names the request.
 * termination-table.ts only sends it, and reads a cancellation back as facts
 * (explainWithdrawalCancellation).
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
            'statusHistory = list_append(if_not_exists(statusHistory, :none), :entries) REMOVE statusReason',
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
export async function explainWithdrawalCancellation(
  reasons: CancellationReason[],
  intent: WithdrawalIntent,
  nowSeconds: number,
  read: ReadItem,
): Promise<WithdrawalOutcome> {
  if (conditionFailed(reasons[KEY])) {
    const { item } = await failedItem(reasons[KEY]?.Item, () =>
      read('requests', withdrawalKeyOf(intent.customerId, intent.idempotencyKey)),
    );
    return { kind: 'key-taken', record: asWithdrawalRecord(item, nowSeconds) };
  }
  return explainStatusRefusal(reasons[REQUEST], reasons[SLOT], intent, read);
}
