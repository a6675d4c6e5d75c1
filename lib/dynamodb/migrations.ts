import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backfill } from './backfill';
import { moveLegacyLimitRecords } from './limit-record-move';

/*
 * The one-off migrations of the requests table, in the order they were added: `npm run migrate`
 * (scripts/migrate.ts) runs them all, in this order, after a deploy (docs/deploy.md). Each finds
 * what is still to do by a scan of the table and does it in conditional writes, so it is safe
 * beside live traffic and a run after it has done its work finds nothing: every one of them is
 * run every time, and one with nothing left to do reports zeros. A new one goes at the end; one
 * that every stage has run can leave the list, with its module.
 */

/** What a migration did, counted (each module's own report). */
export type MigrationReport = Readonly<Record<string, number>>;

export interface Migration {
  /** Its name in npm run migrate's report. */
  name: string;
  /** What it puts right, for the operator, with the record that explains it. */
  what: string;
  run: (doc: DynamoDBDocumentClient, table: string, nowSeconds: number) => Promise<MigrationReport>;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'limit-record-key',
    what: 'limit records moved from LIMIT#<customerId> to REQUEST_LIMIT#<customerId> (docs/decisions/0020-request-limit.md)',
    run: async (doc, table, nowSeconds) => ({ ...(await moveLegacyLimitRecords(doc, table, nowSeconds)) }),
  },
  {
    name: 'request-indexes',
    what: 'requestedBy on requests made before the index by customer, number items cut to the number (docs/decisions/0026-a-request-by-its-number.md)',
    run: async (doc, table) => ({ ...(await backfill(doc, table)) }),
  },
];
