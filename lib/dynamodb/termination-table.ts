import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
  type AttributeValue,
  type CancellationReason,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { buildDecisionWrite } from './decision-write';
import { buildCreateTransaction, explainCreateRefusal, type CreatePart } from './create-transaction';
import type { ServiceConfig } from '../config';
import { createDocumentClient } from '../aws/dynamodb-client';
import { isTransientAwsError } from '../aws/transient-errors';
import { StoreUnavailableError } from '../termination/ports/errors';
import type {
  DecisionWriteOutcome,
  IdempotencyRecord,
  CustomerRequestPage,
  NewRequest,
  PageQuery,
  RequestPage,
  StatusMove,
  StoredRequest,
  TerminationStore,
  WithdrawalIntent,
  WithdrawalOutcome,
  WriteOutcome,
} from '../termination/ports/store';
import type { Decision } from '../termination/ports/decision';
import { asIdempotencyRecord, type Item } from './items';
import { asStoredRequest, ownItemsFilter } from './request-item';
import { queryCustomerRequests, readRequestHistory } from './customer-requests';
import type { RequestHistory } from '../termination/ports/request-history';
import { explainStatusRefusal, type StatusPart } from './status-write';
import { buildWithdrawalTransaction, explainWithdrawalRefusal, type WithdrawalPart } from './withdrawal-write';
import { failedParts, type Failure, type NamedTransaction, type PartName, type WriteItem } from './write-parts';
import { idempotencyKeyOf, limitKeyOf, REQUEST_SORT_PREFIX, requestKeyOf, tableKeyOf, type CreateTables, type TableKey } from './keys';
import { createdAtSecondsOf } from './request-limit';

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

/** Items each Query after a page's first reads (DynamoDB's Limit, before the filter). */
const READ_PER_LATER_QUERY = 100;

/** Where an item lives: its table and its key. */
interface ItemAt {
  tableName: string | undefined;
  key: Item | undefined;
}

/**
 * The item a write's item concerns, when the write asks it back on a failed condition (ALL_OLD):
 * what explains a refusal. A Put names its item by the service table's key (pk, sk).
 */
function askedBack({ Put, Update, Delete, ConditionCheck }: WriteItem): ItemAt | undefined {
  if (Put) {
    return Put.ReturnValuesOnConditionCheckFailure === 'ALL_OLD'
      ? { tableName: Put.TableName, key: { pk: Put.Item?.['pk'], sk: Put.Item?.['sk'] } }
      : undefined;
  }
  const keyed = Update ?? Delete ?? ConditionCheck;
  return keyed?.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' ? { tableName: keyed.TableName, key: keyed.Key } : undefined;
}

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
 * withdrawal-write.ts. A refused write is explained in two steps: this class finds the first
 * failed condition with its item (reading it consistently where the failure came without it),
 * and the write's own pure explain function turns that into the facts the port reports. It also
 * holds the paging of a contract's requests (listRequests).
 */
export class DynamoDbTerminationStore implements TerminationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: CreateTables,
  ) {}

  /** One atomic attempt to create the request: one call when it goes through or its reasons carry their items. */
  create(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome> {
    return this.transact<CreatePart, WriteOutcome>(
      buildCreateTransaction(this.tables, request, nowSeconds),
      { kind: 'created' },
      (failure) => explainCreateRefusal(failure, request, nowSeconds),
      abortSignal,
    );
  }

  /**
   * One attempt to apply a back-office decision: one call when it applies; a refusal whose
   * cause did not come back with it costs one consistent read of the item that refused.
   */
  applyDecision(decision: Decision, move: StatusMove, appliedAt: string): Promise<DecisionWriteOutcome> {
    const write = buildDecisionWrite(this.tables, decision, move, appliedAt);
    const explain = (failure: Failure | undefined) => explainStatusRefusal(failure, decision.requestId);
    if (write.kind === 'transaction') return this.transact<StatusPart, DecisionWriteOutcome>(write, { kind: 'applied' }, explain);
    return guarded(async () => {
      try {
        await this.client.send(new UpdateCommand(write.input));
        return { kind: 'applied' };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const { TableName: tableName, Key: key } = write.input;
        return explain(await this.failureAt([write.part], error.Item, { tableName, key }));
      }
    });
  }

  withdraw(intent: WithdrawalIntent, nowSeconds: number, abortSignal?: AbortSignal): Promise<WithdrawalOutcome> {
    return this.transact<WithdrawalPart, WithdrawalOutcome>(
      buildWithdrawalTransaction(this.tables, intent, nowSeconds),
      { kind: 'withdrawn' },
      (failure) => explainWithdrawalRefusal(failure, intent, nowSeconds),
      abortSignal,
    );
  }

  /**
   * Sends one transaction: `done` when it commits; when a condition refused it, what `explain`
   * makes of the first part that failed; `conflict` (explain of none) when another write got in the way.
   */
  private transact<Name extends string, Outcome>(
    write: NamedTransaction<Name>,
    done: Outcome,
    explain: (failure: Failure<Name> | undefined) => Outcome,
    abortSignal?: AbortSignal,
  ): Promise<Outcome | { kind: 'conflict' }> {
    return guarded(async (): Promise<Outcome | { kind: 'conflict' }> => {
      try {
        await this.client.send(new TransactWriteCommand(write.input), { abortSignal });
        return done;
      } catch (error) {
        if (error instanceof TransactionCanceledException) {
          return explain(await this.firstFailure(write, error.CancellationReasons ?? [], abortSignal));
        }
        // A mismatch is another call with the same token and other values (a withdrawal with the
        // same key in the same millisecond, in another language): tried again, its key answers.
        if (error instanceof Error && ['TransactionConflictException', 'IdempotentParameterMismatchException'].includes(error.name)) {
          return { kind: 'conflict' };
        }
        throw error;
      }
    });
  }

  /**
   * The first part whose condition failed, in the order of the write's parts (cancellation
   * reasons come back in that order), with its item, and every part that failed (write-parts.ts).
   */
  private async firstFailure<Name extends string>(
    write: NamedTransaction<Name>,
    reasons: CancellationReason[],
    abortSignal?: AbortSignal,
  ): Promise<Failure<Name> | undefined> {
    const failed = failedParts(write, reasons);
    const first = failed[0];
    if (first === undefined) return undefined;
    const item = write.input.TransactItems?.[first.index];
    return this.failureAt(
      failed.map(({ part }) => part),
      first.reason.Item,
      item && askedBack(item),
      abortSignal,
    );
  }

  /** The failed part's item as the failure returned it; else, if the write asked it back, as a consistent read finds it now. */
  private async failureAt<Name extends string>(
    failed: readonly PartName<Name>[],
    returned: Record<string, AttributeValue> | undefined,
    asked: ItemAt | undefined,
    abortSignal?: AbortSignal,
  ): Promise<Failure<Name> | undefined> {
    const part = failed[0]?.name;
    if (part === undefined) return undefined;
    if (returned) return { part, failed, item: unmarshall(returned), readAfter: false };
    if (asked?.tableName === undefined || asked.key === undefined) return { part, failed, item: undefined, readAfter: false };
    return { part, failed, item: await this.readConsistently(asked.tableName, asked.key, abortSignal), readAfter: true };
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

  /** A request of a contract whole: what was submitted and its statusHistory (customer-requests.ts). */
  findRequestHistory(contractId: string, requestId: string, abortSignal?: AbortSignal): Promise<RequestHistory | undefined> {
    return guarded(() => readRequestHistory(this.client, this.tables.requests, contractId, requestId, abortSignal));
  }

  /** A page of a customer's requests on every contract, from the index by customer (customer-requests.ts). */
  listCustomerRequests(customerId: string, limit: number, after?: string, abortSignal?: AbortSignal): Promise<CustomerRequestPage> {
    return guarded(() => queryCustomerRequests(this.client, this.tables.requests, customerId, limit, after, abortSignal));
  }

  /**
   * One page of the requests a customer made on a contract, newest first; `after` is the last
   * request id of the previous page. The first page's Query starts at the caller's limit record,
   * which sorts above every request (keys.ts), and reads one item more for it: the page and the
   * record in one call. A contract that changed owner holds requests of both (and maybe their
   * limit records): another customer's are filtered out, and the Query goes on (100 items read
   * per call) until the page is full or the contract has no more, so that a page ends on the
   * caller's own request and a cursor never stands on another customer's
   * (docs/decisions/0015-reading-requests.md). The use case's budget bounds the calls.
   */
  listRequests(contractId: string, customerId: string, page: PageQuery, abortSignal?: AbortSignal): Promise<RequestPage> {
    return guarded(() => this.queryRequests(contractId, customerId, page, abortSignal));
  }

  private async queryRequests(
    contractId: string,
    customerId: string,
    { limit, after, requestLimit }: PageQuery,
    abortSignal: AbortSignal | undefined,
  ): Promise<RequestPage> {
    const limitRecord = limitKeyOf(contractId, customerId);
    const own = ownItemsFilter(customerId);
    const items: StoredRequest[] = [];
    let limitItem: Item | undefined;
    let start: TableKey | undefined = after === undefined ? undefined : requestKeyOf(contractId, after);
    let overflow: boolean;
    let query = 0;
    for (; ; query++) {
      const { Items = [], LastEvaluatedKey }: { Items?: Item[]; LastEvaluatedKey?: Record<string, unknown> } = await this.client.send(
        new QueryCommand({
          TableName: this.tables.requests,
          // From the caller's limit record down through the requests: the contract's slot sorts
          // outside, another customer's limit record either outside or, like their requests,
          // filtered out (each names its customer).
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :requests AND :limitRecord',
          FilterExpression: own.FilterExpression,
          ExpressionAttributeValues: {
            ':pk': limitRecord.pk,
            ':requests': REQUEST_SORT_PREFIX,
            ':limitRecord': limitRecord.sk,
            ...own.ExpressionAttributeValues,
          },
          ScanIndexForward: false,
          // DynamoDB's Limit counts items read before the filter: the first Query reads one page
          // (all of it the caller's on a contract that never changed owner), and on the first
          // page one item more, the limit record; any later one reads a large slice, so another
          // customer's requests cost few calls.
          Limit: query > 0 ? READ_PER_LATER_QUERY : after === undefined ? limit + 1 : limit,
          ...(start ? { ExclusiveStartKey: { ...start } } : {}),
        }),
        { abortSignal },
      );
      limitItem ??= Items.find((item) => item['sk'] === limitRecord.sk);
      const found = Items.filter((item) => item['sk'] !== limitRecord.sk).map(asStoredRequest);
      const taken = found.slice(0, limit - items.length);
      items.push(...taken);
      // More of the caller's requests came back than the page takes: another page follows.
      overflow = found.length > taken.length;
      start = tableKeyOf(LastEvaluatedKey);
      if (start === undefined || items.length === limit) break;
    }
    // A full page continues after its last item, the caller's own; a short one is the contract's
    // last. A page the first Query filled continues as well: with the limit record's item aside,
    // that Query read as many requests as the page holds, where DynamoDB stops without looking further.
    const last = items.at(-1);
    const limitTimes = createdAtSecondsOf(limitItem, requestLimit);
    return {
      items,
      ...(items.length === limit && last !== undefined && (query === 0 || overflow || start !== undefined)
        ? { lastRequestId: last.requestId }
        : {}),
      ...(limitTimes === undefined ? {} : { limitTimes }),
    };
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

  private async readConsistently(tableName: string, key: Item | TableKey, abortSignal?: AbortSignal): Promise<Item | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: tableName, Key: { ...key }, ConsistentRead: true }), {
      abortSignal,
    });
    return Item;
  }
}
