import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Tables } from './create-transaction';
import { isFinal, isStatus, statusesBefore } from '../termination/lifecycle';
import { requestKeyOf, slotKeyOf } from './keys';
import { MalformedItemError, type Decision, type DecisionWriteOutcome } from '../termination/ports';

/*
 * A back-office decision as data (docs/decisions/0017-lifecycle.md): one UpdateItem of the
 * request, conditioned on the statuses it may move from; on a final status, one
 * TransactWriteItems that also deletes the contract's slot, conditioned on the slot naming this
 * request. Pure: termination-table.ts only sends it and reads the failure back through
 * explainRefusedDecision.
 */

export type DecisionWrite =
  | { kind: 'update'; input: UpdateCommandInput & { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }
  | { kind: 'transaction'; input: TransactWriteCommandInput };

export function buildDecisionWrite(tables: Tables, decision: Decision, appliedAt: string): DecisionWrite {
  const from = statusesBefore(decision.status);
  const entry = {
    status: decision.status,
    eventId: decision.eventId,
    occurredAt: decision.occurredAt,
    appliedAt,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  };
  const update = {
    TableName: tables.requests,
    Key: { ...requestKeyOf(decision.contractId, decision.requestId) },
    UpdateExpression: [
      'SET #status = :status, statusChangedAt = :occurredAt, updatedAt = :appliedAt,',
      'decisionIds = list_append(if_not_exists(decisionIds, :none), :eventIds),',
      'statusHistory = list_append(if_not_exists(statusHistory, :none), :entries)',
      decision.reason === undefined ? 'REMOVE statusReason' : ', statusReason = :reason',
    ].join(' '),
    ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':status': decision.status,
      ':occurredAt': decision.occurredAt,
      ':appliedAt': appliedAt,
      ':none': [],
      ':eventIds': [decision.eventId],
      ':entries': [entry],
      ...(decision.reason === undefined ? {} : { ':reason': decision.reason }),
      ...Object.fromEntries(from.map((status, i) => [`:from${i}`, status])),
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  } as const;
  if (!isFinal(decision.status)) return { kind: 'update', input: update };
  return {
    kind: 'transaction',
    input: {
      TransactItems: [
        { Update: update },
        {
          Delete: {
            TableName: tables.requests,
            Key: { ...slotKeyOf(decision.contractId) },
            ConditionExpression: 'requestId = :requestId',
            ExpressionAttributeValues: { ':requestId': decision.requestId },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    },
  };
}

/** Why the request's condition refused the decision, from the request as it was. */
export function explainRefusedDecision(request: Record<string, unknown> | undefined, decision: Decision): DecisionWriteOutcome {
  if (request === undefined) return { kind: 'unknown-request' };
  const current = request['status'];
  if (!isStatus(current)) throw new MalformedItemError(`request item ${decision.requestId}: status`);
  const applied = request['decisionIds'];
  if (Array.isArray(applied) && applied.includes(decision.eventId)) return { kind: 'duplicate', current };
  // The same decision sent again under a new id; with other words for the customer it is not
  // the same decision, and never applied silently: the status cannot move to itself.
  if (current === decision.status && request['statusReason'] === decision.reason) return { kind: 'duplicate', current };
  // The condition refused a status it allows: the request moved since; look again.
  if (statusesBefore(decision.status).includes(current)) return { kind: 'retry' };
  return { kind: 'forbidden', current };
}

/** A cancelled final decision: the request's reason first, then the slot's. */
export function explainCancelledDecision(
  reasons: CancellationReason[],
  decision: Decision,
): DecisionWriteOutcome | { kind: 'read-request' } {
  const [request, slot] = reasons;
  if (request?.Code === 'ConditionalCheckFailed') {
    return request.Item ? explainRefusedDecision(unmarshall(request.Item), decision) : { kind: 'read-request' };
  }
  if (slot?.Code === 'ConditionalCheckFailed') {
    const slotItem: Record<string, unknown> | undefined = slot.Item ? unmarshall(slot.Item) : undefined;
    const slotRequestId = slotItem?.['requestId'];
    return { kind: 'slot-mismatch', slotRequestId: typeof slotRequestId === 'string' ? slotRequestId : undefined };
  }
  return { kind: 'retry' };
}
