import { describe, expect, it } from 'vitest';
import { directContext } from '../support/call-context';
import { buildCreateTransaction, explainCreateRefusal } from '../../lib/dynamodb/create-transaction';
import { partItem, type Failure } from '../../lib/dynamodb/write-parts';
import type { CreatePart } from '../../lib/dynamodb/create-transaction';
import { contractConditionFor } from '../../lib/termination/contract-rules';
import { documentConditionFor } from '../../lib/termination/documents';
import { createTerminationRequest } from '../../lib/termination/create-termination-request';
import type { NewRequest } from '../../lib/termination/ports/store';
import { limitConditionFor } from '../../lib/termination/request-limit';

const tables = { requests: 'requests', contracts: 'contracts', documents: 'documents' };
const NOW = 1_900_000_000;
const response = {
  requestId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  requestNumber: 'TR-7KQM-X2PF',
  status: 'SUBMITTED' as const,
  createdAt: '2030-03-17T12:00:00.000Z',
  message: 'Your early termination request No. TR-7KQM-X2PF has been submitted.',
};
const request: NewRequest = {
  requestId: response.requestId,
  requestNumber: response.requestNumber,
  customerId: 'customer-anna',
  contractId: 'a1a1a1a1-0000-4000-8000-00000000000a',
  idempotencyKey: '5b0e4a3c-1d2f-4e6a-8b7c-9d0e1f2a3b4c',
  fingerprint: 'fp-1',
  input: {
    reasonCode: 'RELOCATION',
    desiredTerminationDate: '2030-06-30',
    bankDetails: { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Anna Ivanova' },
  },
  response,
  expiresAt: NOW + 86_400,
  contract: contractConditionFor('customer-anna', '2030-06-30'),
  documents: documentConditionFor('customer-anna'),
  limit: limitConditionFor({ count: 3, periodDays: 30 }, NOW, NOW),
};

/** The first failed part, with the item as the failure returned it, or as the store read it after. */
const failedAt = (
  part: CreatePart,
  item?: Record<string, unknown>,
  readAfter = false,
  failed: Failure<CreatePart>['failed'] = [{ name: part }],
): Failure<CreatePart> => ({ part, item, readAfter, failed });
const idempotencyItem = (fingerprint: string, expiresAt = NOW + 10) => ({
  pk: 'x',
  fingerprint,
  requestId: response.requestId,
  expiresAt,
  responseJson: JSON.stringify(response),
});

describe('buildCreateTransaction', () => {
  const write = buildCreateTransaction(tables, request, NOW);
  const items = write.input.TransactItems ?? [];

  it('binds key, contract check, slot, number, request and the limit record in that order, every one conditional', () => {
    const keyOf = (i: (typeof items)[number]) =>
      i.Put
        ? `${String(i.Put.Item?.['pk'])} ${String(i.Put.Item?.['sk'])}`
        : i.Update
          ? `update ${String(i.Update.Key?.['pk'])} ${String(i.Update.Key?.['sk'])}`
          : `check ${String(i.ConditionCheck?.Key?.['contractId'])}`;
    expect(items.map(keyOf)).toEqual([
      `IDEMPOTENCY#customer-anna#${request.idempotencyKey} IDEMPOTENCY`,
      `check ${request.contractId}`,
      `CONTRACT#${request.contractId} ACTIVE`,
      'NUMBER#TR-7KQM-X2PF NUMBER',
      `CONTRACT#${request.contractId} REQUEST#${request.requestId}`,
      `update CONTRACT#${request.contractId} REQUEST_LIMIT#customer-anna`,
    ]);
    for (const item of items)
      expect(item.Put?.ConditionExpression ?? item.ConditionCheck?.ConditionExpression ?? item.Update?.ConditionExpression).toBeTruthy();
  });

  it('asks for the old items of the key, the contract, the slot and the limit record, which explain a refusal', () => {
    expect(items.map((i) => (i.Put ?? i.ConditionCheck ?? i.Update)?.ReturnValuesOnConditionCheckFailure)).toEqual([
      'ALL_OLD',
      'ALL_OLD',
      'ALL_OLD',
      undefined,
      undefined,
      'ALL_OLD',
    ]);
  });

  it('stores the request with its input, status SUBMITTED and the lower-cased contract id', () => {
    expect(partItem(write, 'request')?.Put?.Item).toMatchObject({
      status: 'SUBMITTED',
      contractId: request.contractId,
      customerId: 'customer-anna',
      reasonCode: 'RELOCATION',
      bankDetails: request.input.bankDetails,
    });
  });

  it('names the attempt with the request id, so an SDK retry of a committed attempt is a no-op', () => {
    expect(buildCreateTransaction(tables, request, NOW).input.ClientRequestToken).toBe(request.requestId);
  });
});

describe('explainCreateRefusal: the first condition that failed, with its item', () => {
  it('a used key with its record: the record', () => {
    expect(explainCreateRefusal(failedAt('key', idempotencyItem('fp-1')), request, NOW)).toMatchObject({
      kind: 'key-taken',
      record: { fingerprint: 'fp-1', response },
    });
  });

  it('a used key whose record had gone or expired by the read after: no record', () => {
    expect(explainCreateRefusal(failedAt('key', idempotencyItem('fp-2'), true), request, NOW)).toMatchObject({
      kind: 'key-taken',
      record: { fingerprint: 'fp-2' },
    });
    expect(explainCreateRefusal(failedAt('key', undefined, true), request, NOW)).toEqual({ kind: 'key-taken', record: undefined });
    expect(explainCreateRefusal(failedAt('key', idempotencyItem('fp-2', NOW - 1), true), request, NOW)).toEqual({
      kind: 'key-taken',
      record: undefined,
    });
  });

  it('a key record without a numeric expiresAt is malformed (a 500), not a retry until the budget ends', () => {
    const broken = { ...idempotencyItem('fp-1'), expiresAt: 'tomorrow' };
    expect(() => explainCreateRefusal(failedAt('key', broken), request, NOW)).toThrow(/Malformed idempotency record/);
  });

  it('the contract: the item the condition refused, as it came back', () => {
    const contract = { contractId: request.contractId, customerId: 'customer-boris', status: 'ACTIVE' };
    expect(explainCreateRefusal(failedAt('contract', contract), request, NOW)).toEqual({
      kind: 'contract-condition-failed',
      contract,
      readAfter: false,
    });
  });

  it('the contract read after the failure: said so, found or not', () => {
    const contract = { contractId: request.contractId, customerId: 'customer-anna', status: 'ACTIVE' };
    expect(explainCreateRefusal(failedAt('contract', contract, true), request, NOW)).toEqual({
      kind: 'contract-condition-failed',
      contract,
      readAfter: true,
    });
    expect(explainCreateRefusal(failedAt('contract', undefined, true), request, NOW)).toEqual({
      kind: 'contract-condition-failed',
      contract: undefined,
      readAfter: true,
    });
  });

  it('the slot: the request that holds it and its customer; none when the slot had gone', () => {
    const holder = { requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-other' };
    expect(explainCreateRefusal(failedAt('slot', holder), request, NOW)).toEqual({ kind: 'slot-taken', holder });
    expect(explainCreateRefusal(failedAt('slot', { requestNumber: 'TR-ABCD-EFGH', customerId: 42 }, true), request, NOW)).toEqual({
      kind: 'slot-taken',
      holder: { requestNumber: 'TR-ABCD-EFGH', customerId: undefined },
    });
    expect(explainCreateRefusal(failedAt('slot', undefined, true), request, NOW)).toEqual({ kind: 'slot-taken', holder: undefined });
  });

  it('a taken number; no failed condition, or a request-id clash, is a conflict', () => {
    expect(explainCreateRefusal(failedAt('number'), request, NOW)).toEqual({ kind: 'number-taken' });
    expect(explainCreateRefusal(undefined, request, NOW)).toEqual({ kind: 'conflict' });
    expect(explainCreateRefusal(failedAt('request'), request, NOW)).toEqual({ kind: 'conflict' });
  });

  it('documents: every one refused, by its place in documentIds; the limit record: the times it holds', () => {
    const named = { ...request, input: { ...request.input, documentIds: ['d-0', 'd-1', 'd-2'] } };
    const documents = [
      { name: 'document', at: 1 },
      { name: 'document', at: 2 },
    ] as const;
    expect(explainCreateRefusal(failedAt('document', undefined, false, documents), named, NOW)).toEqual({
      kind: 'documents-refused',
      positions: [1, 2],
    });
    expect(explainCreateRefusal(failedAt('limit', { t0: NOW - 10, t1: NOW - 20, t2: 0 }), named, NOW)).toEqual({
      kind: 'limit-reached',
      createdAtSeconds: [NOW - 10, NOW - 20],
    });
  });
});

describe('a cancellation read back here, then judged by the create (lib/termination)', () => {
  /** The create, on a store whose every write is refused with `failure` and explained as DynamoDbTerminationStore explains it. */
  const createRefusedWith = async (failure: Failure<CreatePart>) => {
    const outcome = await createTerminationRequest(
      {
        store: {
          create: (_newRequest, nowSeconds) => Promise.resolve(explainCreateRefusal(failure, request, nowSeconds)),
          findIdempotencyRecord: () => Promise.resolve(undefined),
        },
        businessTimeZone: 'Europe/Moscow',
        idempotencyTtlSeconds: 3600,
        requestLimit: request.limit,
        budgetMs: 1000,
      },
      {
        customerId: 'customer-anna',
        contractId: request.contractId,
        idempotencyKey: request.idempotencyKey,
        body: { ...request.input },
        context: { ...directContext(), messages: { created: (requestNumber) => requestNumber, withdrawn: String } },
      },
    );
    return outcome.kind === 'refused' ? outcome.refusal : outcome;
  };
  const contract = { contractId: request.contractId, customerId: 'customer-anna', status: 'ACTIVE' };

  it('the contract: judged from its old item; another customer is access-denied', async () => {
    expect(await createRefusedWith(failedAt('contract', { ...contract, customerId: 'customer-boris', status: 'CLOSED' }))).toMatchObject({
      code: 'CONTRACT_ACCESS_DENIED',
    });
    expect(await createRefusedWith(failedAt('contract', { ...contract, status: 'CLOSED' }))).toMatchObject({ code: 'CONTRACT_NOT_ACTIVE' });
  });

  it('a contract the condition refused but the judge accepts is a bug, not a retry loop', async () => {
    await expect(createRefusedWith(failedAt('contract', contract))).rejects.toThrow(/judged acceptable/);
  });

  it("the slot held by another customer's request (the contract changed owner): not named", async () => {
    expect(await createRefusedWith(failedAt('slot', { requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-other' }))).toEqual({
      code: 'ACTIVE_REQUEST_ALREADY_EXISTS',
      problems: [{ field: 'contractId', code: 'activeRequestExists' }],
    });
    expect(await createRefusedWith(failedAt('slot', { requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-anna' }))).toMatchObject({
      code: 'ACTIVE_REQUEST_ALREADY_EXISTS',
      requestNumber: 'TR-ABCD-EFGH',
    });
  });
});
