import { DEFAULT_BUSINESS_TIME_ZONE } from '../../lib/config';
import { retainedUntil } from '../../lib/termination/retention';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionEvent } from '../../scripts/local/decision-event';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { FIELDS, PLACES, type FieldUse, type Place } from '../../scripts/data-protection-doc';
import { USABLE_DOCUMENT_STATUS } from '../../lib/termination/documents';
import { scanAll } from '../support/local-tables';
import type { StreamPoller } from '../../scripts/local/stream-poller';
import { bankDetails, headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf } from '../support/handler';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { captureLogs } from '../reliability/log-capture';
import { logger } from '../../lib/observability/logger';

/*
 * The record of processing (docs/data-protection.md) says where each personal field goes: here
 * one customer's request goes everywhere it can (created naming a document of theirs, replayed,
 * refused, read, listed, a decision with the bank's reason applied, withdrawn, a late decision
 * and one whose signature does not cover its reason refused to the dead-letter queue, every event
 * published), and what the table, the logs, the events and the dead letters then hold of that
 * customer's values must be what the record declares, no more and no less. The settings that
 * end an item are given figures of this test's own, so an expiry is traced to the setting the
 * record names.
 */

/** The settings the record names for expiries, at figures no default has. */
const SETTINGS: Record<string, string> = { REQUEST_RETENTION_YEARS: '7', REQUEST_LIMIT_DAYS: '17', IDEMPOTENCY_TTL_HOURS: '5' };
/** Seconds per unit of a setting, by its name's unit. */
const unitSeconds = (setting: string): number => {
  if (setting.endsWith('_DAYS')) return 86_400;
  if (setting.endsWith('_HOURS')) return 3600;
  throw new Error(`No unit in ${setting}`);
};

const suffix = randomUUID()
  .replace(/[^a-f]/g, '')
  .slice(0, 8);
/** Each personal field's value for this test's customer: distinctive, so a leak is found wherever it lands. */
const VALUES = {
  customerId: `customer-record-${randomUUID()}`,
  reasonCode: 'BETTER_OFFER_ELSEWHERE',
  desiredTerminationDate: '2039-07-19',
  accountNumber: DEMO_BANK_DETAILS.accountNumber,
  recipientName: `Zinaida Recordova ${suffix}`,
  comment: `Moving abroad, note ${randomUUID()}`,
  documentIds: randomUUID(),
  reason: `The contract is pledged, ref ${randomUUID()}`,
};
const MASKED_ACCOUNT = `${'*'.repeat(16)}${DEMO_BANK_DETAILS.accountNumber.slice(-4)}`;

let stack: LifecycleStack;
let poller: StreamPoller;
let logs: ReturnType<typeof captureLogs>;
let contractId: string;
let requestId: string;
/** The table's items while the request was active, then after it was withdrawn. */
let activeItems: Record<string, unknown>[];
let finalItems: Record<string, unknown>[];
/** The documents table as the documents service wrote it, then after the run. */
let documentsBefore: Record<string, unknown>[];
let documentsAfter: Record<string, unknown>[];
/** Every decision's signature, in the order sent: the first applied, the other two refused. */
const signatures: string[] = [];

/** The record's fields of one place, with how. */
const placeOf = (placeId: string): Place => {
  const place = PLACES.find((p) => p.id === placeId);
  if (place === undefined) throw new Error(`The record has no place ${placeId}`);
  return place;
};
const declared = (placeId: string): FieldUse[] => placeOf(placeId).fields({});
const declaredFields = (placeId: string) => [...new Set(declared(placeId).map((use) => use.field))].sort();
/** The personal fields whose value this text holds. */
const fieldsIn = (text: string) =>
  Object.entries(VALUES)
    .filter(([, value]) => text.includes(value))
    .map(([field]) => field)
    .sort();

beforeAll(async () => {
  Object.assign(process.env, SETTINGS);
  stack = await useLifecycleStack();
  // Every line a function writes as deployed (the test environment silences them by default).
  logger.setLogLevel('INFO');
  logs = captureLogs();
  try {
    contractId = await newContract(stack.tables, { customerId: VALUES.customerId });
    await stack.tables.addDocuments([
      {
        documentId: VALUES.documentIds,
        customerId: VALUES.customerId,
        status: USABLE_DOCUMENT_STATUS,
        fileName: 'pledge-release.pdf',
        uploadedAt: '2026-11-02T08:15:00.000Z',
      },
    ]);
    documentsBefore = await scanAll(stack.tables.doc, stack.tables.names.documents);
    const body = validBody({
      reasonCode: VALUES.reasonCode,
      desiredTerminationDate: VALUES.desiredTerminationDate,
      bankDetails: bankDetails({ recipientName: VALUES.recipientName }),
      comment: VALUES.comment,
      documentIds: [VALUES.documentIds],
    });
    const key = randomUUID();
    const create = (k: string) => callHandler({ contractId, customerId: VALUES.customerId, body, headers: headersWithKey(k) });
    const created = await create(key);
    expect(created.status).toBe(201);
    requestId = String(created.body['requestId']);
    expect((await create(key)).status).toBe(200);
    expect((await create(randomUUID())).status).toBe(409);
    expect((await callHandler({ method: 'GET', contractId, requestId, customerId: VALUES.customerId })).status).toBe(200);
    expect((await callHandler({ method: 'GET', contractId, customerId: VALUES.customerId })).status).toBe(200);
    expect((await callHandler({ method: 'GET', contractId, requestId, customerId: DEMO_CUSTOMERS.boris.customerId })).status).toBe(403);
    const decide = async (event: ReturnType<typeof decisionEvent>) => {
      signatures.push(event.detail.signature);
      return (await stack.decide(event)).outcome;
    };
    expect(await decide(decisionEvent({ contractId, requestId, status: 'IN_REVIEW', reason: VALUES.reason }))).toBe('applied');
    // Signed over other words than it carries: refused unauthenticated, the whole event to the dead-letter queue.
    expect(
      await decide(
        decisionEvent({
          contractId,
          requestId,
          status: 'APPROVED',
          reason: VALUES.reason,
          signature: { claims: { reason: 'Other words' } },
        }),
      ),
    ).toBe('unauthenticated');
    activeItems = await stack.tables.contractItems(contractId);
    const withdrawn = await callHandler(withdrawalOf({ contractId, requestId }, VALUES.customerId));
    expect(withdrawn.status).toBe(200);
    // A decision that comes too late: refused, the whole event to the dead-letter queue.
    expect(await decide(decisionEvent({ contractId, requestId, status: 'APPROVED', reason: VALUES.reason }))).toBe('forbidden-transition');
    // The publisher reads the stream from its start once the calls are done: in this one process
    // it shares the logger with the API functions, and a batch published during a call would
    // reset that call's keys (in Lambda each function has its own).
    poller = await stack.startPublishing();
    await poller.drain();
  } finally {
    logs.restore();
    logger.setLogLevel('SILENT');
  }
  finalItems = await stack.tables.requestItems();
  documentsAfter = await scanAll(stack.tables.doc, stack.tables.names.documents);
}, 60_000);

afterAll(() => stack.stop());

describe('the record of processing, against what the service does', () => {
  it("keeps every field the schemas mark out of the functions' logs, but the account's last four digits", () => {
    const lines = logs.lines();
    expect(lines.length).toBeGreaterThan(8);
    const leaked = [...new Set(lines.flatMap(fieldsIn))];
    expect(leaked).toEqual([]);
    // Nor a decision's signature, which repeats the reason encoded: not any 48 characters of its claims
    // (each holds one of these 32-character windows).
    expect(signatures).toHaveLength(3);
    for (const signature of signatures) {
      const claims = signature.split('.')[1] ?? '';
      expect(claims.length).toBeGreaterThan(100);
      const windows = Array.from({ length: Math.floor((claims.length - 32) / 16) + 1 }, (_, i) => claims.slice(i * 16, i * 16 + 32));
      expect(lines.filter((line) => windows.some((window) => line.includes(window)))).toEqual([]);
    }
    // The refusals are logged, by ids and why.
    expect(lines.filter((line) => line.includes('Decision refused'))).toHaveLength(2);
    // What the record says the logs hold, and they do: the masked account on the create's answer lines (the 201, the replay).
    expect(declared('function-logs')).toEqual([{ field: 'accountNumber', as: expect.stringContaining('last four digits') }]);
    expect(lines.filter((line) => line.includes(MASKED_ACCOUNT)).map((line) => /"statusCode":(\d+)/.exec(line)?.[1])).toEqual([
      '201',
      '200',
    ]);
    // Every answer line names the contract: how on-call finds one customer's calls.
    const answers = lines.filter((line) => line.includes('"statusCode"'));
    expect(answers.length).toBeGreaterThanOrEqual(6);
    for (const line of answers) expect(line).toContain(`"contractId":"${contractId}"`);
  });

  it('stores in each kind of item of the requests table exactly the fields the record says', () => {
    const kinds: Record<string, string> = {
      REQUEST: 'request-item',
      ACTIVE_SLOT: 'slot-item',
      REQUEST_LIMIT: 'limit-record',
      IDEMPOTENCY: 'key-records',
      WITHDRAWAL_KEY: 'key-records',
    };
    const mine = finalItems.filter((item) => JSON.stringify(item).includes(VALUES.customerId));
    const found = new Map<string, Set<string>>();
    for (const item of [...activeItems, ...mine]) {
      const kind = String(item['kind']);
      const place = kinds[kind];
      const fields = fieldsIn(JSON.stringify(item));
      if (place === undefined) {
        expect([kind, fields]).toEqual([kind, []]);
        continue;
      }
      found.set(place, new Set([...(found.get(place) ?? []), ...fields]));
    }
    for (const place of new Set(Object.values(kinds)))
      expect([place, [...(found.get(place) ?? [])].sort()]).toEqual([place, declaredFields(place)]);
    // The reason twice on the request: as its statusReason, and in the history of its changes.
    const request = activeItems.find((item) => item['kind'] === 'REQUEST');
    expect(request?.['statusReason']).toBe(VALUES.reason);
    expect(JSON.stringify(request?.['statusHistory'])).toContain(VALUES.reason);
    // The slot goes with the withdrawal, as the record says.
    expect(activeItems.some((item) => item['kind'] === 'ACTIVE_SLOT')).toBe(true);
    expect(finalItems.some((item) => item['kind'] === 'ACTIVE_SLOT' && item['pk'] === `CONTRACT#${contractId}`)).toBe(false);
  });

  it('ends exactly the items the record gives an expiry, each by the setting it names', () => {
    const kinds: Record<string, string> = {
      REQUEST: 'request-item',
      REQUEST_LIMIT: 'limit-record',
      IDEMPOTENCY: 'key-records',
      WITHDRAWAL_KEY: 'key-records',
    };
    const mine = finalItems.filter((item) => JSON.stringify(item).includes(VALUES.customerId));
    const expiring = [...new Set(mine.filter((item) => item['expiresAt'] !== undefined).map((item) => kinds[String(item['kind'])]))].sort();
    const declaredExpiring = PLACES.filter((place) => place.expiresBy !== undefined).map((place) => place.id);
    expect(expiring).toEqual([...declaredExpiring].sort());
    /** When an item ends, by the setting its place names, counted from `from` (an ISO time or epoch seconds). */
    const endOf = (placeId: string, from: unknown): number => {
      const setting = placeOf(placeId).expiresBy ?? '';
      const start = typeof from === 'number' ? from : Math.floor(Date.parse(String(from)) / 1000);
      // Whole years after the end of the calendar year it started in, in the business time zone (the default's).
      if (setting === 'REQUEST_RETENTION_YEARS')
        return retainedUntil(new Date(start * 1000), {
          kind: 'calendar-years',
          years: Number(SETTINGS[setting]),
          timeZone: DEFAULT_BUSINESS_TIME_ZONE,
        });
      return start + Number(SETTINGS[setting]) * unitSeconds(setting);
    };
    // The request: no expiry while active; the withdrawal that made it final set it.
    const active = activeItems.find((item) => item['kind'] === 'REQUEST');
    expect(active?.['expiresAt']).toBeUndefined();
    const request = mine.find((item) => item['kind'] === 'REQUEST');
    expect(request?.['status']).toBe('WITHDRAWN');
    expect(request?.['expiresAt']).toBe(endOf('request-item', request?.['statusChangedAt']));
    // The limit record: a period after the customer's latest request on the contract (t0).
    const limit = mine.find((item) => item['kind'] === 'REQUEST_LIMIT');
    expect(limit?.['sk']).toBe(`LIMIT#${VALUES.customerId}`);
    expect(limit?.['expiresAt']).toBe(endOf('limit-record', limit?.['t0']));
    // The key records: a period after the call that wrote them.
    for (const record of mine.filter((item) => kinds[String(item['kind'])] === 'key-records'))
      expect([record['kind'], record['expiresAt']]).toEqual([record['kind'], endOf('key-records', record['createdAt'])]);
  });

  it("compares the customer's id and the documents' ids with the documents table, and writes nothing there", () => {
    expect(declaredFields('documents')).toEqual(['customerId', 'documentIds']);
    expect(documentsBefore.map((item) => item['documentId'])).toContain(VALUES.documentIds);
    expect(documentsAfter).toEqual(documentsBefore);
  });

  it('publishes in each event exactly the fields the record says, and keeps the whole refused decision in the dead letters', () => {
    const events = stack.standIn.events.filter((event) => JSON.stringify(event.detail).includes(requestId));
    const byType = (type: string) =>
      [...new Set(events.filter((e) => e.detailType === type).flatMap((e) => fieldsIn(JSON.stringify(e.detail))))].sort();
    expect(byType('TerminationRequestSubmitted')).toEqual(declaredFields('submitted-event'));
    expect(byType('TerminationRequestStatusChanged')).toEqual(declaredFields('status-changed-event'));
    const deadLetters = stack.standIn.messages.filter((message) => JSON.stringify(message).includes(requestId));
    expect(deadLetters).toHaveLength(2);
    expect(fieldsIn(JSON.stringify(deadLetters))).toEqual(declaredFields('decision-dead-letters'));
    // The reason also as the signature that repeats it: each refused decision whole, its signature with it.
    expect(declared('decision-dead-letters')).toContainEqual({ field: 'reason', as: '`signature`' });
    const refused = signatures.slice(1);
    for (const signature of refused) expect(deadLetters.filter((message) => JSON.stringify(message).includes(signature))).toHaveLength(1);
  });

  it('has a value here for every field the record names that a request carries', () => {
    expect(FIELDS.map((field) => field.id).filter((id) => !['sourceIp', 'userAgent'].includes(id))).toEqual(Object.keys(VALUES));
  });
});
