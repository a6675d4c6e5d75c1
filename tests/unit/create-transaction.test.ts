import { describe, expect, it } from 'vitest';
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { buildCreateTransaction, explainCancellation } from '../../lib/dynamodb/create-transaction';
import type { NewRequest } from '../../lib/termination/ports';

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

describe('explainCancellation', () => {
  it('a used key with its record: the record, whatever else failed', () => {
    const outcome = explainCancellation([failed(idempotencyItem('fp-1')), failed(), failed({ requestNumber: 'TR-X' })], request, NOW);
    expect(outcome).toMatchObject({ kind: 'key-used', record: { fingerprint: 'fp-1', response } });
  });

  it('a used key without its old item, or with an expired one: read the key, then decide', () => {
    for (const reason of [failed(), failed(idempotencyItem('fp-1', NOW - 1))]) {
      const outcome = explainCancellation([reason], request, NOW);
      expect(outcome).toMatchObject({
        kind: 'read',
        table: 'requests',
        key: { pk: `IDEMPOTENCY#customer-anna#${request.idempotencyKey}`, sk: 'IDEMPOTENCY' },
      });
      if (outcome.kind !== 'read') continue;
      expect(outcome.decide(idempotencyItem('fp-2'))).toMatchObject({ kind: 'key-used', record: { fingerprint: 'fp-2' } });
      expect(outcome.decide(undefined)).toEqual({ kind: 'retry' });
    }
  });

  it('a key record without a numeric expiresAt is malformed (a 500), not a retry until the budget ends', () => {
    const broken = { ...idempotencyItem('fp-1'), expiresAt: 'tomorrow' };
    expect(() => explainCancellation([failed(broken)], request, NOW)).toThrow(/Malformed idempotency record/);
  });

  it('the contract: judged from its old item; another customer is access-denied', () => {
    const contract = { contractId: request.contractId, customerId: 'customer-boris', status: 'ACTIVE' };
    expect(explainCancellation([none, failed(contract)], request, NOW)).toEqual({ kind: 'contract', verdict: { kind: 'access-denied' } });
    const closed = { ...contract, customerId: 'customer-anna', status: 'CLOSED' };
    expect(explainCancellation([none, failed(closed)], request, NOW)).toEqual({ kind: 'contract', verdict: { kind: 'not-active' } });
  });

  it('the contract without its old item: read it; gone means not found', () => {
    const outcome = explainCancellation([none, failed()], request, NOW);
    expect(outcome).toMatchObject({ kind: 'read', table: 'contracts', key: { contractId: request.contractId } });
    if (outcome.kind === 'read') {
      expect(outcome.decide(undefined)).toEqual({ kind: 'contract', verdict: { kind: 'not-found' } });
      // Fine by now: whatever refused it has changed since; try again.
      expect(outcome.decide({ customerId: 'customer-anna', status: 'ACTIVE' })).toEqual({ kind: 'retry' });
    }
  });

  it('a contract the condition refused but the judge accepts is a bug, not a retry loop', () => {
    const fine = { contractId: request.contractId, customerId: 'customer-anna', status: 'ACTIVE' };
    expect(() => explainCancellation([none, failed(fine)], request, NOW)).toThrow(/judged acceptable/);
  });

  it('the slot: names the request that holds it, or reads the slot when its item is missing', () => {
    expect(
      explainCancellation([none, none, failed({ requestNumber: 'TR-ABCD-EFGH', customerId: request.customerId })], request, NOW),
    ).toEqual({ kind: 'slot-taken', requestNumber: 'TR-ABCD-EFGH' });
    const outcome = explainCancellation([none, none, failed()], request, NOW);
    expect(outcome).toMatchObject({ kind: 'read', key: { pk: `CONTRACT#${request.contractId}`, sk: 'ACTIVE' } });
    if (outcome.kind !== 'read') throw new Error('expected a read');
    expect(outcome.decide(undefined)).toEqual({ kind: 'retry' });
    expect(outcome.decide({ requestNumber: 'TR-ABCD-EFGH', customerId: request.customerId })).toEqual({
      kind: 'slot-taken',
      requestNumber: 'TR-ABCD-EFGH',
    });
  });

  it("the slot held by another customer's request (the contract changed owner): not named (issue 15.6)", () => {
    expect(
      explainCancellation([none, none, failed({ requestNumber: 'TR-ABCD-EFGH', customerId: 'customer-other' })], request, NOW),
    ).toEqual({
      kind: 'slot-taken',
    });
  });

  it('a taken number draws again; a conflict or a request-id clash retries', () => {
    expect(explainCancellation([none, none, none, failed()], request, NOW)).toEqual({ kind: 'number-taken' });
    expect(explainCancellation([none, { Code: 'TransactionConflict' }], request, NOW)).toEqual({ kind: 'retry' });
    expect(explainCancellation([none, none, none, none, failed()], request, NOW)).toEqual({ kind: 'retry' });
  });
});
