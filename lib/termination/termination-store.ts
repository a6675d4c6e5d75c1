import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  asIdempotencyRecord,
  buildCreateTransaction,
  explainCancellation,
  idempotencyKeyOf,
  type IdempotencyRecord,
  type NewRequest,
  type Tables,
  type WriteOutcome,
} from './create-transaction';

/** All access to the service's table (and its reads of the contracts table). Writes are built in create-transaction.ts. */
export class TerminationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: Tables,
  ) {}

  /** One atomic attempt to create the request; which condition failed says why not. */
  async create(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome> {
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

  /** Reads the key's record, skipping one that has expired. */
  async findIdempotencyRecord(
    customerId: string,
    idempotencyKey: string,
    nowSeconds: number,
    abortSignal?: AbortSignal,
  ): Promise<IdempotencyRecord | undefined> {
    const item = await this.readConsistently(this.tables.requests, { pk: idempotencyKeyOf(customerId, idempotencyKey) }, abortSignal);
    return asIdempotencyRecord(item, nowSeconds);
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
