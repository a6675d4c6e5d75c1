import { describe, expect, it } from 'vitest';
import type { RequestHistory } from '../../lib/termination/ports/request-history';
import { detailsOf, SHOWN_ACCOUNT_DIGITS } from '../../lib/termination/request-details';

/*
 * A request's details as its owner sees them (docs/decisions/0022-what-a-customer-sees-of-a-request.md),
 * made from the request's history: the account cut, every status in order, the bank's words where
 * it gave some. The route itself, against DynamoDB Local: tests/integration/customer-requests.test.ts.
 */

const history: RequestHistory = {
  requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01',
  requestNumber: 'TR-7KQM-X2PF',
  contractId: 'a1a1a1a1-0000-4000-8000-000000000001',
  customerId: 'customer-anna',
  createdAt: '2026-11-21T09:30:00.000Z',
  status: 'WITHDRAWN',
  submission: {
    reasonCode: 'RELOCATION',
    desiredTerminationDate: '2030-06-30',
    bankDetails: { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Anna Ivanova' },
    comment: 'Moving abroad',
  },
  changes: [
    {
      status: 'IN_REVIEW',
      previousStatus: 'SUBMITTED',
      changedAt: '2026-11-22T08:00:00.000Z',
      reason: 'Documents received',
      changedBy: 'BACK_OFFICE',
      decisionEventId: 'e1',
    },
    { status: 'WITHDRAWN', previousStatus: 'IN_REVIEW', changedAt: '2026-11-23T10:00:00.000Z', changedBy: 'CUSTOMER' },
  ],
};

describe('detailsOf', () => {
  it('keeps only the last digits of the account, and every other field as submitted', () => {
    const { submitted } = detailsOf(history);
    expect(submitted).toEqual({
      reasonCode: 'RELOCATION',
      desiredTerminationDate: '2030-06-30',
      bankDetails: { bik: '044525225', accountNumberLast4: '0001', recipientName: 'Anna Ivanova' },
      comment: 'Moving abroad',
    });
    expect(SHOWN_ACCOUNT_DIGITS).toBe(4);
    expect(JSON.stringify(detailsOf(history))).not.toContain(history.submission.bankDetails.accountNumber);
  });

  it('starts the timeline at the creation and follows every change, with the bank’s words only where it gave some', () => {
    expect(detailsOf(history).timeline).toEqual([
      { status: 'SUBMITTED', at: '2026-11-21T09:30:00.000Z' },
      { status: 'IN_REVIEW', at: '2026-11-22T08:00:00.000Z', reason: 'Documents received' },
      { status: 'WITHDRAWN', at: '2026-11-23T10:00:00.000Z' },
    ]);
  });

  it("gives the request as a GET does: its current status, and the bank's words only when the current status has them", () => {
    expect(detailsOf(history).request).toEqual({
      requestId: history.requestId,
      requestNumber: history.requestNumber,
      status: 'WITHDRAWN',
      createdAt: history.createdAt,
    });
    expect(detailsOf({ ...history, status: 'IN_REVIEW', changes: history.changes.slice(0, 1) }).request.statusReason).toBe(
      'Documents received',
    );
    expect(detailsOf({ ...history, status: 'SUBMITTED', changes: [] }).timeline).toEqual([{ status: 'SUBMITTED', at: history.createdAt }]);
  });
});
