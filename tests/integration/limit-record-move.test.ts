import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { legacyLimitKeyOf, limitKeyOf } from '../../lib/dynamodb/keys';
import { LIMIT_KIND } from '../../lib/dynamodb/request-limit';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler } from '../support/handler';
import { useFreshTables, type TestTables } from '../support/local-tables';
import { runMigrate } from '../support/migrate';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';

/*
 * Limit records written under their earlier key (`LIMIT#<customerId>`) moved to where the list's
 * one Query reads them (lib/dynamodb/limit-record-move.ts; docs/decisions/0020-request-limit.md),
 * by npm run migrate as an operator runs it after a deploy (docs/deploy.md), against DynamoDB
 * Local: merged with a record a create made since, the earlier one deleted, an expired one only
 * deleted; and the create and the list then count them.
 */

const anna = DEMO_CUSTOMERS.anna;
const DAY = 86_400;
let tables: TestTables;

beforeAll(async () => {
  tables = await useFreshTables();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);
/** What npm run migrate says this migration did. */
async function move(): Promise<Record<string, unknown>> {
  const { code, report, said } = await runMigrate(tables);
  expect(code, said).toBe(0);
  return report['limit-record-key'] ?? {};
}
const read = async (key: { pk: string; sk: string }) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.requests, Key: key, ConsistentRead: true }))).Item;

/** A record as the version before wrote it: below the requests, no customerId. */
async function legacyRecord(contractId: string, customerId: string, times: number[], expiresAt: number): Promise<void> {
  await tables.doc.send(
    new PutCommand({
      TableName: tables.names.requests,
      Item: {
        ...legacyLimitKeyOf(contractId, customerId),
        kind: LIMIT_KIND,
        expiresAt,
        ...Object.fromEntries(times.map((t, i) => [`t${i}`, t])),
      },
    }),
  );
}

describe('npm run migrate: limit records under their earlier key', () => {
  it('merges an earlier record into the one a create made since, deletes it, and the list says when in one call', async () => {
    const contractId = await newContract(tables);
    const t = nowSeconds();
    // Four requests before the deploy (the limit is five in 30 days), then one since: the fifth.
    await legacyRecord(contractId, anna.customerId, [t - 400, t - 300, t - 200, t - 100], t - 100 + 30 * DAY);
    const made = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    expect(made.status).toBe(201);

    expect(await move()).toMatchObject({ moved: 1 });
    expect(await read(legacyLimitKeyOf(contractId, anna.customerId))).toBeUndefined();
    const moved = await read(limitKeyOf(contractId, anna.customerId));
    expect(moved).toMatchObject({ customerId: anna.customerId, kind: LIMIT_KIND, t1: t - 100, t2: t - 200, t3: t - 300, t4: t - 400 });
    expect(moved?.['expiresAt']).toBeGreaterThanOrEqual(t + 30 * DAY);

    const uninstall = installSdkRecorder();
    try {
      const listed = await callsDuring('list', () => callHandler({ method: 'GET', contractId }));
      expect(listed.answer.status).toBe(200);
      expect(listed.answer.body['nextRequestAllowedAt']).toBe(new Date((t - 400 + 30 * DAY) * 1000).toISOString());
      expect(listed.calls.map((c) => c.operation)).toEqual(['dynamodb:Query']);
    } finally {
      uninstall();
    }
    // A second run finds nothing to move.
    expect(await move()).toEqual({ moved: 0, expired: 0 });
  });

  it('moves a record no create has touched since, and only deletes an expired one', async () => {
    const [kept, gone] = [await newContract(tables), await newContract(tables)];
    const customerId = `customer-${randomUUID()}`;
    const t = nowSeconds();
    await legacyRecord(kept, customerId, [t - 60], t - 60 + 30 * DAY);
    await legacyRecord(gone, customerId, [t - 31 * DAY], t - DAY);
    expect(await move()).toEqual({ moved: 1, expired: 1 });
    expect(await read(limitKeyOf(kept, customerId))).toEqual({
      ...limitKeyOf(kept, customerId),
      customerId,
      kind: LIMIT_KIND,
      expiresAt: t - 60 + 30 * DAY,
      t0: t - 60,
    });
    expect(await read(limitKeyOf(gone, customerId))).toBeUndefined();
    expect(await read(legacyLimitKeyOf(gone, customerId))).toBeUndefined();
  });
});
