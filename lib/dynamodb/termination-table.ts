import { ConditionalCheckFailedException, TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { buildDecisionWrite, explainCancelledDecision } from './decision-write';
import { buildCreateTransaction, explainCancellation, type CreateTables } from './create-transaction';
import type { ServiceConfig } from '../config';
import { createDocumentClient } from '../aws/dynamodb-client';
import { isTransientAwsError } from '../aws/transient-errors';
import {
  StoreUnavailableError,
  type Decision,
  type DecisionWriteOutcome,
  type IdempotencyRecord,
  type NewRequest,
  type RequestPage,
  type StatusMove,
  type StoredRequest,
  type TerminationStore,
  type WithdrawalIntent,
  type WithdrawalOutcome,
  type WriteOutcome,
} from '../termination/ports';
import { asIdempotencyRecord, asStoredRequest, type Item, type ReadItem } from './items';
import { requestRefused } from './status-write';
import { buildWithdrawalTransaction, explainWithdrawalCancellation } from './withdrawal-write';
import { idempotencyKeyOf, REQUEST_SORT_PREFIX, requestKeyOf, type TableKey } from './keys';

/** The store of a function's configuration; build it once, at module load. */
export function storeFor(
  config: Pick<ServiceConfig, 'dynamodb' | 'requestsTableName'> & { contractsTableName?: string; documentsTableName?: string },
): TerminationStore {
  return new DynamoDbTerminationStore(createDocumentClient(config.dynamodb), {
    requests: config.requestsTableName,
    // The decision consumer never reads contracts, and only the create checks documents: an
    // empty name fails loudly if another function ever tried.
    contracts: config.contractsTableName ?? '',
    documents: config.documentsTableName ?? '',
  });
}

/** At most this many Queries for one page of a contract that holds other customers' requests too. */
const MAX_QUERIES_PER_PAGE = 4;
/** Items each Query after the first reads (DynamoDB's Limit, before the filter). */
const READ_PER_LATER_QUERY = 100;

/** Throttled, unreachable or too slow: the domain's StoreUnavailableError; anything else as it is. */
async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isTransientAwsError(error)) throw new StoreUnavailableError(error);
    throw error;
  }
}

/**
 * All access to the service's table (and its reads of the contracts table), behind the domain's
 * port. Writes are built as data in create-transaction.ts, decision-write.ts and
 * withdrawal-write.ts, which also read a refused write back as the facts the port reports.
 */
export class DynamoDbTerminationStore implements TerminationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: CreateTables,
  ) {}

  /** One atomic attempt to create the request: one call when it goes through or its reasons carry their items. */
  create(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome> {
    return this.transact(
      buildCreateTransaction(this.tables, request, nowSeconds),
      { kind: 'created' },
      (reasons, read) => explainCancellation(reasons, request, nowSeconds, read),
      abortSignal,
    );
  }

  /**
   * One attempt to apply a back-office decision: one call when it applies; a refusal whose
   * cause did not come back with it costs one consistent read of the request.
   */
  applyDecision(decision: Decision, move: StatusMove, appliedAt: string): Promise<DecisionWriteOutcome> {
    const write = buildDecisionWrite(this.tables, decision, move, appliedAt);
    if (write.kind === 'transaction') {
      return this.transact<DecisionWriteOutcome>(write.input, { kind: 'applied' }, (reasons, read) =>
        explainCancelledDecision(reasons, decision, read),
      );
    }
    return guarded(async () => {
      try {
        await this.client.send(new UpdateCommand(write.input));
        return { kind: 'applied' };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return requestRefused(error.Item, decision, this.reader());
        throw error;
      }
    });
  }

  withdraw(intent: WithdrawalIntent, nowSeconds: number, abortSignal?: AbortSignal): Promise<WithdrawalOutcome> {
    return this.transact(
      buildWithdrawalTransaction(this.tables, intent, nowSeconds),
      { kind: 'withdrawn' },
      (reasons, read) => explainWithdrawalCancellation(reasons, intent, nowSeconds, read),
      abortSignal,
    );
  }

  /**
   * Sends one transaction: `done` when it commits, the facts `explain` reads from its
   * cancellation reasons when a condition refused it, `conflict` when another write got in the way.
   */
  private transact<Outcome>(
    input: TransactWriteCommandInput,
    done: Outcome,
    explain: (reasons: CancellationReason[], read: ReadItem) => Promise<Outcome>,
    abortSignal?: AbortSignal,
  ): Promise<Outcome | { kind: 'conflict' }> {
    return guarded(async (): Promise<Outcome | { kind: 'conflict' }> => {
      try {
        await this.client.send(new TransactWriteCommand(input), { abortSignal });
        return done;
      } catch (error) {
        if (error instanceof TransactionCanceledException) return explain(error.CancellationReasons ?? [], this.reader(abortSignal));
        // A mismatch is another call with the same token and other values (a withdrawal with the
        // same key in the same millisecond, in another language): tried again, its key answers.
        if (error instanceof Error && ['TransactionConflictException', 'IdempotentParameterMismatchException'].includes(error.name)) {
          return { kind: 'conflict' };
        }
        throw error;
      }
    });
  }

  /** How an explanation reads an item its failure did not return: consistently. */
  private reader(abortSignal?: AbortSignal): ReadItem {
    return (table, key) => this.readConsistently(this.tables[table], key, abortSignal);
  }

  /** Reads the key's record, skipping one that has expired. */
  async findIdempotencyRecord(
    customerId: string,
    idempotencyKey: string,
    nowSeconds: number,
    abortSignal?: AbortSignal,
  ): Promise<IdempotencyRecord | undefined> {
    return guarded(async () =>
      asIdempotencyRecord(
        await this.readConsistently(this.tables.requests, idempotencyKeyOf(customerId, idempotencyKey), abortSignal),
        nowSeconds,
      ),
    );
  }

  /** A request of a contract, as stored. */
  findRequest(contractId: string, requestId: string, abortSignal?: AbortSignal): Promise<StoredRequest | undefined> {
    return guarded(async () => {
      const { Item } = await this.client.send(
        new GetCommand({ TableName: this.tables.requests, Key: { ...requestKeyOf(contractId, requestId) } }),
        { abortSignal },
      );
      return Item === undefined ? undefined : asStoredRequest(Item);
    });
  }

  /**
   * One page of the requests a customer made on a contract, newest first; `after` is the last
   * request id of the previous page. A contract that changed owner holds requests of both:
   * another customer's are filtered out, and the Query goes on (100 items read per call, at most
   * 4 calls) until the page is full or the contract has no more.
   */
  listRequests(contractId: string, customerId: string, limit: number, after?: string, abortSignal?: AbortSignal): Promise<RequestPage> {
    return guarded(() => this.queryRequests(contractId, customerId, limit, after, abortSignal));
  }

  private async queryRequests(
    contractId: string,
    customerId: string,
    limit: number,
    after: string | undefined,
    abortSignal: AbortSignal | undefined,
  ): Promise<RequestPage> {
    const items: StoredRequest[] = [];
    let start: TableKey | undefined = after === undefined ? undefined : requestKeyOf(contractId, after);
    let overflow = false;
    for (let query = 0; query < MAX_QUERIES_PER_PAGE; query++) {
      const { Items = [], LastEvaluatedKey }: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> } =
        await this.client.send(
          new QueryCommand({
            TableName: this.tables.requests,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :requests)',
            FilterExpression: 'customerId = :customerId',
            ExpressionAttributeValues: {
              ':pk': requestKeyOf(contractId, '').pk,
              ':requests': REQUEST_SORT_PREFIX,
              ':customerId': customerId,
            },
            ScanIndexForward: false,
            // DynamoDB's Limit counts items read before the filter: the first Query reads one page
            // (all of it the caller's on a contract that never changed owner); any later one reads
            // a large slice, so another customer's requests cost few calls.
            Limit: query === 0 ? limit : READ_PER_LATER_QUERY,
            ...(start ? { ExclusiveStartKey: { ...start } } : {}),
          }),
          { abortSignal },
        );
      const found = Items.map(asStoredRequest);
      const taken = found.slice(0, limit - items.length);
      items.push(...taken);
      // More of the caller's requests came back than the page takes: another page follows.
      overflow = found.length > taken.length;
      const lastSortKey = LastEvaluatedKey?.['sk'];
      start = typeof lastSortKey === 'string' ? requestKeyOf(contractId, lastSortKey.slice(REQUEST_SORT_PREFIX.length)) : undefined;
      if (start === undefined || items.length === limit) break;
    }
    // A full page continues after its last item; a short one cut by the cap, after the last item read.
    const last = items.at(-1);
    if (items.length === limit && last !== undefined && (overflow || start !== undefined)) return { items, lastRequestId: last.requestId };
    return start === undefined ? { items } : { items, lastRequestId: start.sk.slice(REQUEST_SORT_PREFIX.length) };
  }

  /** The contract, to explain why a read found nothing. */
  findContract(contractId: string, abortSignal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    return guarded(async () => {
      const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.contracts, Key: { contractId } }), {
        abortSignal,
      });
      return Item;
    });
  }

  private async readConsistently(tableName: string, key: Parameters<ReadItem>[1], abortSignal?: AbortSignal): Promise<Item | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: tableName, Key: { ...key }, ConsistentRead: true }), {
      abortSignal,
    });
    return Item;
  }
}
