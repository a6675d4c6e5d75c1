import { describe, expect, it } from 'vitest';
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import {
  buildDecisionWrite,
  explainCancelledDecision,
  explainRefusedDecision,
  type DecisionWrite,
} from '../../lib/dynamodb/decision-write';
import type { Decision } from '../../lib/termination/ports';
import { requestKeyOf, slotKeyOf } from '../../lib/dynamodb/keys';
import { statusesBefore } from '../../lib/termination/lifecycle';
import { DECISION_STATUSES } from '../../lib/api-model/event-schemas';
import { STATUSES, type Status } from '../../lib/api-model/schemas';

const tables = { requests: 'requests', contracts: 'contracts' };
const APPLIED_AT = '2030-03-18T09:00:00.350Z';
const REQUEST_ID = '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01';
const CONTRACT_ID = 'a1a1a1a1-0000-4000-8000-000000000001';

type DecisionStatus = Decision['status'];

const decisionOf = (status: DecisionStatus, reason?: string): Decision => ({
  eventId: `bo-${status.toLowerCase()}-000187`,
  requestId: REQUEST_ID,
  contractId: CONTRACT_ID,
  status,
  reason,
  occurredAt: '2030-03-18T09:00:00.000Z',
});

/** The moves the lifecycle allows, by hand: the statuses a decision's condition lets through. */
const ALLOWED_FROM: Record<DecisionStatus, Status[]> = {
  IN_REVIEW: ['SUBMITTED'],
  APPROVED: ['SUBMITTED', 'IN_REVIEW'],
  COMPLETED: ['SUBMITTED', 'IN_REVIEW', 'APPROVED'],
  REJECTED: ['SUBMITTED', 'IN_REVIEW'],
};

/** The UpdateItem of the request, whichever form the write takes. */
function requestUpdateOf(write: DecisionWrite) {
  return write.kind === 'update' ? write.input : write.input.TransactItems?.[0]?.Update;
}

/** Every `:name` and `#name` an expression uses. */
const placeholders = (expressions: (string | undefined)[], sigil: string) =>
  new Set(expressions.flatMap((expression) => [...(expression ?? '').matchAll(new RegExp(`${sigil}\\w+`, 'g'))].map(([name]) => name)));

const none: CancellationReason = { Code: 'None' };
const failed = (item?: Record<string, unknown>): CancellationReason => ({
  Code: 'ConditionalCheckFailed',
  ...(item ? { Item: marshall(item) } : {}),
});
const requestItem = (status: string, decisionIds: unknown = []) => ({
  ...requestKeyOf(CONTRACT_ID, REQUEST_ID),
  kind: 'REQUEST',
  requestId: REQUEST_ID,
  contractId: CONTRACT_ID,
  status,
  decisionIds,
});

describe('buildDecisionWrite', () => {
  it.each<[DecisionStatus, DecisionWrite['kind']]>([
    ['IN_REVIEW', 'update'],
    ['APPROVED', 'update'],
    ['COMPLETED', 'transaction'],
    ['REJECTED', 'transaction'],
  ])('%s is one %s', (status, kind) => {
    expect(buildDecisionWrite(tables, decisionOf(status), APPLIED_AT).kind).toBe(kind);
  });

  it.each([...DECISION_STATUSES])(
    '%s updates the request under its contract, conditioned on exactly the statuses it may come from',
    (status) => {
      const update = requestUpdateOf(buildDecisionWrite(tables, decisionOf(status), APPLIED_AT));
      expect(update?.TableName).toBe('requests');
      expect(update?.Key).toEqual(requestKeyOf(CONTRACT_ID, REQUEST_ID));
      expect(update?.ExpressionAttributeNames).toEqual({ '#status': 'status' });
      const from = statusesBefore(status);
      expect(from).toEqual(ALLOWED_FROM[status]);
      expect(update?.ConditionExpression).toBe(`#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`);
      const values = update?.ExpressionAttributeValues ?? {};
      const conditionValues = Object.keys(values)
        .filter((name) => name.startsWith(':from'))
        .map((name) => values[name]);
      expect(conditionValues).toEqual(ALLOWED_FROM[status]);
      expect(update?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    },
  );

  it.each([...DECISION_STATUSES])(
    '%s sets the status, its time, the update time, and appends the decision id and history entry',
    (status) => {
      const decision = decisionOf(status);
      const update = requestUpdateOf(buildDecisionWrite(tables, decision, APPLIED_AT));
      const expression = update?.UpdateExpression ?? '';
      for (const part of [
        'SET #status = :status',
        'statusChangedAt = :occurredAt',
        'updatedAt = :appliedAt',
        'decisionIds = list_append(if_not_exists(decisionIds, :none), :eventIds)',
        'statusHistory = list_append(if_not_exists(statusHistory, :none), :entries)',
      ]) {
        expect(expression).toContain(part);
      }
      expect(update?.ExpressionAttributeValues).toMatchObject({
        ':status': status,
        ':occurredAt': decision.occurredAt,
        ':appliedAt': APPLIED_AT,
        ':none': [],
        ':eventIds': [decision.eventId],
      });
      expect(update?.ExpressionAttributeValues?.[':entries']).toStrictEqual([
        { status, eventId: decision.eventId, occurredAt: decision.occurredAt, appliedAt: APPLIED_AT },
      ]);
    },
  );

  it.each([...DECISION_STATUSES])('%s with a reason: SET statusReason, and the reason in the history entry', (status) => {
    const update = requestUpdateOf(buildDecisionWrite(tables, decisionOf(status, 'Debt on the contract.'), APPLIED_AT));
    const expression = update?.UpdateExpression ?? '';
    expect(expression).toMatch(/^SET [^]*, statusReason = :reason$/);
    expect(expression).not.toContain('REMOVE');
    expect(update?.ExpressionAttributeValues?.[':reason']).toBe('Debt on the contract.');
    expect(update?.ExpressionAttributeValues?.[':entries']).toEqual([expect.objectContaining({ reason: 'Debt on the contract.' })]);
  });

  it.each([...DECISION_STATUSES])('%s without a reason: REMOVE statusReason, so an old one does not linger', (status) => {
    const update = requestUpdateOf(buildDecisionWrite(tables, decisionOf(status), APPLIED_AT));
    const expression = update?.UpdateExpression ?? '';
    expect(expression).toMatch(/ REMOVE statusReason$/);
    expect(expression).not.toContain(':reason');
    expect(update?.ExpressionAttributeValues).not.toHaveProperty(':reason');
    expect(update?.ExpressionAttributeValues?.[':entries']).toEqual([expect.not.objectContaining({ reason: expect.anything() })]);
  });

  it.each(DECISION_STATUSES.flatMap((status) => [decisionOf(status), decisionOf(status, 'A reason.')]))(
    'defines exactly the placeholders its expressions use ($status, reason $reason)',
    (decision) => {
      // DynamoDB refuses both an undefined placeholder and an unused one.
      const update = requestUpdateOf(buildDecisionWrite(tables, decision, APPLIED_AT));
      const expressions = [update?.UpdateExpression, update?.ConditionExpression];
      expect(placeholders(expressions, ':')).toEqual(new Set(Object.keys(update?.ExpressionAttributeValues ?? {})));
      expect(placeholders(expressions, '#')).toEqual(new Set(Object.keys(update?.ExpressionAttributeNames ?? {})));
    },
  );

  it.each(['COMPLETED', 'REJECTED'] satisfies DecisionStatus[])('%s also deletes the contract slot, if it names this request', (status) => {
    const write = buildDecisionWrite(tables, decisionOf(status), APPLIED_AT);
    const items = write.kind === 'transaction' ? (write.input.TransactItems ?? []) : [];
    expect(items).toHaveLength(2);
    expect(Object.keys(items[0] ?? {})).toEqual(['Update']);
    expect(Object.keys(items[1] ?? {})).toEqual(['Delete']);
    expect(items[1]?.Delete).toEqual({
      TableName: 'requests',
      Key: slotKeyOf(CONTRACT_ID),
      ConditionExpression: 'requestId = :requestId',
      ExpressionAttributeValues: { ':requestId': REQUEST_ID },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('keeps the slot of an active request: IN_REVIEW and APPROVED write nothing but the request', () => {
    for (const status of ['IN_REVIEW', 'APPROVED'] satisfies DecisionStatus[]) {
      const write = buildDecisionWrite(tables, decisionOf(status), APPLIED_AT);
      expect(write.kind).toBe('update');
      expect(JSON.stringify(write.input)).not.toContain('ACTIVE');
    }
  });

  it('keys the write by the decision, not by anything shared between calls', () => {
    const other = {
      ...decisionOf('COMPLETED'),
      requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f99',
      contractId: 'b2b2b2b2-0000-4000-8000-000000000002',
    };
    const write = buildDecisionWrite(tables, other, APPLIED_AT);
    const items = write.kind === 'transaction' ? (write.input.TransactItems ?? []) : [];
    expect(items[0]?.Update?.Key).toEqual(requestKeyOf(other.contractId, other.requestId));
    expect(items[1]?.Delete?.Key).toEqual(slotKeyOf(other.contractId));
    expect(items[1]?.Delete?.ExpressionAttributeValues).toEqual({ ':requestId': other.requestId });
  });
});

describe('explainRefusedDecision', () => {
  it('no request item: unknown-request', () => {
    expect(explainRefusedDecision(undefined, decisionOf('IN_REVIEW'))).toEqual({ kind: 'unknown-request' });
  });

  it.each([...DECISION_STATUSES])('a request already %s: a duplicate', (status) => {
    expect(explainRefusedDecision(requestItem(status), decisionOf(status))).toEqual({ kind: 'duplicate', current: status });
  });

  it('the same status under a new id with the same words: a duplicate; with other words: refused, never applied silently', () => {
    const item = { ...requestItem('REJECTED'), statusReason: 'Unpaid balance' };
    expect(explainRefusedDecision(item, decisionOf('REJECTED', 'Unpaid balance'))).toEqual({ kind: 'duplicate', current: 'REJECTED' });
    expect(explainRefusedDecision(item, decisionOf('REJECTED', 'Another reason'))).toEqual({ kind: 'forbidden', current: 'REJECTED' });
    expect(explainRefusedDecision(item, decisionOf('REJECTED'))).toEqual({ kind: 'forbidden', current: 'REJECTED' });
  });

  it('a decision whose eventId the request applied before: a duplicate, even from a later status', () => {
    const decision = decisionOf('IN_REVIEW');
    const item = requestItem('APPROVED', [decision.eventId, 'bo-later']);
    expect(explainRefusedDecision(item, decision)).toEqual({ kind: 'duplicate', current: 'APPROVED' });
  });

  it('matches applied ids exactly: a decisionIds that is not a list, or a similar id, is no duplicate', () => {
    const decision = decisionOf('REJECTED');
    expect(explainRefusedDecision(requestItem('APPROVED', decision.eventId), decision)).toEqual({ kind: 'forbidden', current: 'APPROVED' });
    expect(explainRefusedDecision(requestItem('APPROVED', [`${decision.eventId}-2`]), decision)).toEqual({
      kind: 'forbidden',
      current: 'APPROVED',
    });
  });

  const table = STATUSES.flatMap((current) => DECISION_STATUSES.map((status): [Status, DecisionStatus] => [current, status]));

  it.each(table)('a request in %s refusing %s', (current, status) => {
    const expected =
      current === status
        ? { kind: 'duplicate', current }
        : ALLOWED_FROM[status].includes(current)
          ? { kind: 'retry' }
          : { kind: 'forbidden', current };
    expect(explainRefusedDecision(requestItem(current), decisionOf(status))).toEqual(expected);
  });

  it('a status the condition allows: the request moved since the write; retry', () => {
    expect(explainRefusedDecision(requestItem('IN_REVIEW'), decisionOf('APPROVED'))).toEqual({ kind: 'retry' });
  });

  it.each([
    ['REJECTED', 'COMPLETED'],
    ['COMPLETED', 'REJECTED'],
    ['APPROVED', 'REJECTED'],
    ['APPROVED', 'IN_REVIEW'],
  ] satisfies [Status, DecisionStatus][])('a request %s may not become %s: forbidden, naming its status', (current, status) => {
    expect(explainRefusedDecision(requestItem(current), decisionOf(status))).toEqual({ kind: 'forbidden', current });
  });

  it.each([['CANCELLED'], ['submitted'], [undefined], [3]])('a request item with status %j is malformed: throws', (status) => {
    const item = { ...requestItem('SUBMITTED'), status };
    expect(() => explainRefusedDecision(item, decisionOf('APPROVED'))).toThrow(`Malformed request item ${REQUEST_ID}: status`);
  });
});

describe('explainCancelledDecision', () => {
  const decision = decisionOf('COMPLETED');

  it('the request refused with its old item: explained from that item', () => {
    expect(explainCancelledDecision([failed(requestItem('REJECTED')), none], decision)).toEqual({ kind: 'forbidden', current: 'REJECTED' });
    expect(explainCancelledDecision([failed(requestItem('COMPLETED')), none], decision)).toEqual({
      kind: 'duplicate',
      current: 'COMPLETED',
    });
    expect(explainCancelledDecision([failed(requestItem('APPROVED')), none], decision)).toEqual({ kind: 'retry' });
  });

  it('the request refused without its old item: read the request', () => {
    expect(explainCancelledDecision([failed(), none], decision)).toEqual({ kind: 'read-request' });
    expect(explainCancelledDecision([failed()], decision)).toEqual({ kind: 'read-request' });
  });

  it('the request comes first: a failed slot as well does not hide why the request refused', () => {
    expect(explainCancelledDecision([failed(requestItem('REJECTED')), failed({ requestId: 'other' })], decision)).toEqual({
      kind: 'forbidden',
      current: 'REJECTED',
    });
    expect(explainCancelledDecision([failed(), failed({ requestId: 'other' })], decision)).toEqual({ kind: 'read-request' });
  });

  it('a malformed request item throws rather than retrying', () => {
    expect(() => explainCancelledDecision([failed(requestItem('DONE')), none], decision)).toThrow(/Malformed request item/);
  });

  it('the slot refused: slot-mismatch, naming the request the slot holds', () => {
    const slot = { ...slotKeyOf(CONTRACT_ID), kind: 'ACTIVE_SLOT', requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f99' };
    expect(explainCancelledDecision([none, failed(slot)], decision)).toEqual({
      kind: 'slot-mismatch',
      slotRequestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f99',
    });
  });

  it('the slot refused without an item, or with no string requestId: slot-mismatch naming nobody', () => {
    expect(explainCancelledDecision([none, failed()], decision)).toEqual({ kind: 'slot-mismatch', slotRequestId: undefined });
    expect(explainCancelledDecision([none, failed({ requestId: 42 })], decision)).toEqual({
      kind: 'slot-mismatch',
      slotRequestId: undefined,
    });
  });

  it('no condition failed (a conflict, throttling, or no reasons at all): retry', () => {
    expect(explainCancelledDecision([none, none], decision)).toEqual({ kind: 'retry' });
    expect(explainCancelledDecision([{ Code: 'TransactionConflict' }, none], decision)).toEqual({ kind: 'retry' });
    expect(explainCancelledDecision([none, { Code: 'ThrottlingError' }], decision)).toEqual({ kind: 'retry' });
    expect(explainCancelledDecision([], decision)).toEqual({ kind: 'retry' });
  });
});
