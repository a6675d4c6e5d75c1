import type { Status } from '../api-model/schemas';
import type { StatusWriteRefusal } from '../termination/ports';
import { asRequestState, type Failure } from './items';
import { slotKeyOf, type Tables } from './keys';

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

/**
 * Which of a status write's conditions failed first, at their positions in the write: the
 * request's (the request as it was, or none), then the slot's (the request it names instead);
 * else another write got in the way.
 */
export function explainStatusRefusal(
  failure: Failure | undefined,
  positions: { request: number; slot: number },
  requestId: string,
): StatusWriteRefusal {
  if (failure?.position === positions.request) {
    return { kind: 'request-condition-failed', request: failure.item && asRequestState(failure.item, requestId) };
  }
  if (failure?.position === positions.slot) {
    const slotRequestId = failure.item?.['requestId'];
    return { kind: 'slot-condition-failed', slotRequestId: typeof slotRequestId === 'string' ? slotRequestId : undefined };
  }
  return { kind: 'conflict' };
}
