import type { TransactWriteCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { requestKeyOf, type Tables } from './keys';
import type { DecisionEntry } from './request-item';
import { slotRelease, statusIn } from './status-write';
import type { Decision, StatusMove } from '../termination/ports';

/*
 * A back-office decision as data (docs/decisions/0017-lifecycle.md): one UpdateItem of the
 * request, conditioned on the statuses it may move from; on a final status, one
 * TransactWriteItems that also deletes the contract's slot, conditioned on the slot naming this
 * request, and whose update sets the request's expiry (docs/decisions/0024-retention-by-calendar-year.md).
 * termination-table.ts sends it; status-write.ts's explainStatusRefusal reads a refusal.
 */

/** Where the request and the slot stand in the write: a refusal names its failed item by position. */
export const DECISION_ITEMS = { request: 0, slot: 1 } as const;

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
      // A final status starts the retention period: TTL deletes the request after it.
      move.retainUntil === undefined ? '' : ', expiresAt = :retainUntil',
      decision.reason === undefined ? 'REMOVE statusReason' : ', statusReason = :reason',
    ]
      .filter((part) => part !== '')
      .join(' '),
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
      ...(move.retainUntil === undefined ? {} : { ':retainUntil': move.retainUntil }),
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
