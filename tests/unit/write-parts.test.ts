import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { failedParts, namedTransaction, partItem, partItems, refusalOf } from '../../lib/dynamodb/write-parts';

const put = (pk: string) => ({ Put: { TableName: 'requests', Item: { pk, sk: 'x' }, ConditionExpression: 'attribute_not_exists(pk)' } });

const write = namedTransaction<'ledger' | 'request' | 'key record'>([
  { name: 'ledger', item: put('ledger') },
  { name: 'request', item: put('request') },
  { name: 'key record', at: 0, item: put('create key') },
  { name: 'key record', at: 1, item: put('withdrawal key') },
]);

const cancelled = (reasons: CancellationReason[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });

describe('a write built from named parts', () => {
  it('finds each part by its name, and among several of a name by its place', () => {
    expect(partItem(write, 'request')?.Put?.Item).toEqual({ pk: 'request', sk: 'x' });
    expect(partItem(write, 'key record', 1)?.Put?.Item).toEqual({ pk: 'withdrawal key', sk: 'x' });
    expect(partItem(write, 'key record')).toBeUndefined();
    expect(partItems(write, 'key record').map((item) => item.Put?.Item?.['pk'])).toEqual(['create key', 'withdrawal key']);
  });

  it('names every part whose condition failed, in order, from the cancellation reasons', () => {
    const reasons = [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }];
    expect(failedParts(write, reasons).map(({ part, index }) => ({ part, index }))).toEqual([
      { part: { name: 'request' }, index: 1 },
      { part: { name: 'key record', at: 1 }, index: 3 },
    ]);
    expect(refusalOf(write, cancelled(reasons))).toBe('refused by: request, key record 1');
  });

  it('says another write got in the way when no condition failed, and nothing of an error that is no refusal', () => {
    expect(refusalOf(write, cancelled([{ Code: 'None' }, { Code: 'TransactionConflict' }, { Code: 'None' }, { Code: 'None' }]))).toBe(
      'another write got in the way',
    );
    expect(refusalOf(write, new Error('throttled'))).toBeUndefined();
  });
});
