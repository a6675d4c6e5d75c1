import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Tables } from './keys';
import { decisionUpdate } from './request-item';
import { slotRelease, type StatusPart } from './status-write';
import { namedTransaction, type NamedTransaction, type PartName } from './write-parts';
import type { StatusMove } from '../termination/ports/store';
import type { Decision } from '../termination/ports/decision';

/*
 * A back-office decision as data (docs/decisions/0017-lifecycle.md): one UpdateItem of the
 * request, conditioned on the statuses it may move from; on a final status, one
 * TransactWriteItems that also deletes the contract's slot, conditioned on the slot naming this
 * request, and whose update sets the request's expiry (docs/decisions/0024-retention-by-calendar-year.md).
 * The request's update is request-item.ts's. termination-table.ts sends it; status-write.ts's
 * explainStatusRefusal reads a refusal.
 */

export type DecisionWrite =
  | { kind: 'update'; part: PartName<StatusPart>; input: UpdateCommandInput & { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }
  | ({ kind: 'transaction' } & NamedTransaction<StatusPart>);

export function buildDecisionWrite(tables: Tables, decision: Decision, move: StatusMove, appliedAt: string): DecisionWrite {
  const update = decisionUpdate(tables.requests, decision, move, appliedAt);
  // One part: its refusal is the request's, named as in the transaction.
  if (!move.freesSlot) return { kind: 'update', part: { name: 'request' }, input: update };
  return {
    kind: 'transaction',
    ...namedTransaction<StatusPart>([
      { name: 'request', item: { Update: update } },
      { name: 'slot', item: { Delete: slotRelease(tables, decision.contractId, decision.requestId) } },
    ]),
  };
}
