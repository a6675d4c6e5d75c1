import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbTerminationStore } from '../../lib/dynamodb/termination-table';
import { judgeContract, MalformedContractError } from '../../lib/termination/contract-rules';
import type { TerminationStore } from '../../lib/termination/ports/store';
import { InMemoryStore } from '../support/in-memory-store';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { newRequest } from '../support/store-contract';

/*
 * What makes a contract acceptable lives in one place, judgeContract and meetsCondition
 * (lib/termination/contract-rules.ts), and once more on purpose as the DynamoDB condition of the
 * create's write (lib/dynamodb/contract-condition.ts), so that a create costs one call. Over
 * generated contracts (statuses, end dates of every shape, malformed ones included, other
 * customers) and desired dates, the condition as DynamoDB Local evaluates it lets a create through
 * exactly when the judge calls the contract ok; the in-memory store, which applies meetsCondition,
 * answers the same.
 */

const CALLER = 'customer-anna';

let tables: TestTables;
let dynamodb: DynamoDbTerminationStore;

beforeAll(async () => {
  tables = await useFreshTables();
  dynamodb = new DynamoDbTerminationStore(tables.doc, tables.names);
});

const isoDate = (from: string, to: string) =>
  fc
    .date({ min: new Date(`${from}T00:00:00Z`), max: new Date(`${to}T00:00:00Z`), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10));

/** Something in place of a date: a real one, one with the wrong shape, or not text at all. */
const endDate = fc.option(
  fc.oneof(
    { weight: 4, arbitrary: isoDate('2020-01-01', '3100-12-31') },
    { weight: 1, arbitrary: fc.constantFrom('2999-12-31', '3000-01-01', '2030-06-30', '2030-06-29', '2030-07-01') },
    // Ten characters that are no date: another separator, no such day, another order.
    {
      weight: 2,
      arbitrary: isoDate('2020-01-01', '3100-12-31').chain((date) =>
        fc.constantFrom(
          date.replaceAll('-', '/'),
          `${date.slice(0, 8)}3${date.at(-1) ?? '0'}`,
          `${date.slice(8)}.${date.slice(5, 7)}.${date.slice(0, 4)}`,
        ),
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 9, maxLength: 11 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 8, maxLength: 10 }) },
    { weight: 1, arbitrary: isoDate('2020-01-01', '2999-12-31').map((date) => `${date.slice(0, 9)}é`) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.constant(['2030-06-30']), fc.constant('')) },
  ),
  { nil: undefined, freq: 8 },
);

/** Mostly the caller's ACTIVE contract, so that the end date is what decides; sometimes a field is missing. */
const contractFields = fc.record(
  {
    customerId: fc.oneof(
      { weight: 8, arbitrary: fc.constant(CALLER) },
      { weight: 1, arbitrary: fc.oneof(fc.constantFrom('customer-boris', ''), fc.integer(), fc.constant(null)) },
    ),
    status: fc.oneof(
      { weight: 8, arbitrary: fc.constant('ACTIVE') },
      { weight: 1, arbitrary: fc.oneof(fc.constantFrom('CLOSED', 'active', 'ACTIVE '), fc.integer(), fc.constant(null), fc.boolean()) },
    ),
    endDate,
  },
  { requiredKeys: ['customerId', 'status', 'endDate'] },
);

/** A contract row: its fields, one of them now and then missing altogether. */
const contractRow = fc
  .tuple(
    contractFields,
    fc.oneof({ weight: 10, arbitrary: fc.constant('none') }, { weight: 1, arbitrary: fc.constantFrom('customerId', 'status') }),
  )
  .map(([fields, missing]) =>
    Object.fromEntries(Object.entries(fields).filter(([name, value]) => name !== missing && value !== undefined)),
  );

/** A desired date as the validator lets it through: any real YYYY-MM-DD, far future included. */
const desired = fc.oneof(isoDate('2020-01-01', '2999-12-31'), isoDate('2999-12-01', '3001-01-31'), fc.constant('9999-12-31'));

type Verdict = 'passes' | 'refused';

/** The judge's verdict: ok passes; a refusal or data it will not judge (a 500) does not. */
function judged(contract: Record<string, unknown>, date: string): Verdict {
  try {
    return judgeContract(contract, CALLER, date).kind === 'ok' ? 'passes' : 'refused';
  } catch (error) {
    if (error instanceof MalformedContractError) return 'refused';
    throw error;
  }
}

/** Whether the store's create went through on this contract: the condition's verdict. */
async function condition(store: TerminationStore, contractId: string, date: string): Promise<Verdict> {
  const outcome = await store.create(newRequest(contractId, { customerId: CALLER, desired: date }), Math.floor(Date.now() / 1000));
  if (outcome.kind === 'created') return 'passes';
  expect(outcome.kind).toBe('contract-condition-failed');
  return 'refused';
}

describe('the contract condition and the judge', () => {
  it('agree on every generated contract: DynamoDB Local lets a create through exactly when the judge calls the contract ok', async () => {
    await fc.assert(
      fc.asyncProperty(contractRow, desired, async (fields, date) => {
        const contractId = randomUUID();
        const contract = { contractId, ...fields };
        await tables.doc.send(new PutCommand({ TableName: tables.names.contracts, Item: contract }));
        const memory = new InMemoryStore();
        memory.addContract(contract);
        const verdict = judged(contract, date);
        expect(await condition(dynamodb, contractId, date)).toBe(verdict);
        expect(await condition(memory, contractId, date)).toBe(verdict);
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['a real date on the desired date', '2030-06-30', 'passes'],
    ['a real date before it', '2030-06-29', 'refused'],
    ['a ten-character text within the bounds, which no check inside a write can tell from a date', '2030/07/01', 'passes'],
    ['a ten-character text after 2999-12-31', '31.12.2045', 'refused'],
    ['ten characters of eleven bytes, compared as text', '2030-07-0é', 'passes'],
    ['nine code points in ten UTF-16 units, which size() counts', '2030-07-\u{1F600}', 'passes'],
  ] as const)('agree on an end date that is %s', async (_what, date, verdict) => {
    const contractId = randomUUID();
    const contract = { contractId, customerId: CALLER, status: 'ACTIVE', endDate: date };
    await tables.doc.send(new PutCommand({ TableName: tables.names.contracts, Item: contract }));
    expect(judged(contract, '2030-06-30')).toBe(verdict);
    expect(await condition(dynamodb, contractId, '2030-06-30')).toBe(verdict);
  });
});
