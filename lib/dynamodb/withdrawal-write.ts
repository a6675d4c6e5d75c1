import { createHash } from 'node:crypto';
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isWithdrawal } from '../api-model/validator';
import { isStatus, WITHDRAWABLE_STATUSES } from '../termination/lifecycle';
import { MalformedItemError, type WithdrawalIntent, type WithdrawalOutcome, type WithdrawalRecord } from '../termination/ports';
import type { Tables } from './create-transaction';
import { requestKeyOf, slotKeyOf, withdrawalKeyOf } from './keys';

/*
 * A customer's withdrawal as data (docs/decisions/0018-withdrawal.md): one TransactWriteItems
 * that records the key with its answer, moves the request to WITHDRAWN if it is the caller's and
 * still SUBMITTED or IN_REVIEW, and deletes the contract's slot if it names the request. Pure:
 * termination-table.ts only sends it and reads the cancellation back through
 * explainWithdrawalCancellation.
 */

// Positions of the items; cancellation reasons come back in this order. The key decides first.
const KEY = 0;
const REQUEST = 1;
const SLOT = 2;

export function buildWithdrawalTransaction(tables: Tables, intent: WithdrawalIntent, nowSeconds: number): TransactWriteCommandInput {
  const { withdrawnAt } = intent.response;
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
          ConditionExpression: `attribute_exists(pk) AND customerId = :customerId AND #status IN (${WITHDRAWABLE_STATUSES.map((_, i) => `:from${i}`).join(', ')})`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':withdrawn': 'WITHDRAWN',
            ':at': withdrawnAt,
            ':none': [],
            ':entries': [{ status: 'WITHDRAWN', by: 'customer', occurredAt: withdrawnAt, appliedAt: withdrawnAt }],
            ':customerId': intent.customerId,
            ...Object.fromEntries(WITHDRAWABLE_STATUSES.map((status, i) => [`:from${i}`, status])),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Delete: {
          TableName: tables.requests,
          Key: { ...slotKeyOf(intent.contractId) },
          ConditionExpression: 'requestId = :requestId',
          ExpressionAttributeValues: { ':requestId': intent.requestId },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
  };
}

/** The key's stored record, or nothing when it has expired (TTL may lag); anything else is ours to fix. */
export function asWithdrawalRecord(item: Record<string, unknown> | undefined, nowSeconds: number): WithdrawalRecord | undefined {
  if (!item) return undefined;
  const { fingerprint, expiresAt, responseJson } = item;
  if (typeof expiresAt !== 'number') throw new MalformedItemError('withdrawal key record');
  if (expiresAt <= nowSeconds) return undefined;
  if (typeof fingerprint !== 'string' || typeof responseJson !== 'string') throw new MalformedItemError('withdrawal key record');
  const response: unknown = JSON.parse(responseJson);
  if (!isWithdrawal(response)) throw new MalformedItemError('withdrawal key record');
  return { fingerprint, response };
}

const oldItem = (reason: CancellationReason | undefined): Record<string, unknown> | undefined =>
  reason?.Item ? unmarshall(reason.Item) : undefined;

/** A cancellation that the reasons alone cannot explain: read this item consistently, then decide. */
export interface WithdrawalNeedsRead {
  kind: 'read';
  key: Record<string, string>;
  decide: (item: Record<string, unknown> | undefined) => WithdrawalOutcome;
}

function requestRefusal(item: Record<string, unknown> | undefined, intent: WithdrawalIntent): WithdrawalOutcome {
  // Not there, or another customer's: to this caller it does not exist (0015-reading-requests.md).
  if (item?.['customerId'] !== intent.customerId) return { kind: 'not-found' };
  const current = item['status'];
  if (!isStatus(current)) throw new MalformedItemError(`request item ${intent.requestId}: status`);
  // The condition failed on a request that looks withdrawable: a writer got in between. Try again.
  return WITHDRAWABLE_STATUSES.includes(current) ? { kind: 'retry' } : { kind: 'not-withdrawable', current };
}

/** Why the withdrawal was cancelled, from its reasons read key first, then request, then slot. */
export function explainWithdrawalCancellation(
  reasons: CancellationReason[],
  intent: WithdrawalIntent,
  nowSeconds: number,
): WithdrawalOutcome | WithdrawalNeedsRead {
  const failed = (i: number) => reasons[i]?.Code === 'ConditionalCheckFailed';
  if (failed(KEY)) {
    const decide = (item: Record<string, unknown> | undefined): WithdrawalOutcome => {
      const record = asWithdrawalRecord(item, nowSeconds);
      return record ? { kind: 'key-used', record } : { kind: 'retry' };
    };
    const returned = oldItem(reasons[KEY]);
    return returned ? decide(returned) : { kind: 'read', key: { ...withdrawalKeyOf(intent.customerId, intent.idempotencyKey) }, decide };
  }
  if (failed(REQUEST)) {
    const returned = oldItem(reasons[REQUEST]);
    if (returned) return requestRefusal(returned, intent);
    return {
      kind: 'read',
      key: { ...requestKeyOf(intent.contractId, intent.requestId) },
      decide: (item) => requestRefusal(item, intent),
    };
  }
  // The request was withdrawable but the slot does not name it: stored data broke a rule.
  if (failed(SLOT)) throw new MalformedItemError(`slot of contract ${intent.contractId}: does not name active request ${intent.requestId}`);
  // TransactionConflict: a fresh attempt.
  return { kind: 'retry' };
}
