import { describe, expect, it } from 'vitest';
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { buildCreateTransaction, explainCancellation } from '../../lib/dynamodb/create-transaction';
import { contractConditionFor } from '../../lib/termination/contract-rules';
import { createTerminationRequest } from '../../lib/termination/create-termination-request';
import type { NewRequest } from '../../lib/termination/ports';
import { readAnswering } from '../support/consistent-read';

const tables = { requests: 'requests', contracts: 'contracts' };
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
};

const none: CancellationReason = { Code: 'None' };
const failed = (item?: Record<string, unknown>): CancellationReason => ({
  Code: 'ConditionalCheckFailed',
  ...(item ? { Item: marshall(item) } : {}),
});
const idempotencyItem = (fingerprint: string, expiresAt = NOW + 10) => ({
  pk: 'x',
  fingerprint,
  requestId: response.requestId,
  expiresAt,
  responseJson: JSON.stringify(response),
});

describe('buildCreateTransaction', () => {
  const items = buildCreateTransaction(tables, request, NOW).TransactItems ?? [];

  it('binds key, contract check, slot, number and request in that order, every one conditional', () => {
    const keyOf = (i: (typeof items)[number]) =>
      i.Put ? `${String(i.Put.Item?.['pk'])} ${String(i.Put.Item?.['sk'])}` : `check ${String(i.ConditionCheck?.Key?.['contractId'])}`;
    expect(items.map(keyOf)).toEqual([
      `IDEMPOTENCY#customer-anna#${request.idempotencyKey} IDEMPOTENCY`,
      `check ${request.contractId}`,
      `CONTRACT#${request.contractId} ACTIVE`,
      'NUMBER#TR-7KQM-X2PF NUMBER',
      `CONTRACT#${request.contractId} REQUEST#${request.requestId}`,
    ]);
    for (const item of items) expect(item.Put?.ConditionExpression ?? item.ConditionCheck?.ConditionExpression).toBeTruthy();
  });

  it("checks the contract against the condition the create hands over: the caller's, ACTIVE, an end date from the desired date to 2999-12-31", () => {
    expect(items[1]?.ConditionCheck).toMatchObject({
      TableName: 'contracts',
      Key: { contractId: request.contractId },
      ExpressionAttributeValues: { ':customerId': 'customer-anna', ':active': 'ACTIVE', ':desired': '2030-06-30', ':latest': '2999-12-31' },
    });
  });

  it('lets an expired key be taken again: the key condition compares expiresAt with now', () => {
    const key = items[0]?.Put;
    expect(key?.ConditionExpression).toBe('attribute_not_exists(pk) OR expiresAt <= :now');
    expect(key?.ExpressionAttributeValues).toEqual({ ':now': NOW });
    expect(key?.Item).toMatchObject({ fingerprint: 'fp-1', expiresAt: NOW + 86_400, responseJson: JSON.stringify(response) });
  });

  it('asks for the old items of the key, the contract and the slot, which explain a refusal', () => {
    expect(items.map((i) => (i.Put ?? i.ConditionCheck)?.ReturnValuesOnConditionCheckFailure)).toEqual([
      'ALL_OLD',
      'ALL_OLD',
      'ALL_OLD',
      undefined,
      undefined,
    ]);
  });

  it('stores the request with its input, status SUBMITTED and the lower-cased contract id', () => {
    expect(items[4]?.Put?.Item).toMatchObject({
      status: 'SUBMITTED',
      contractId: request.contractId,
      customerId: 'customer-anna',
      reasonCode: 'RELOCATION',
      bankDetails: request.input.bankDetails,
    });
  });

  it('names the attempt with the request id, so an SDK retry of a committed attempt is a no-op', () => {
    expect(buildCreateTransaction(tables, request, NOW).ClientRequestToken).toBe(request.requestId);
  });
});

describe('explainCancellation: the first condition that failed, with its item', () => {
  it('a used key with its record: the record, whatever else failed, read no further', async () => {
    const { read, asked } = readAnswering();
    const outcome = await explainCancellation(
      [failed(idempotencyItem('fp-1')), failed(), failed({ requestNumber: 'TR-X' })],
      request,
      NOW,
      read,
    );
    expect(outcome).toMatchObject({ kind: 'key-taken', record: { fingerprint: 'fp-1', response } });
    expect(asked).toEqual([]);
  });

  it('a used key without its old item: one consistent read of the key; gone or expired by then, no record', async () => {
    const key = { pk: `IDEMPOTENCY#customer-anna#${request.idempotencyKey}`, sk: 'IDEMPOTENCY' };
    const found = readAnswering(idempotencyItem('fp-2'));
    expect(await explainCancellation([failed()], request, NOW, found.read)).toMatchObject({
      kind: 'key-taken',
      record: { fingerprint: 'fp-2' },
    });
    expect(found.asked).toEqual([{ table: 'requests', key }]);
    expect(await explainCancellation([failed()], request, NOW, readAnswering().read)).toEqual({ kind: 'key-taken', record: undefined });
    const expired = readAnswering(idempotencyItem('fp-2', NOW - 1));
    expect(await explainCancellation([failed()], request, NOW, expired.read)).toEqual({ kind: 'key-taken', record: undefined });
  });

  it('a key record without a numeric expiresAt is malformed (a 500), not a retry until the budget ends', async () => {
    const broken = { ...idempotencyItem('fp-1'), expiresAt: 'tomorrow' };
    await expect(explainCancellation([failed(broken)], request, NOW, readAnswering().read)).rejects.toThrow(/Malformed idempotency record/);
  });

  it('the contract: the item the condition refused, as it came back', async () => {
    const contract = { contractId: request.contractId, customerId: 'customer-boris', status: 'ACTIVE' };
    const { read, asked } = readAnswering();
    expect(await explainCancellation([none, failed(contract)], request, NOW, read)).toEqual({
      kind: 'contract-condition-failed',
      contract,
      readAfter: false,
    });
    expect(asked).toEqual([]);
  });

  it('the contract without its old item: read it, and say it was read after', async () => {
    const contract = { contractId: request.contractId, customerId: 'customer-anna', status: 'ACTIVE' };
    const { read, asked } = readAnswering(contract);
    expect(await explainCancellation([none, failed()], request, NOW, read)).toEqual({
      kind: 'contract-condition-failed',
      contract,
      readAfter: true,
    });
    expect(asked).toEqual([{ table: 'contracts', key: { contractId: request.contractId } }]);
    expect(await explainCancellation([none, failed()], request, NOW, readAnswering().read)).toEqual({
      kind: 'contract-condition-failed',
      contract: undefined,
      readAfter: true,
    });
  });

  it('the slot: the request that holds it and its customer, or reads the slot when its item is missing', async () => {
    const holder = { requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-other' };
    expect(await explainCancellation([none, none, failed(holder)], request, NOW, readAnswering().read)).toEqual({
      kind: 'slot-taken',
      holder,
    });
    const { read, asked } = readAnswering({ requestNumber: 'TR-ABCD-EFGH', customerId: 42 });
    expect(await explainCancellation([none, none, failed()], request, NOW, read)).toEqual({
      kind: 'slot-taken',
      holder: { requestNumber: 'TR-ABCD-EFGH', customerId: undefined },
    });
    expect(asked).toEqual([{ table: 'requests', key: { pk: `CONTRACT#${request.contractId}`, sk: 'ACTIVE' } }]);
    expect(await explainCancellation([none, none, failed()], request, NOW, readAnswering().read)).toEqual({
      kind: 'slot-taken',
      holder: undefined,
    });
  });

  it('a taken number; a conflict or a request-id clash is a conflict', async () => {
    const { read } = readAnswering();
    expect(await explainCancellation([none, none, none, failed()], request, NOW, read)).toEqual({ kind: 'number-taken' });
    expect(await explainCancellation([none, { Code: 'TransactionConflict' }], request, NOW, read)).toEqual({ kind: 'conflict' });
    expect(await explainCancellation([none, none, none, none, failed()], request, NOW, read)).toEqual({ kind: 'conflict' });
  });
});

describe('a cancellation read back here, then judged by the create (lib/termination)', () => {
  /** The create, on a store whose every write is cancelled with `reasons` and read back as DynamoDbTerminationStore reads it. */
  const createCancelledWith = async (...reasons: CancellationReason[]) => {
    const outcome = await createTerminationRequest(
      {
        store: {
          create: (newRequest, nowSeconds) => explainCancellation(reasons, newRequest, nowSeconds, readAnswering().read),
          findIdempotencyRecord: () => Promise.resolve(undefined),
        },
        businessTimeZone: 'Europe/Moscow',
        idempotencyTtlSeconds: 3600,
        budgetMs: 1000,
      },
      {
        customerId: 'customer-anna',
        contractId: request.contractId,
        idempotencyKey: request.idempotencyKey,
        body: { ...request.input },
        createdMessage: (requestNumber) => requestNumber,
        edgeProblems: [],
      },
    );
    return outcome.kind === 'refused' ? outcome.refusal : outcome;
  };
  const contract = { contractId: request.contractId, customerId: 'customer-anna', status: 'ACTIVE' };

  it('the contract: judged from its old item; another customer is access-denied', async () => {
    expect(await createCancelledWith(none, failed({ ...contract, customerId: 'customer-boris', status: 'CLOSED' }))).toMatchObject({
      code: 'CONTRACT_ACCESS_DENIED',
    });
    expect(await createCancelledWith(none, failed({ ...contract, status: 'CLOSED' }))).toMatchObject({ code: 'CONTRACT_NOT_ACTIVE' });
  });

  it('a contract the condition refused but the judge accepts is a bug, not a retry loop', async () => {
    await expect(createCancelledWith(none, failed(contract))).rejects.toThrow(/judged acceptable/);
  });

  it("the slot held by another customer's request (the contract changed owner): not named", async () => {
    expect(await createCancelledWith(none, none, failed({ requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-other' }))).toEqual({
      code: 'ACTIVE_REQUEST_ALREADY_EXISTS',
      problems: [{ field: 'contractId', code: 'activeRequestExists' }],
    });
    expect(await createCancelledWith(none, none, failed({ requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-anna' }))).toMatchObject({
      code: 'ACTIVE_REQUEST_ALREADY_EXISTS',
      requestNumber: 'TR-ABCD-EFGH',
    });
  });
});
