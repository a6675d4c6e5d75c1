import type { AttributeValue, CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Status } from '../api-model/schemas';
import type { StatusWriteRefusal } from '../termination/ports';
import type { Tables } from './create-transaction';
import { asRequestState, conditionFailed, failedItem, type Item, type ReadItem } from './items';
import { requestKeyOf, slotKeyOf } from './keys';

/*
 * What the writes that move a request's status share (a decision, a withdrawal): the condition
 * on the statuses it may come from, the release of the contract's slot, and the reading of a
 * refusal as facts.
 */

/** The statuses a request may come from, as a condition on `#status` with its values (:from0, :from1, ...). */
export function statusIn(from: readonly Status[]): { expression: string; values: Record<string, Status> } {
  return {
    expression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
    values: Object.fromEntries(from.map((status, i) => [`:from${i}`, status])),
  };
}

/** The Delete of the contract's active slot, on condition that it names the request. */
export function slotRelease(tables: Tables, contractId: string, requestId: string) {
  return {
    TableName: tables.requests,
    Key: { ...slotKeyOf(contractId) },
    ConditionExpression: 'requestId = :requestId',
    ExpressionAttributeValues: { ':requestId': requestId },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/** The request's condition failed: the request as the failure returned it, or as a consistent read finds it. */
export async function requestRefused(
  returned: Record<string, AttributeValue> | undefined,
  ids: { contractId: string; requestId: string },
  read: ReadItem,
): Promise<StatusWriteRefusal> {
  const { item } = await failedItem(returned, () => read('requests', requestKeyOf(ids.contractId, ids.requestId)));
  return { kind: 'request-condition-failed', request: item && asRequestState(item, ids.requestId) };
}

/** Which of a status write's conditions failed first: the request's, then the slot's; else another write got in the way. */
export function explainStatusRefusal(
  request: CancellationReason | undefined,
  slot: CancellationReason | undefined,
  ids: { contractId: string; requestId: string },
  read: ReadItem,
): Promise<StatusWriteRefusal> {
  if (conditionFailed(request)) return requestRefused(request?.Item, ids, read);
  if (conditionFailed(slot)) {
    // The request the slot names, when its item came back with the failure (it is not read again: broken data either way).
    const held: Item | undefined = slot?.Item ? unmarshall(slot.Item) : undefined;
    const slotRequestId = held?.['requestId'];
    return Promise.resolve({ kind: 'slot-condition-failed', slotRequestId: typeof slotRequestId === 'string' ? slotRequestId : undefined });
  }
  return Promise.resolve({ kind: 'conflict' });
}
