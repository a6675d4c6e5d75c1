import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { NewRequest, WriteOutcome } from '../termination/ports';
import { contractConditionCheck } from './contract-condition';
import { asIdempotencyRecord, type Failure, type Item } from './items';
import { idempotencyKeyOf, numberKeyOf, requestKeyOf, slotKeyOf, type Tables } from './keys';
import type { NumberItem, RequestItem } from './request-item';

/*
 * The create as data (docs/decisions/0005-one-atomic-write.md): one TransactWriteItems that binds
 * four items of the service's table (keys.ts) and a check of the contract, and the reading of its
 * first failed condition as facts. termination-table.ts sends it, and hands a refusal's item over.
 */

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
        ConditionCheck: contractConditionCheck(tables.contracts, request.contractId, request.contract),
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
          } satisfies NumberItem,
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
            status: request.response.status,
            customerId: request.customerId,
            contractId: request.contractId,
            idempotencyKey: request.idempotencyKey,
            createdAt,
            ...request.input,
          } satisfies RequestItem,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  };
}

const holderOf = (slot: Item | undefined): Extract<WriteOutcome, { kind: 'slot-taken' }>['holder'] => {
  const requestNumber = slot?.['requestNumber'];
  const customerId = slot?.['customerId'];
  return typeof requestNumber === 'string'
    ? { requestNumber, customerId: typeof customerId === 'string' ? customerId : undefined }
    : undefined;
};

/**
 * What a refused create found, from its first failed condition (items.ts): the key, the
 * contract, the slot or the number; anything else (no condition failed: a conflict; the request
 * item's own: a request id that exists already) is a conflict.
 */
export function explainCreateRefusal(failure: Failure | undefined, nowSeconds: number): Exclude<WriteOutcome, { kind: 'created' }> {
  if (failure === undefined) return { kind: 'conflict' };
  switch (failure.position) {
    case KEY:
      return { kind: 'key-taken', record: asIdempotencyRecord(failure.item, nowSeconds) };
    case CONTRACT:
      return { kind: 'contract-condition-failed', contract: failure.item, readAfter: failure.readAfter };
    case SLOT:
      return { kind: 'slot-taken', holder: holderOf(failure.item) };
    case NUMBER:
      return { kind: 'number-taken' };
    default:
      return { kind: 'conflict' };
  }
}
