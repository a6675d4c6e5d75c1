import { describe, expect, it } from 'vitest';
import { createTerminationClient, type ErrorCode, type TerminationRequestStatus } from '../../client';

/*
 * What the API may add within v1 (docs/decisions/0001-api-contract-and-versioning.md), fed to
 * the TypeScript client: a field it does not know and a code or status it does not know. It
 * hands both over as they came, and a switch with a default branch (docs/clients.md) takes them.
 * A stubbed fetch, since the service itself never answers with a code it does not have yet.
 */

function clientAnswering(status: number, body: unknown) {
  return createTerminationClient({
    baseUrl: 'http://api.test',
    token: () => 'token',
    sleep: async () => undefined,
    fetch: async () => Response.json(body, { status }),
  });
}

/** What an app does with a code, a default branch for those it does not know. */
function actionFor(code: ErrorCode): string {
  switch (code) {
    case 'UNAUTHORIZED':
      return 'sign in';
    case 'SERVICE_UNAVAILABLE':
      return 'try later';
    default:
      return 'show the message';
  }
}

/** What an app shows for a status, a default branch for those it does not know. */
function labelFor(status: TerminationRequestStatus): string {
  switch (status) {
    case 'SUBMITTED':
    case 'IN_REVIEW':
      return 'in progress';
    default:
      return 'see the message';
  }
}

const request = {
  requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01',
  requestNumber: 'TR-7KQM-X2PF',
  createdAt: '2026-11-23T09:15:00.000Z',
  message: 'Your request No. TR-7KQM-X2PF is on hold.',
};

describe('the TypeScript client, given what a later v1 may answer', () => {
  it('hands over an error with an unknown field and an unknown code as it came, and the default branch takes it', async () => {
    const body = { errorCode: 'A_CODE_ADDED_LATER', message: 'Not now.', correlationId: 'c-1', details: [], addedLater: { any: 1 } };
    const result = await clientAnswering(422, body).createTerminationRequest('c', {
      reasonCode: 'RELOCATION',
      desiredTerminationDate: '2045-06-30',
      bankDetails: { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Anna Ivanova' },
    });
    expect(result).toMatchObject({ ok: false, reason: 'refused', status: 422, error: body, attempts: 1 });
    if (result.ok || result.reason !== 'refused') throw new Error('not refused');
    expect(actionFor(result.error.errorCode)).toBe('show the message');
  });

  it('reads a list whose items carry an unknown field and an unknown status', async () => {
    const body = { items: [{ ...request, status: 'ON_HOLD', addedLater: 'x' }], addedLater: true };
    const result = await clientAnswering(200, body).listTerminationRequests('c');
    expect(result).toMatchObject({ ok: true, value: body });
    if (!result.ok) throw new Error('not read');
    expect(result.value.items.map((item) => labelFor(item.status))).toEqual(['see the message']);
  });
});
