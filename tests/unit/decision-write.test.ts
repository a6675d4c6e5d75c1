import { describe, expect, it } from 'vitest';
import { buildDecisionWrite, type DecisionWrite } from '../../lib/dynamodb/decision-write';
import { partItem, type Failure } from '../../lib/dynamodb/write-parts';
import { explainStatusRefusal } from '../../lib/dynamodb/status-write';
import type { Decision } from '../../lib/termination/ports/decision';
import { requestKeyOf, slotKeyOf } from '../../lib/dynamodb/keys';
import { moveTo } from '../../lib/termination/lifecycle';
import { DECISION_STATUSES } from '../../lib/api-model/event-schemas';

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

/** The UpdateItem of the request, whichever form the write takes. */
function requestUpdateOf(write: DecisionWrite) {
  return write.kind === 'update' ? write.input : partItem(write, 'request')?.Update;
}

/** Every `:name` and `#name` an expression uses. */
const placeholders = (expressions: (string | undefined)[], sigil: string) =>
  new Set(expressions.flatMap((expression) => [...(expression ?? '').matchAll(new RegExp(`${sigil}\\w+`, 'g'))].map(([name]) => name)));

/** The request's or the slot's failed condition, with the item as it came back or as the store read it after. */
const requestFailed = (item?: Record<string, unknown>, readAfter = false): Failure => ({
  part: 'request',
  item,
  readAfter,
  failed: [{ name: 'request' }],
});
const slotFailed = (item?: Record<string, unknown>): Failure => ({
  part: 'slot',
  item,
  readAfter: false,
  failed: [{ name: 'slot' }],
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
    expect(buildDecisionWrite(tables, decisionOf(status), moveTo(status), APPLIED_AT).kind).toBe(kind);
  });

  it.each([...DECISION_STATUSES])(
    '%s sets the status, its time, the update time, and appends the decision id and history entry',
    (status) => {
      const decision = decisionOf(status);
      const update = requestUpdateOf(buildDecisionWrite(tables, decision, moveTo(decision.status), APPLIED_AT));
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
    const update = requestUpdateOf(buildDecisionWrite(tables, decisionOf(status, 'Debt on the contract.'), moveTo(status), APPLIED_AT));
    const expression = update?.UpdateExpression ?? '';
    expect(expression).toMatch(/^SET [^]*, statusReason = :reason$/);
    expect(expression).not.toContain('REMOVE');
    expect(update?.ExpressionAttributeValues?.[':reason']).toBe('Debt on the contract.');
    expect(update?.ExpressionAttributeValues?.[':entries']).toEqual([expect.objectContaining({ reason: 'Debt on the contract.' })]);
  });

  it.each([...DECISION_STATUSES])('%s without a reason: REMOVE statusReason, so an old one does not linger', (status) => {
    const update = requestUpdateOf(buildDecisionWrite(tables, decisionOf(status), moveTo(status), APPLIED_AT));
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
      const update = requestUpdateOf(buildDecisionWrite(tables, decision, moveTo(decision.status), APPLIED_AT));
      const expressions = [update?.UpdateExpression, update?.ConditionExpression];
      expect(placeholders(expressions, ':')).toEqual(new Set(Object.keys(update?.ExpressionAttributeValues ?? {})));
      expect(placeholders(expressions, '#')).toEqual(new Set(Object.keys(update?.ExpressionAttributeNames ?? {})));
    },
  );

  it.each(['COMPLETED', 'REJECTED'] satisfies DecisionStatus[])('%s also deletes the contract slot, if it names this request', (status) => {
    const write = buildDecisionWrite(tables, decisionOf(status), moveTo(status), APPLIED_AT);
    if (write.kind !== 'transaction') throw new Error(`${status} wrote no transaction`);
    expect(write.parts).toEqual([{ name: 'request' }, { name: 'slot' }]);
    expect(write.input.TransactItems).toHaveLength(2);
    expect(Object.keys(partItem(write, 'request') ?? {})).toEqual(['Update']);
    expect(Object.keys(partItem(write, 'slot') ?? {})).toEqual(['Delete']);
    expect(partItem(write, 'slot')?.Delete).toEqual({
      TableName: 'requests',
      Key: slotKeyOf(CONTRACT_ID),
      ConditionExpression: 'requestId = :requestId',
      ExpressionAttributeValues: { ':requestId': REQUEST_ID },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('keeps the slot of an active request: IN_REVIEW and APPROVED write nothing but the request', () => {
    for (const status of ['IN_REVIEW', 'APPROVED'] satisfies DecisionStatus[]) {
      const write = buildDecisionWrite(tables, decisionOf(status), moveTo(status), APPLIED_AT);
      expect(write.kind).toBe('update');
      if (write.kind === 'update') expect(write.part).toEqual({ name: 'request' });
      expect(JSON.stringify(write.input)).not.toContain('ACTIVE');
    }
  });

  it('keys the write by the decision, not by anything shared between calls', () => {
    const other = {
      ...decisionOf('COMPLETED'),
      requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f99',
      contractId: 'b2b2b2b2-0000-4000-8000-000000000002',
    };
    const write = buildDecisionWrite(tables, other, moveTo(other.status), APPLIED_AT);
    if (write.kind !== 'transaction') throw new Error('COMPLETED wrote no transaction');
    expect(partItem(write, 'request')?.Update?.Key).toEqual(requestKeyOf(other.contractId, other.requestId));
    expect(partItem(write, 'slot')?.Delete?.Key).toEqual(slotKeyOf(other.contractId));
    expect(partItem(write, 'slot')?.Delete?.ExpressionAttributeValues).toEqual({ ':requestId': other.requestId });
  });
});

describe("explainStatusRefusal: the facts, from a decision's first failed condition", () => {
  const explain = (failure: Failure | undefined) => explainStatusRefusal(failure, REQUEST_ID);

  it('the request refused with its old item: that request', () => {
    const item = { ...requestItem('REJECTED', ['bo-1', 7]), customerId: 'customer-anna', statusReason: 'Unpaid balance' };
    expect(explain(requestFailed(item))).toEqual({
      kind: 'request-condition-failed',
      request: { customerId: 'customer-anna', status: 'REJECTED', statusReason: 'Unpaid balance', decisionIds: ['bo-1'] },
    });
  });

  it('the request as the read after found it; none there is no request', () => {
    expect(explain(requestFailed(requestItem('APPROVED', 'not a list'), true))).toEqual({
      kind: 'request-condition-failed',
      request: { customerId: undefined, status: 'APPROVED', statusReason: undefined, decisionIds: [] },
    });
    expect(explain(requestFailed(undefined, true))).toEqual({ kind: 'request-condition-failed', request: undefined });
  });

  it.each([['CANCELLED'], ['submitted'], [undefined], [3]])('a request item with status %j is malformed: throws', (status) => {
    const item = { ...requestItem('SUBMITTED'), status };
    expect(() => explain(requestFailed(item))).toThrow(`Malformed request item ${REQUEST_ID}: status`);
  });

  it('a request item whose statusReason is not text is malformed: throws', () => {
    const item = { ...requestItem('REJECTED'), statusReason: 42 };
    expect(() => explain(requestFailed(item))).toThrow(/Malformed request item/);
  });

  it('the slot refused: the request it names instead, or none', () => {
    const slot = { ...slotKeyOf(CONTRACT_ID), kind: 'ACTIVE_SLOT', requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f99' };
    expect(explain(slotFailed(slot))).toEqual({ kind: 'slot-condition-failed', slotRequestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f99' });
    expect(explain(slotFailed())).toEqual({ kind: 'slot-condition-failed', slotRequestId: undefined });
    expect(explain(slotFailed({ requestId: 42 }))).toEqual({ kind: 'slot-condition-failed', slotRequestId: undefined });
  });

  it('no condition failed (a conflict, throttling, or no reasons at all): a conflict', () => {
    expect(explain(undefined)).toEqual({ kind: 'conflict' });
  });
});
