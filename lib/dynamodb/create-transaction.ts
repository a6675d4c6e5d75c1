import type { NewRequest, WriteOutcome } from '../termination/ports/store';
import { contractConditionCheck } from './contract-condition';
import { documentConditionChecks } from './document-checks';
import { asIdempotencyRecord, erasedKeyFingerprint, KEY_RECORD_KIND, keyRecordPut, type Item } from './items';
import { idempotencyKeyOf, numberKeyOf, slotKeyOf, type CreateTables } from './keys';
import { createdAtSecondsOf, requestLimitUpdate } from './request-limit';
import { newRequestPut, NUMBER_KIND, type NumberItem } from './request-item';
import { namedTransaction, type Failure, type NamedTransaction, type WriteItem } from './write-parts';

/*
 * The create as data (docs/decisions/0005-one-atomic-write.md): one TransactWriteItems that puts
 * four items of the service's table (keys.ts: key, slot, number, request), checks the contract
 * and each document named, and updates a fifth, the customer's limit record on the contract; and
 * the reading of its failed conditions as facts (the first decides; every refused document is
 * named). termination-table.ts sends it, and hands a refusal's first failed part over.
 */

/** The parts of the create, in the order DynamoDB checks them: the idempotency key goes first, so it decides before any state-dependent rule. */
export type CreatePart = 'key' | 'contract' | 'slot' | 'number' | 'request' | 'document' | 'limit';

export function buildCreateTransaction(tables: CreateTables, request: NewRequest, nowSeconds: number): NamedTransaction<CreatePart> {
  const createdAt = request.response.createdAt;
  const key: WriteItem = {
    Put: keyRecordPut(
      tables.requests,
      {
        ...idempotencyKeyOf(request.customerId, request.idempotencyKey),
        kind: KEY_RECORD_KIND.create,
        fingerprint: request.fingerprint,
        requestId: request.requestId,
        contractId: request.contractId,
        response: request.response,
        createdAt,
        expiresAt: request.expiresAt,
      },
      nowSeconds,
    ),
  };
  const slot: WriteItem = {
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
  };
  const number: WriteItem = {
    Put: {
      TableName: tables.requests,
      Item: {
        ...numberKeyOf(request.requestNumber),
        kind: NUMBER_KIND,
      } satisfies NumberItem,
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  const documents = documentConditionChecks(tables.documents, request.input.documentIds ?? [], request.documents);
  return namedTransaction<CreatePart>(
    [
      { name: 'key', item: key },
      { name: 'contract', item: { ConditionCheck: contractConditionCheck(tables.contracts, request.contractId, request.contract) } },
      { name: 'slot', item: slot },
      { name: 'number', item: number },
      { name: 'request', item: { Put: newRequestPut(tables.requests, request) } },
      ...documents.map((ConditionCheck, at) => ({ name: 'document' as const, at, item: { ConditionCheck } })),
      {
        name: 'limit',
        item: {
          Update: requestLimitUpdate(tables.requests, request.contractId, request.customerId, request.limit),
        },
      },
    ],
    // Makes the SDK's own retry of an attempt that committed but lost its answer succeed as a
    // no-op, instead of coming back as a replay of the caller's own first call.
    request.requestId,
  );
}

const holderOf = (slot: Item | undefined): Extract<WriteOutcome, { kind: 'slot-taken' }>['holder'] => {
  const requestNumber = slot?.['requestNumber'];
  const customerId = slot?.['customerId'];
  return typeof requestNumber === 'string'
    ? { requestNumber, customerId: typeof customerId === 'string' ? customerId : undefined }
    : undefined;
};

/**
 * What a refused create found, from its first failed part (write-parts.ts): the key, the
 * contract, the slot, the number, the documents (every one refused, by its place in
 * documentIds) or the limit; anything else (no condition failed: a conflict; the request item's
 * own: a request id that exists already) is a conflict.
 */
export function explainCreateRefusal(
  failure: Failure<CreatePart> | undefined,
  request: NewRequest,
  nowSeconds: number,
): Exclude<WriteOutcome, { kind: 'created' }> {
  switch (failure?.part) {
    case 'key': {
      const erased = erasedKeyFingerprint(failure.item);
      if (erased !== undefined) return { kind: 'key-erased', fingerprint: erased };
      return { kind: 'key-taken', record: asIdempotencyRecord(failure.item, nowSeconds) };
    }
    case 'contract':
      return { kind: 'contract-condition-failed', contract: failure.item, readAfter: failure.readAfter };
    case 'slot':
      return { kind: 'slot-taken', holder: holderOf(failure.item) };
    case 'number':
      return { kind: 'number-taken' };
    case 'document':
      return {
        kind: 'documents-refused',
        positions: failure.failed.flatMap(({ name, at }) => (name === 'document' && at !== undefined ? [at] : [])),
      };
    case 'limit':
      return { kind: 'limit-reached', createdAtSeconds: createdAtSecondsOf(failure.item, request.limit) };
    case 'request':
    case undefined:
      return { kind: 'conflict' };
  }
}
