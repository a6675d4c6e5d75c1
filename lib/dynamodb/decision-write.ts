import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Tables } from './create-transaction';
import type { ReadItem } from './items';
import { requestKeyOf } from './keys';
import type { DecisionEntry } from './request-item';
import { explainStatusRefusal, slotRelease, statusIn } from './status-write';
import type { Decision, StatusMove, StatusWriteRefusal } from '../termination/ports';

/*
 * A back-office decision as data (docs/decisions/0017-lifecycle.md): one UpdateItem of the
 * request, conditioned on the statuses it may move from; on a final status, one
 * TransactWriteItems that also deletes the contract's slot, conditioned on the slot naming this
 * request. termination-table.ts only sends it, and reads a failure back as the facts below.
 */

export type DecisionWrite =
  | { kind: 'update'; input: UpdateCommandInput & { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }
  | { kind: 'transaction'; input: TransactWriteCommandInput };

export function buildDecisionWrite(tables: Tables, decision: Decision, move: StatusMove, appliedAt: string): DecisionWrite {
  const from = statusIn(move.from);
  const entry = {
    status: decision.status,
    eventId: decision.eventId,
    occurredAt: decision.occurredAt,
    appliedAt,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  } satisfies DecisionEntry;
  const update = {
    TableName: tables.requests,
    Key: { ...requestKeyOf(decision.contractId, decision.requestId) },
    UpdateExpression: [
      'SET #status = :status, statusChangedAt = :occurredAt, updatedAt = :appliedAt,',
      'decisionIds = list_append(if_not_exists(decisionIds, :none), :eventIds),',
      'statusHistory = list_append(if_not_exists(statusHistory, :none), :entries)',
      decision.reason === undefined ? 'REMOVE statusReason' : ', statusReason = :reason',
    ].join(' '),
    ConditionExpression: from.expression,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':status': decision.status,
      ':occurredAt': decision.occurredAt,
      ':appliedAt': appliedAt,
      ':none': [],
      ':eventIds': [decision.eventId],
      ':entries': [entry],
      ...(decision.reason === undefined ? {} : { ':reason': decision.reason }),
      ...from.values,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  } as const;
  if (!move.freesSlot) return { kind: 'update', input: update };
  return {
    kind: 'transaction',
    input: {
      TransactItems: [{ Update: update }, { Delete: slotRelease(tables, decision.contractId, decision.requestId) }],
    },
  };
}

/** Which condition of a final decision's transaction failed first: the request's, then the slot's. */
export function explainCancelledDecision(reasons: CancellationReason[], decision: Decision, read: ReadItem): Promise<StatusWriteRefusal> {
  return explainStatusRefusal(reasons[0], reasons[1], decision, read);
}
