import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { contractConditionCheck, judgeContract, readContractConsistently, type ContractVerdict } from '../contracts/contracts-table';
import type { TerminationRequest, TerminationRequestInput } from '../validation/schemas';
import { isTerminationRequest } from '../validation/validator';

/*
 * All access to the service's own table. One table holds four kinds of item, each under its own
 * key prefix, so that a single TransactWriteItems can bind them together (D3):
 *   IDEMPOTENCY#<customerId>#<key>  the key, its fingerprint and the 201 body (TTL: expiresAt)
 *   ACTIVE#<contractId>             the contract's one active-request slot (D4)
 *   NUMBER#<requestNumber>          makes request numbers unique
 *   REQUEST#<requestId>             the request itself
 */

export const STATUS_SUBMITTED = 'SUBMITTED';

export interface NewRequest {
  requestId: string;
  requestNumber: string;
  customerId: string;
  /** Lower-cased: the slot and the request are keyed on it, so case cannot make a second slot. */
  contractId: string;
  /** The id as the client sent it: the contracts table belongs to another system and is read as is. */
  contractLookupId: string;
  idempotencyKey: string;
  fingerprint: string;
  input: TerminationRequestInput;
  response: TerminationRequest;
  /** Epoch seconds after which the idempotency record no longer counts. */
  expiresAt: number;
}

export interface IdempotencyRecord {
  fingerprint: string;
  requestId: string;
  response: TerminationRequest;
  expiresAt: number;
}

export type WriteOutcome =
  | { kind: 'created' }
  | { kind: 'key-used'; record: IdempotencyRecord }
  | { kind: 'contract'; verdict: Exclude<ContractVerdict, { kind: 'ok' }> }
  | { kind: 'slot-taken'; requestNumber: string }
  | { kind: 'number-taken' }
  /** A conflicting transaction or a condition whose cause is gone by now: try again. */
  | { kind: 'retry' };

const idempotencyKeyOf = (customerId: string, key: string) => `IDEMPOTENCY#${customerId}#${key}`;
const slotKeyOf = (contractId: string) => `ACTIVE#${contractId}`;
const numberKeyOf = (requestNumber: string) => `NUMBER#${requestNumber}`;
const requestKeyOf = (requestId: string) => `REQUEST#${requestId}`;

// Positions of the items in the transaction; cancellation reasons come back in this order.
// The idempotency key goes first: it decides before any state-dependent rule (D2).
const KEY = 0;
const CONTRACT = 1;
const SLOT = 2;
const NUMBER = 3;

function asIdempotencyRecord(item: Record<string, unknown> | undefined, nowSeconds: number): IdempotencyRecord | undefined {
  if (!item) return undefined;
  const { fingerprint, requestId, expiresAt, responseJson } = item;
  // An expired record that TTL has not deleted yet counts as absent (D2).
  if (typeof expiresAt !== 'number' || expiresAt <= nowSeconds) return undefined;
  if (typeof fingerprint !== 'string' || typeof requestId !== 'string' || typeof responseJson !== 'string')
    throw new Error('Malformed idempotency record');
  const response: unknown = JSON.parse(responseJson);
  if (!isTerminationRequest(response)) throw new Error('Malformed idempotency record');
  return { fingerprint, requestId, expiresAt, response };
}

function oldItem(reason: CancellationReason | undefined): Record<string, unknown> | undefined {
  return reason?.Item ? unmarshall(reason.Item) : undefined;
}

export class TerminationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { requests: string; contracts: string },
  ) {}

  /** One atomic attempt to create the request; which condition failed says why not. */
  async create(request: NewRequest, nowSeconds: number, abortSignal?: AbortSignal): Promise<WriteOutcome> {
    const { requests } = this.tables;
    const createdAt = request.response.createdAt;
    try {
      await this.client.send(
        new TransactWriteCommand({
          // Makes the SDK's own retry of an attempt that committed but lost its answer succeed as a
          // no-op, instead of coming back as a replay of the caller's own first call. (The SDK
          // would fill in a random token by itself; one per attempt, named, is easier to trace.)
          ClientRequestToken: request.requestId,
          TransactItems: [
            {
              Put: {
                TableName: requests,
                Item: {
                  pk: idempotencyKeyOf(request.customerId, request.idempotencyKey),
                  kind: 'IDEMPOTENCY',
                  fingerprint: request.fingerprint,
                  requestId: request.requestId,
                  contractId: request.contractId,
                  // Kept as text so a replay answers with the very bytes of the 201 body.
                  responseJson: JSON.stringify(request.response),
                  createdAt,
                  expiresAt: request.expiresAt,
                },
                ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
                ExpressionAttributeValues: { ':now': nowSeconds },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              ConditionCheck: contractConditionCheck(
                this.tables.contracts,
                request.contractLookupId,
                request.customerId,
                request.input.desiredTerminationDate,
              ),
            },
            {
              Put: {
                TableName: requests,
                Item: {
                  pk: slotKeyOf(request.contractId),
                  kind: 'ACTIVE_SLOT',
                  requestId: request.requestId,
                  requestNumber: request.requestNumber,
                  customerId: request.customerId,
                  createdAt,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: requests,
                Item: { pk: numberKeyOf(request.requestNumber), kind: 'REQUEST_NUMBER', requestId: request.requestId },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: requests,
                Item: {
                  pk: requestKeyOf(request.requestId),
                  kind: 'REQUEST',
                  requestId: request.requestId,
                  requestNumber: request.requestNumber,
                  status: STATUS_SUBMITTED,
                  customerId: request.customerId,
                  contractId: request.contractId,
                  idempotencyKey: request.idempotencyKey,
                  createdAt,
                  ...request.input,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
        { abortSignal },
      );
      return { kind: 'created' };
    } catch (error) {
      if (error instanceof TransactionCanceledException)
        return this.explain(error.CancellationReasons ?? [], request, nowSeconds, abortSignal);
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
    return asIdempotencyRecord(await this.readConsistently(idempotencyKeyOf(customerId, idempotencyKey), abortSignal), nowSeconds);
  }

  private async explain(
    reasons: CancellationReason[],
    request: NewRequest,
    nowSeconds: number,
    abortSignal?: AbortSignal,
  ): Promise<WriteOutcome> {
    const failed = (i: number) => reasons[i]?.Code === 'ConditionalCheckFailed';

    if (failed(KEY)) {
      const record =
        asIdempotencyRecord(oldItem(reasons[KEY]), nowSeconds) ??
        (await this.findIdempotencyRecord(request.customerId, request.idempotencyKey, nowSeconds, abortSignal));
      return record ? { kind: 'key-used', record } : { kind: 'retry' };
    }
    if (failed(CONTRACT)) {
      const returned = oldItem(reasons[CONTRACT]);
      const contract =
        returned ?? (await readContractConsistently(this.client, this.tables.contracts, request.contractLookupId, abortSignal));
      const verdict = judgeContract(contract, request.customerId, request.input.desiredTerminationDate);
      if (verdict.kind !== 'ok') return { kind: 'contract', verdict };
      // The item the condition refused looks fine to us: not a race but a rule we do not know.
      if (returned) throw new Error('Contract condition failed on a contract judged acceptable');
      return { kind: 'retry' };
    }
    if (failed(SLOT)) {
      const slot = oldItem(reasons[SLOT]) ?? (await this.readConsistently(slotKeyOf(request.contractId), abortSignal));
      const requestNumber = slot?.['requestNumber'];
      return typeof requestNumber === 'string' ? { kind: 'slot-taken', requestNumber } : { kind: 'retry' };
    }
    if (failed(NUMBER)) return { kind: 'number-taken' };
    // TransactionConflict, or a request id that already exists (a UUID clash): a fresh attempt.
    return { kind: 'retry' };
  }

  private async readConsistently(pk: string, abortSignal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tables.requests, Key: { pk }, ConsistentRead: true }), {
      abortSignal,
    });
    return Item;
  }
}
