import type { StatusWriteRefusal } from '../termination/ports/store';
import { asRequestState } from './request-item';
import type { Failure } from './write-parts';
import { slotKeyOf, type Tables } from './keys';

/*
 * What the writes that move a request's status share (a decision, a withdrawal): their parts,
 * the release of the contract's slot, and the reading of a refusal as facts. The request's own
 * update is request-item.ts's.
 */

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

/** The parts every status write holds: the request it moves, and, when it frees the contract, the slot it deletes. */
export type StatusPart = 'request' | 'slot';

/**
 * What a status write's first failed part says: the request's (the request as it was, or none),
 * the slot's (the request it names instead); else another write got in the way.
 */
export function explainStatusRefusal(failure: Failure | undefined, requestId: string): StatusWriteRefusal {
  if (failure?.part === 'request') {
    return { kind: 'request-condition-failed', request: failure.item && asRequestState(failure.item, requestId) };
  }
  if (failure?.part === 'slot') {
    const slotRequestId = failure.item?.['requestId'];
    return { kind: 'slot-condition-failed', slotRequestId: typeof slotRequestId === 'string' ? slotRequestId : undefined };
  }
  return { kind: 'conflict' };
}
