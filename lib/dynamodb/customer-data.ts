import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isStatus, type Status } from '../api-model/schemas';
import type { ErasureRules } from '../termination/ports/erasure';
import { SECONDS_PER_DAY } from '../time';
import { isTableKey, ledgerItemOf, ledgerPartition } from './erasure-ledger';
import { keyRecordEmptied, keyRecordState, keyRecordSummary, type Item } from './items';
import { CUSTOMER_INDEX } from './customer-requests';
import { isRequestItem, requestErasure, requestIdsOf, requestRefsOf } from './request-item';
import { namedTransaction, refusalOf, type NamedTransaction } from './write-parts';
import { idempotencyKeyOf, legacyLimitKeyOf, limitKeyOf, numberKeyOf, requestKeyOf, withdrawalKeyOf, type TableKey } from './keys';
import { RETRY, triesBy } from '../retry';
import { batchGetFor, requestReader, type RequestIds } from './request-reads';

/*
 * A customer's rights over what this service holds of them (docs/decisions/0025-erasure.md),
 * for the operator commands `npm run subject-access` and `npm run erase`. Nothing here scans the
 * requests table: the customer's requests come from the index by customer, each read again
 * consistently by its key, and everything else that names them from the request items
 * themselves (their contract's limit record, their key records, their number).
 *
 * An erasure removes a final request and all that names it in one transaction whose every
 * condition holds only while the request is final and the customer's: an active request can
 * never be erased. The key records are not deleted but emptied (their body and request id go,
 * their fingerprint and expiry stay), so a create or withdrawal retried with the same key within
 * its 24 h is told the request is gone instead of making another or answering with the erased
 * body. The erasure's keys and time go to the ledger in the same transaction (erasure-ledger.ts), a
 * table of its own that a point-in-time restore of the requests table does not roll back: an
 * entry exists exactly when its keys were erased, which is what the publisher tells the back
 * office from the ledger's stream.
 */

export interface CustomerDataTables {
  requests: string;
  ledger: string;
}

/** The key records a request item names: its create's, and its withdrawal's when it was withdrawn. */
function keyRecordsOf(request: Item, customerId: string): TableKey[] {
  const { idempotencyKey: create, withdrawalKey: withdrawal } = requestRefsOf(request);
  return [
    ...(create === undefined ? [] : [idempotencyKeyOf(customerId, create)]),
    ...(withdrawal === undefined ? [] : [withdrawalKeyOf(customerId, withdrawal)]),
  ];
}

/** A customer's limit record on a contract, and where it was kept before it moved above the requests (keys.ts). */
const limitKeysOf = (contractId: string, customerId: string): TableKey[] => [
  limitKeyOf(contractId, customerId),
  legacyLimitKeyOf(contractId, customerId),
];

export interface SubjectAccessDocument {
  customerId: string;
  generatedAt: string;
  /** Each request item as stored. */
  requests: Item[];
  /** The customer's limit record on each contract they asked about. */
  limitRecords: Item[];
  /** The key records of their calls: what the key was bound to (its fingerprint) and when, never the answer kept. */
  keyRecords: { key: TableKey; kind: unknown; fingerprint: unknown; requestId: unknown; createdAt: unknown; expiresAt: unknown }[];
}

export class CustomerData {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tables: CustomerDataTables,
    private readonly rules: ErasureRules,
  ) {}

  private erasable(status: unknown): status is Status {
    return isStatus(status) && this.rules.erasable.includes(status);
  }

  /** The customer's requests, each read again by its key, consistently: the index is eventually consistent. */
  private async requestsOf(customerId: string): Promise<Item[]> {
    const ids: RequestIds[] = [];
    let from: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tables.requests,
          IndexName: CUSTOMER_INDEX.name,
          KeyConditionExpression: '#customer = :customer',
          ExpressionAttributeNames: { '#customer': CUSTOMER_INDEX.partitionKey },
          ExpressionAttributeValues: { ':customer': customerId },
          ExclusiveStartKey: from,
        }),
      );
      ids.push(...(page.Items ?? []).flatMap((item) => requestIdsOf(item) ?? []));
      from = page.LastEvaluatedKey;
    } while (from !== undefined);
    const read = requestReader(batchGetFor(this.doc), this.tables.requests, triesBy(RETRY.operator, undefined));
    const stored = await read(ids);
    return ids.flatMap((request) => {
      const item = stored.itemOf(request);
      if (item === 'unread') throw new Error(`DynamoDB left request ${request.requestId} unread: run the command again`);
      // The index may still list a request erased a moment ago; its item is the truth.
      return item !== undefined && requestRefsOf(item).customerId === customerId ? [item] : [];
    });
  }

  private async get(key: TableKey): Promise<Item | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.tables.requests, Key: { ...key }, ConsistentRead: true }))).Item;
  }

  /** Everything this service holds about the customer, as one document. */
  async subjectAccess(customerId: string, now: Date = new Date()): Promise<SubjectAccessDocument> {
    const requests = await this.requestsOf(customerId);
    const contracts = [...new Set(requests.flatMap((r) => requestIdsOf(r)?.contractId ?? []))];
    const limits = await Promise.all(contracts.flatMap((contractId) => limitKeysOf(contractId, customerId).map((key) => this.get(key))));
    const keys = requests.flatMap((r) => keyRecordsOf(r, customerId));
    const records = await Promise.all(keys.map(async (key) => ({ key, item: await this.get(key) })));
    return {
      customerId,
      generatedAt: now.toISOString(),
      requests,
      limitRecords: limits.filter((item): item is Item => item !== undefined),
      keyRecords: records.flatMap(({ key, item }) => (item === undefined ? [] : [{ key, ...keyRecordSummary(item) }])),
    };
  }

  /** Erases every final request of the customer and all that names it; leaves the active ones, saying why. */
  async erase(customerId: string, options: { ledgerDays: number; now?: Date }): Promise<ErasureReport> {
    const now = options.now ?? new Date();
    const requests = await this.requestsOf(customerId);
    const report: ErasureReport = { customerId, erasedAt: now.toISOString(), erased: [], kept: [] };
    for (const request of requests) {
      const { requestId, contractId, requestNumber, status } = requestRefsOf(request);
      const ids = { requestId, contractId };
      if (!this.erasable(status)) {
        report.kept.push({ ...ids, requestNumber, status: String(status), why: this.rules.keptBecause });
        continue;
      }
      const keyRecords = [];
      for (const key of keyRecordsOf(request, customerId))
        if (keyRecordState(await this.get(key))?.requestId === ids.requestId) keyRecords.push(key);
      const keys = [requestKeyOf(ids.contractId, ids.requestId), numberKeyOf(requestNumber), ...keyRecords];
      const entry = ledgerItemOf({ ...ids, requestNumber, keys }, now, options.ledgerDays);
      await this.eraseRequest(customerId, ids, requestNumber, keyRecords, now, entry);
      report.erased.push({ ...ids, requestNumber, status, keys });
    }
    // A limit record counts the customer's requests on a contract: it goes where no active request of theirs remains.
    const activeContracts = new Set(report.kept.map((k) => k.contractId));
    for (const contractId of new Set(report.erased.map((e) => e.contractId))) {
      if (activeContracts.has(contractId)) continue;
      for (const key of limitKeysOf(contractId, customerId)) {
        if ((await this.get(key)) === undefined) continue;
        await this.send(
          namedTransaction<'ledger' | 'limit record'>([
            {
              name: 'ledger',
              item: { Put: { TableName: this.tables.ledger, Item: ledgerItemOf({ contractId, keys: [key] }, now, options.ledgerDays) } },
            },
            { name: 'limit record', item: { Delete: { TableName: this.tables.requests, Key: { ...key } } } },
          ]),
          `The limit record ${key.sk} on contract ${contractId}`,
        );
        report.erased.push({ contractId, requestId: undefined, requestNumber: undefined, status: undefined, keys: [key] });
      }
    }
    return report;
  }

  /** One transaction: the ledger's entry, the request (only while final and the customer's), its number, its key records emptied. */
  private async eraseRequest(
    customerId: string,
    ids: RequestIds,
    requestNumber: string,
    keyRecords: TableKey[],
    now: Date,
    ledgerEntry: Item,
  ) {
    await this.send(
      namedTransaction<'ledger' | 'request' | 'number' | 'key record'>([
        { name: 'ledger', item: { Put: { TableName: this.tables.ledger, Item: ledgerEntry } } },
        {
          name: 'request',
          item: {
            Delete: requestErasure(this.tables.requests, requestKeyOf(ids.contractId, ids.requestId), this.rules.erasable, customerId),
          },
        },
        {
          name: 'number',
          item: {
            Delete: {
              TableName: this.tables.requests,
              Key: { ...numberKeyOf(requestNumber) },
              // The number alone (0026), or as written before it, naming this request.
              ConditionExpression: 'attribute_not_exists(requestId) OR requestId = :requestId',
              ExpressionAttributeValues: { ':requestId': ids.requestId },
            },
          },
        },
        ...keyRecords.map((key, at) => ({
          name: 'key record' as const,
          at,
          item: { Update: keyRecordEmptied(this.tables.requests, key, ids.requestId, now) },
        })),
      ]),
      `Request ${requestNumber}`,
    );
  }

  /** Sends an erasing transaction; one refused says which of its parts refused it, and that nothing was erased. */
  private async send(write: NamedTransaction<string>, what: string): Promise<void> {
    try {
      await this.doc.send(new TransactWriteCommand(write.input));
    } catch (error) {
      const refusal = refusalOf(write, error);
      if (refusal === undefined) throw error;
      throw new Error(`${what} changed while it was being erased (nothing was; ${refusal}): run the command again`, { cause: error });
    }
  }

  /** The erasures recorded since `since`: their keys erased again wherever a restore brought them back (never an active request). */
  async reapplySince(since: Date, now: Date = new Date()): Promise<ReapplyReport> {
    const report: ReapplyReport = { since: since.toISOString(), entries: 0, erasedAgain: [], keptActive: [] };
    for (let day = new Date(since.toISOString().slice(0, 10)); day <= now; day = new Date(day.getTime() + SECONDS_PER_DAY * 1000)) {
      let from: Record<string, unknown> | undefined;
      do {
        const page = await this.doc.send(
          new QueryCommand({
            TableName: this.tables.ledger,
            KeyConditionExpression: 'pk = :day AND sk >= :since',
            ExpressionAttributeValues: { ':day': ledgerPartition(day), ':since': since.toISOString() },
            ConsistentRead: true,
            ExclusiveStartKey: from,
          }),
        );
        for (const entry of page.Items ?? []) {
          report.entries++;
          await this.eraseAgain(entry, now, report);
        }
        from = page.LastEvaluatedKey;
      } while (from !== undefined);
    }
    return report;
  }

  private async eraseAgain(entry: Item, now: Date, report: ReapplyReport) {
    const { keys: listed, requestId: named } = entry;
    const keys = Array.isArray(listed) ? listed.filter(isTableKey) : [];
    const requestId = typeof named === 'string' ? named : undefined;
    for (const key of keys) {
      const item = await this.get(key);
      if (item === undefined) continue;
      const request = isRequestItem(item);
      const { status } = requestRefsOf(item);
      if (request && !this.erasable(status)) {
        // Restored to a moment before it was final: the customer's live instruction again. Never erased; the officer decides.
        report.keptActive.push({ key, status: String(status) });
        continue;
      }
      const keyRecord = keyRecordState(item);
      try {
        if (keyRecord !== undefined && requestId !== undefined) {
          if (keyRecord.erased) continue;
          await this.doc.send(new UpdateCommand(keyRecordEmptied(this.tables.requests, key, requestId, now)));
        } else {
          await this.doc.send(
            new DeleteCommand(
              // The request again only while final: a write between the read and this delete cannot make it erase an active one.
              request
                ? requestErasure(this.tables.requests, key, this.rules.erasable)
                : { TableName: this.tables.requests, Key: { ...key } },
            ),
          );
        }
        report.erasedAgain.push(key);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  }
}

export interface ErasureReport {
  customerId: string;
  erasedAt: string;
  erased: {
    contractId: string;
    requestId: string | undefined;
    requestNumber: string | undefined;
    status: Status | undefined;
    keys: TableKey[];
  }[];
  kept: { contractId: string; requestId: string; requestNumber: string; status: string; why: string }[];
}

export interface ReapplyReport {
  since: string;
  entries: number;
  erasedAgain: TableKey[];
  keptActive: { key: TableKey; status: string }[];
}
