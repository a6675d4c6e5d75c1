import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { NewRequest, WriteOutcome } from '../termination/ports';
import { contractConditionCheck } from './contract-condition';
import { asIdempotencyRecord, conditionFailed, failedItem, type Item, type ReadItem } from './items';
import { idempotencyKeyOf, numberKeyOf, requestKeyOf, slotKeyOf } from './keys';
import type { NumberItem, RequestItem } from './request-item';

/*
 * The create as data (docs/decisions/0005-one-atomic-write.md): one TransactWriteItems that binds
 * four items of the service's table (keys.ts) and a check of the contract, and the reading of its
 * cancellation reasons as facts. termination-table.ts only sends it and gives the consistent read.
 */

export interface Tables {
  requests: string;
  contracts: string;
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
 * Which of the create's conditions failed first, in item order, with the item it concerned
 * (ALL_OLD; where a reason came back without it, `read` reads it consistently).
 */
export async function explainCancellation(
  reasons: CancellationReason[],
  request: NewRequest,
  nowSeconds: number,
  read: ReadItem,
): Promise<WriteOutcome> {
  if (conditionFailed(reasons[KEY])) {
    const { item } = await failedItem(reasons[KEY]?.Item, () =>
      read('requests', idempotencyKeyOf(request.customerId, request.idempotencyKey)),
    );
    return { kind: 'key-taken', record: asIdempotencyRecord(item, nowSeconds) };
  }
  if (conditionFailed(reasons[CONTRACT])) {
    const { item, readAfter } = await failedItem(reasons[CONTRACT]?.Item, () => read('contracts', { contractId: request.contractId }));
    return { kind: 'contract-condition-failed', contract: item, readAfter };
  }
  if (conditionFailed(reasons[SLOT])) {
    const { item } = await failedItem(reasons[SLOT]?.Item, () => read('requests', slotKeyOf(request.contractId)));
    return { kind: 'slot-taken', holder: holderOf(item) };
  }
  if (conditionFailed(reasons[NUMBER])) return { kind: 'number-taken' };
  // TransactionConflict, or a request id that already exists (a UUID clash).
  return { kind: 'conflict' };
}
