import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { NewRequest, WriteOutcome } from '../termination/ports';
import { contractConditionCheck } from './contract-condition';
import { documentConditionChecks } from './document-checks';
import { asIdempotencyRecord, type Failure, type Item } from './items';
import { idempotencyKeyOf, numberKeyOf, requestKeyOf, slotKeyOf, type CreateTables } from './keys';
import { createdAtSecondsOf, requestLimitUpdate } from './request-limit';
import type { NumberItem, RequestItem } from './request-item';

/*
 * The create as data (docs/decisions/0005-one-atomic-write.md): one TransactWriteItems that puts
 * four items of the service's table (keys.ts: key, slot, number, request), checks the contract
 * and each document named, and updates a fifth, the customer's limit record on the contract; and
 * the reading of its failed conditions as facts (the first decides; every refused document is
 * named). termination-table.ts sends it, and hands a refusal's items over.
 */

// Positions of the items in the transaction; cancellation reasons come back in this order.
// The idempotency key goes first: it decides before any state-dependent rule.
const KEY = 0;
const CONTRACT = 1;
const SLOT = 2;
const NUMBER = 3;
// After the request (4): a ConditionCheck per document named, then the customer's limit record.
const FIRST_DOCUMENT = 5;
const limitPosition = (request: NewRequest): number => FIRST_DOCUMENT + (request.input.documentIds?.length ?? 0);

export function buildCreateTransaction(tables: CreateTables, request: NewRequest, nowSeconds: number): TransactWriteCommandInput {
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
            requestedBy: request.customerId,
            contractId: request.contractId,
            idempotencyKey: request.idempotencyKey,
            createdAt,
            ...request.input,
          } satisfies RequestItem,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...documentConditionChecks(tables.documents, request.input.documentIds ?? [], request.documents).map((ConditionCheck) => ({
        ConditionCheck,
      })),
      { Update: requestLimitUpdate(tables.requests, request.contractId, request.customerId, request.limit, nowSeconds) },
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

/** The documents whose check failed, by their place in documentIds: every one DynamoDB reported. */
function failedDocuments(failure: Failure, request: NewRequest): number[] {
  const limitAt = limitPosition(request);
  return failure.failedPositions.filter((at) => at >= FIRST_DOCUMENT && at < limitAt).map((at) => at - FIRST_DOCUMENT);
}

/**
 * What a refused create found, from its first failed condition (items.ts): the key, the
 * contract, the slot, the number, the documents (every one refused) or the limit; anything else
 * (no condition failed: a conflict; the request item's own: a request id that exists already)
 * is a conflict.
 */
export function explainCreateRefusal(
  failure: Failure | undefined,
  request: NewRequest,
  nowSeconds: number,
): Exclude<WriteOutcome, { kind: 'created' }> {
  if (failure === undefined) return { kind: 'conflict' };
  const documents = failedDocuments(failure, request);
  if (failure.position >= FIRST_DOCUMENT && documents.length > 0) return { kind: 'documents-refused', positions: documents };
  if (failure.position === limitPosition(request)) {
    return { kind: 'limit-reached', createdAtSeconds: createdAtSecondsOf(failure.item, request.limit) };
  }
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
