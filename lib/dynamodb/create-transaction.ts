import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { judgeContract } from '../termination/contract-rules';
import { STATUS_SUBMITTED } from '../termination/lifecycle';
import { MalformedItemError, type IdempotencyRecord, type NewRequest, type WriteOutcome } from '../termination/ports';
import { contractConditionCheck } from './contract-condition';
import { isTerminationRequest } from '../api-model/validator';
import { idempotencyKeyOf, numberKeyOf, requestKeyOf, slotKeyOf } from './keys';

/*
 * The create as data (docs/decisions/0005-one-atomic-write.md): one TransactWriteItems that binds
 * four items of the service's table (keys.ts) and a check of the contract, and the reading of its
 * cancellation reasons. Both are pure; termination-table.ts only sends and, where a reason came
 * back without its item, reads that item.
 */

export interface Tables {
  requests: string;
  contracts: string;
}

/** A cancellation that the reasons alone cannot explain: read this item (consistently), then decide. */
export interface NeedsRead {
  kind: 'read';
  table: 'requests' | 'contracts';
  key: Record<string, string>;
  decide: (item: Record<string, unknown> | undefined) => WriteOutcome;
}

// Positions of the items in the transaction; cancellation reasons come back in this order.
// The idempotency key goes first: it decides before any state-dependent rule.
const KEY = 0;
const CONTRACT = 1;
const SLOT = 2;
const NUMBER = 3;

export function buildCreateTransaction(tables: Tables, request: NewRequest, nowSeconds: number): TransactWriteCommandInput {
  const createdAt = request.response.createdAt;
  return {
    // Makes the SDK's own retry of an attempt that committed but lost its answer succeed as a
    // no-op, instead of coming back as a replay of the caller's own first call.
    ClientRequestToken: request.requestId,
    TransactItems: [
      {
        Put: {
          TableName: tables.requests,
          Item: {
            ...idempotencyKeyOf(request.customerId, request.idempotencyKey),
            kind: 'IDEMPOTENCY',
            fingerprint: request.fingerprint,
            requestId: request.requestId,
            contractId: request.contractId,
            // Kept as text so a replay answers with the very bytes of the 201 body.
            responseJson: JSON.stringify(request.response),
            createdAt,
            expiresAt: request.expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        ConditionCheck: contractConditionCheck(
          tables.contracts,
          request.contractId,
          request.customerId,
          request.input.desiredTerminationDate,
        ),
      },
      {
        Put: {
          TableName: tables.requests,
          Item: {
            ...slotKeyOf(request.contractId),
            kind: 'ACTIVE_SLOT',
            requestId: request.requestId,
            requestNumber: request.requestNumber,
            customerId: request.customerId,
            createdAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Put: {
          TableName: tables.requests,
          Item: {
            ...numberKeyOf(request.requestNumber),
            kind: 'REQUEST_NUMBER',
            requestId: request.requestId,
            contractId: request.contractId,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tables.requests,
          Item: {
            ...requestKeyOf(request.contractId, request.requestId),
            kind: 'REQUEST',
            requestId: request.requestId,
            requestNumber: request.requestNumber,
            status: STATUS_SUBMITTED,
            customerId: request.customerId,
            contractId: request.contractId,
            idempotencyKey: request.idempotencyKey,
            createdAt,
            ...request.input,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  };
}

/** The stored record of a key, or nothing when there is none or it has expired (TTL may lag). */
export function asIdempotencyRecord(item: Record<string, unknown> | undefined, nowSeconds: number): IdempotencyRecord | undefined {
  if (!item) return undefined;
  const { fingerprint, requestId, expiresAt, responseJson } = item;
  // A record without a numeric expiresAt blocks its key forever: malformed, not absent.
  if (typeof expiresAt !== 'number') throw new MalformedItemError('idempotency record');
  if (expiresAt <= nowSeconds) return undefined;
  if (typeof fingerprint !== 'string' || typeof requestId !== 'string' || typeof responseJson !== 'string') {
    throw new MalformedItemError('idempotency record');
  }
  const response: unknown = JSON.parse(responseJson);
  if (!isTerminationRequest(response)) throw new MalformedItemError('idempotency record');
  return { fingerprint, requestId, expiresAt, response };
}

function oldItem(reason: CancellationReason | undefined): Record<string, unknown> | undefined {
  return reason?.Item ? unmarshall(reason.Item) : undefined;
}

function keyUsed(record: IdempotencyRecord | undefined): WriteOutcome {
  return record ? { kind: 'key-used', record } : { kind: 'retry' };
}

function slotTaken(slot: Record<string, unknown> | undefined, customerId: string): WriteOutcome {
  const requestNumber = slot?.['requestNumber'];
  if (typeof requestNumber !== 'string') return { kind: 'retry' };
  // Another customer's request (the contract changed owner) is not named to the caller.
  return slot?.['customerId'] === customerId ? { kind: 'slot-taken', requestNumber } : { kind: 'slot-taken' };
}

/**
 * Why the transaction was cancelled, from its reasons (ALL_OLD items where a condition failed).
 * DynamoDB Local and a conflicting writer can return a reason without its item: then the answer
 * needs one consistent read of that item.
 */
export function explainCancellation(reasons: CancellationReason[], request: NewRequest, nowSeconds: number): WriteOutcome | NeedsRead {
  const failed = (i: number) => reasons[i]?.Code === 'ConditionalCheckFailed';

  if (failed(KEY)) {
    const returned = oldItem(reasons[KEY]);
    const record = asIdempotencyRecord(returned, nowSeconds);
    if (record) return keyUsed(record);
    return {
      kind: 'read',
      table: 'requests',
      key: { ...idempotencyKeyOf(request.customerId, request.idempotencyKey) },
      decide: (item) => keyUsed(asIdempotencyRecord(item, nowSeconds)),
    };
  }
  if (failed(CONTRACT)) {
    const judge = (contract: Record<string, unknown> | undefined, fromReason: boolean): WriteOutcome => {
      const verdict = judgeContract(contract, request.customerId, request.input.desiredTerminationDate);
      if (verdict.kind !== 'ok') return { kind: 'contract', verdict };
      // The item the condition refused looks fine to us: not a race but a rule we do not know.
      if (fromReason) throw new Error('Contract condition failed on a contract judged acceptable');
      return { kind: 'retry' };
    };
    const returned = oldItem(reasons[CONTRACT]);
    if (returned) return judge(returned, true);
    return { kind: 'read', table: 'contracts', key: { contractId: request.contractId }, decide: (item) => judge(item, false) };
  }
  if (failed(SLOT)) {
    const returned = oldItem(reasons[SLOT]);
    if (returned) return slotTaken(returned, request.customerId);
    return {
      kind: 'read',
      table: 'requests',
      key: { ...slotKeyOf(request.contractId) },
      decide: (item) => slotTaken(item, request.customerId),
    };
  }
  if (failed(NUMBER)) return { kind: 'number-taken' };
  // TransactionConflict, or a request id that already exists (a UUID clash): a fresh attempt.
  return { kind: 'retry' };
}
