import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { buildDecisionWrite, explainCancelledDecision, explainRefusedDecision } from './decision-write';
import { asIdempotencyRecord, buildCreateTransaction, explainCancellation, type Tables } from './create-transaction';
import type { ServiceConfig } from '../config';
import { createDocumentClient } from '../aws/dynamodb-client';
import { isTransientAwsError } from '../aws/transient-errors';
import { isStatus } from '../termination/lifecycle';
import {
  MalformedItemError,
  StoreUnavailableError,
  type Decision,
  type DecisionWriteOutcome,
  type IdempotencyRecord,
  type NewRequest,
  type RequestPage,
  type StoredRequest,
  type TerminationStore,
  type WithdrawalIntent,
  type WithdrawalOutcome,
  type WriteOutcome,
} from '../termination/ports';
import { buildWithdrawalTransaction, explainWithdrawalCancellation } from './withdrawal-write';
import { idempotencyKeyOf, REQUEST_SORT_PREFIX, requestKeyOf, type TableKey } from './keys';

/** The store of a function's configuration; build it once, at module load. */
export function storeFor(
  config: Pick<ServiceConfig, 'dynamodb' | 'requestsTableName'> & { contractsTableName?: string },
): TerminationStore {
  return new DynamoDbTerminationStore(createDocumentClient(config.dynamodb), {
    requests: config.requestsTableName,
    // The decision consumer never reads contracts: an empty name fails loudly if it ever tried.
    contracts: config.contractsTableName ?? '',
  });
}

/** At most this many Queries for one page of a contract that holds other customers' requests too. */
const MAX_QUERIES_PER_PAGE = 4;
/** Items each Query after the first reads (DynamoDB's Limit, before the filter). */
const READ_PER_LATER_QUERY = 100;

/** A request item read back as the domain's StoredRequest; anything else is a bug of ours (500). */
function asStoredRequest(item: Record<string, unknown>): StoredRequest {
  const { requestId, requestNumber, customerId, status, createdAt, statusReason } = item;
  if (
    typeof requestId !== 'string' ||
    typeof requestNumber !== 'string' ||
    typeof customerId !== 'string' ||
    !isStatus(status) ||
    typeof createdAt !== 'string' ||
    !(statusReason === undefined || typeof statusReason === 'string')
  ) {
    throw new MalformedItemError(`request item ${String(requestId)}`);
  }
  return { requestId, requestNumber, customerId, status, createdAt, ...(statusReason === undefined ? {} : { statusReason }) };
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
 * port. Writes are built as data in create-transaction.ts and decision-write.ts.
 */
export class DynamoDbTerminationStore implements TerminationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: Tables,
  ) {}

  /** One atomic attempt to create the request; which condition failed says why not. */
  create(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome> {
    return guarded(() => this.tryCreate(request, nowSeconds, abortSignal));
  }

  private async tryCreate(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome> {
    try {
      await this.client.send(new TransactWriteCommand(buildCreateTransaction(this.tables, request, nowSeconds)), { abortSignal });
      return { kind: 'created' };
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        const explained = explainCancellation(error.CancellationReasons ?? [], request, nowSeconds);
        if (explained.kind !== 'read') return explained;
        return explained.decide(await this.readConsistently(this.tables[explained.table], explained.key, abortSignal));
      }
      if (error instanceof Error && error.name === 'TransactionConflictException') return { kind: 'retry' };
      throw error;
    }
  }

  /**
   * One attempt to apply a back-office decision: one call when it applies; a refusal whose
   * cause did not come back with it costs one consistent read of the request.
   */
  applyDecision(decision: Decision, appliedAt: string): Promise<DecisionWriteOutcome> {
    return guarded(() => this.tryDecision(decision, appliedAt));
  }

  private async tryDecision(decision: Decision, appliedAt: string): Promise<DecisionWriteOutcome> {
    const write = buildDecisionWrite(this.tables, decision, appliedAt);
    const readRequest = async () =>
      explainRefusedDecision(
        await this.readConsistently(this.tables.requests, { ...requestKeyOf(decision.contractId, decision.requestId) }),
        decision,
      );
    try {
      if (write.kind === 'update') await this.client.send(new UpdateCommand(write.input));
      else await this.client.send(new TransactWriteCommand(write.input));
      return { kind: 'applied' };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return error.Item ? explainRefusedDecision(unmarshall(error.Item), decision) : readRequest();
      }
      if (error instanceof TransactionCanceledException) {
        const explained = explainCancelledDecision(error.CancellationReasons ?? [], decision);
        return explained.kind === 'read-request' ? readRequest() : explained;
      }
      if (error instanceof Error && error.name === 'TransactionConflictException') return { kind: 'retry' };
      throw error;
    }
  }

  withdraw(intent: WithdrawalIntent, nowSeconds: number, abortSignal?: AbortSignal): Promise<WithdrawalOutcome> {
    return guarded(async () => {
      try {
        await this.client.send(new TransactWriteCommand(buildWithdrawalTransaction(this.tables, intent, nowSeconds)), { abortSignal });
        return { kind: 'withdrawn' };
      } catch (error) {
        if (error instanceof TransactionCanceledException) {
          const explained = explainWithdrawalCancellation(error.CancellationReasons ?? [], intent, nowSeconds);
          if (explained.kind !== 'read') return explained;
          return explained.decide(await this.readConsistently(this.tables.requests, explained.key, abortSignal));
        }
        // Another call with the same key in the same millisecond: its token, other values (its
        // language). Tried again, the key it wrote answers as a replay.
        if (error instanceof Error && ['TransactionConflictException', 'IdempotentParameterMismatchException'].includes(error.name)) {
          return { kind: 'retry' };
        }
        throw error;
      }
    });
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
        await this.readConsistently(this.tables.requests, { ...idempotencyKeyOf(customerId, idempotencyKey) }, abortSignal),
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

  private async readConsistently(
    tableName: string,
    key: Record<string, string>,
    abortSignal?: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }), { abortSignal });
    return Item;
  }
}
