import { describe, expect, it } from 'vitest';
import { thrownBy } from '../support/thrown';
import fc from 'fast-check';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import streamIdempotencyExpired from '../../events/stream-idempotency-expired.json' with { type: 'json' };
import streamRequestCreated from '../../events/stream-request-created.json' with { type: 'json' };
import streamStatusChanged from '../../events/stream-status-changed.json' with { type: 'json' };
import { requestHistoryOf } from '../../lib/dynamodb/request-item';
import { claimOf, eventIdOf, eventsOf, MalformedRecordError } from '../../lib/events/request-events';
import { MalformedItemError } from '../../lib/termination/ports/errors';
import { imageValues, UnreadableImageError } from '../../lib/events/stream-image';
import { streamEvent } from '../../scripts/local/stream-events';

const REQUEST_ID = '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Image = Record<string, AttributeValue>;

function recordAt(event: DynamoDBStreamEvent, index: number): DynamoDBRecord {
  const record = event.Records[index];
  if (!record) throw new Error(`The sample has no record ${index}`);
  return record;
}

function imageOf(image: Image | undefined): Image {
  if (!image) throw new Error('The sample record has no such image');
  return image;
}

const created = streamEvent(streamRequestCreated);
const changed = streamEvent(streamStatusChanged);
const expired = streamEvent(streamIdempotencyExpired);

/** The sample INSERT of the request item itself (the others are its key, slot and number). */
const requestInserted = recordAt(created, 3);
const toInReview = recordAt(changed, 0);
const toRejected = recordAt(changed, 1);

const withImages = (record: DynamoDBRecord, images: { NewImage?: Image; OldImage?: Image }): DynamoDBRecord => ({
  ...record,
  dynamodb: { ...record.dynamodb, ...images },
});
const without = (image: Image, ...names: string[]): Image =>
  Object.fromEntries(Object.entries(image).filter(([name]) => !names.includes(name)));

describe('eventIdOf', () => {
  it('is a name-based (v5) UUID, the same on every call', () => {
    expect(eventIdOf(REQUEST_ID, 'SUBMITTED')).toMatch(UUID);
    expect(eventIdOf(REQUEST_ID, 'SUBMITTED')).toBe(eventIdOf(REQUEST_ID, 'SUBMITTED'));
  });

  it('is the same on every machine and in every version: its namespace is fixed', () => {
    expect(eventIdOf(REQUEST_ID, 'SUBMITTED')).toBe('1dde6087-60f5-5b37-a377-83e60f1779cc');
  });

  it('differs per status of one request', () => {
    const ids = ['SUBMITTED', 'IN_REVIEW', 'APPROVED', 'COMPLETED', 'REJECTED'].map((status) => eventIdOf(REQUEST_ID, status));
    expect(new Set(ids).size).toBe(5);
  });

  it('differs per request, for any two request ids and statuses', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), fc.constantFrom('SUBMITTED', 'REJECTED'), (a, b, status) => {
        fc.pre(a !== b);
        expect(eventIdOf(a, status)).not.toBe(eventIdOf(b, status));
        expect(eventIdOf(a, status)).toBe(eventIdOf(a, status));
      }),
    );
  });
});

/** The event a record claims, or undefined. */
const eventOfRecord = (record: DynamoDBRecord) => claimOf(record)?.event;

/** The sample request as its item stands after its rejection. */
const rejectedItem = () => imageValues(imageOf(toRejected.dynamodb?.NewImage));

describe('claimOf', () => {
  it('a new request item claims its TerminationRequestSubmitted, with exactly the documented fields, about its request', () => {
    expect(claimOf(requestInserted)).toStrictEqual({
      request: { contractId: 'a1a1a1a1-0000-4000-8000-000000000001', requestId: REQUEST_ID },
      event: {
        detailType: 'TerminationRequestSubmitted',
        time: '2026-11-23T09:15:00.000Z',
        detail: {
          eventId: eventIdOf(REQUEST_ID, 'SUBMITTED'),
          requestId: REQUEST_ID,
          contractId: 'a1a1a1a1-0000-4000-8000-000000000001',
          customerId: 'customer-anna',
          requestNumber: 'TR-7KQM-X2PF',
          status: 'SUBMITTED',
          reasonCode: 'RELOCATION',
          desiredTerminationDate: '2045-06-30',
          bankDetails: { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Анна Иванова' },
          comment: 'Moving abroad',
          createdAt: '2026-11-23T09:15:00.000Z',
        },
      },
    });
  });

  it('keeps the table to itself: no pk, sk, kind, idempotency key or unknown attribute in the event', () => {
    const newImage = imageOf(requestInserted.dynamodb?.NewImage);
    const event = eventOfRecord(
      withImages(requestInserted, { NewImage: { ...newImage, fingerprint: { S: 'fp' }, internalNote: { S: 'x' } } }),
    );
    for (const name of ['pk', 'sk', 'kind', 'idempotencyKey', 'fingerprint', 'internalNote'])
      expect(event?.detail).not.toHaveProperty(name);
  });

  it('carries documentIds when the request has them, and no comment when it has none', () => {
    const newImage = imageOf(requestInserted.dynamodb?.NewImage);
    const documentIds = ['5b0e4a3c-1d2f-4e6a-8b7c-9d0e1f2a3b4c'];
    const event = eventOfRecord(
      withImages(requestInserted, {
        NewImage: { ...without(newImage, 'comment'), documentIds: { L: documentIds.map((id) => ({ S: id })) } },
      }),
    );
    expect(event?.detail).toMatchObject({ documentIds });
    expect(event?.detail).not.toHaveProperty('comment');
  });

  it('gives every delivery of the same insert the same event id', () => {
    expect(eventOfRecord(requestInserted)?.detail.eventId).toBe(eventOfRecord(structuredClone(requestInserted))?.detail.eventId);
  });

  it('a status change claims TerminationRequestStatusChanged, from the old status, at the decision time, naming the decision', () => {
    expect(eventOfRecord(toInReview)).toStrictEqual({
      detailType: 'TerminationRequestStatusChanged',
      time: '2026-11-23T10:02:00.000Z',
      detail: {
        eventId: eventIdOf(REQUEST_ID, 'IN_REVIEW'),
        requestId: REQUEST_ID,
        contractId: 'a1a1a1a1-0000-4000-8000-000000000001',
        requestNumber: 'TR-7KQM-X2PF',
        previousStatus: 'SUBMITTED',
        status: 'IN_REVIEW',
        changedAt: '2026-11-23T10:02:00.000Z',
        changedBy: 'BACK_OFFICE',
        decisionEventId: 'bo-2026-11-23-000187',
      },
    });
  });

  it('a status change with a reason carries it, and names the decision of that change', () => {
    expect(eventOfRecord(toRejected)).toStrictEqual({
      detailType: 'TerminationRequestStatusChanged',
      time: '2026-11-24T08:40:00.000Z',
      detail: {
        eventId: eventIdOf(REQUEST_ID, 'REJECTED'),
        requestId: REQUEST_ID,
        contractId: 'a1a1a1a1-0000-4000-8000-000000000001',
        requestNumber: 'TR-7KQM-X2PF',
        previousStatus: 'IN_REVIEW',
        status: 'REJECTED',
        reason: 'По договору есть просроченная задолженность.',
        changedAt: '2026-11-24T08:40:00.000Z',
        changedBy: 'BACK_OFFICE',
        decisionEventId: 'bo-2026-11-24-000342',
      },
    });
  });

  it("the previous status is the old image's: a record that says another than the history's still claims it, for the table to judge", () => {
    const oldImage = imageOf(toRejected.dynamodb?.OldImage);
    const detail = eventOfRecord(
      withImages(toRejected, { OldImage: { ...oldImage, status: { S: 'SUBMITTED' }, statusHistory: { L: [] } } }),
    )?.detail;
    expect(detail).toMatchObject({ previousStatus: 'SUBMITTED', status: 'REJECTED' });
  });

  it('a change of a request item that keeps its status means no event', () => {
    const newImage = imageOf(toRejected.dynamodb?.NewImage);
    expect(
      eventOfRecord(withImages(toRejected, { OldImage: { ...newImage, updatedAt: { S: '2026-11-24T08:00:00.000Z' } } })),
    ).toBeUndefined();
  });

  it.each([
    ['its key', 0],
    ['its slot', 1],
    ['its number', 2],
  ])('the insert of %s next to a request means no event', (_, index) => {
    expect(claimOf(recordAt(created, index))).toBeUndefined();
  });

  it('removals mean no event: a slot freed, an idempotency key expired, even a request item', () => {
    expect(claimOf(recordAt(changed, 2))).toBeUndefined();
    expect(claimOf(recordAt(expired, 0))).toBeUndefined();
    const requestImage = imageOf(toRejected.dynamodb?.NewImage);
    expect(claimOf({ ...withImages(toRejected, { OldImage: requestImage }), eventName: 'REMOVE' })).toBeUndefined();
    expect(claimOf({ ...toRejected, eventName: 'REMOVE' })).toBeUndefined();
  });

  it('a record without a new image, or without its dynamodb part, means no event', () => {
    expect(claimOf({ ...toInReview, dynamodb: { ...toInReview.dynamodb, NewImage: undefined } })).toBeUndefined();
    expect(claimOf({ eventName: 'INSERT' })).toBeUndefined();
  });

  it.each(['customerId', 'requestNumber', 'reasonCode', 'bankDetails', 'createdAt', 'requestId'])(
    'a new request item without %s is malformed',
    (name) => {
      const newImage = imageOf(requestInserted.dynamodb?.NewImage);
      const error = thrownBy(() => claimOf(withImages(requestInserted, { NewImage: without(newImage, name) })));
      expect(error).toBeInstanceOf(MalformedRecordError);
      expect(error).toHaveProperty('name', 'MalformedRecordError');
      expect(error).toHaveProperty('message', expect.stringContaining('4100000000000000000300'));
    },
  );

  it('a new request item with a field of the wrong shape, or a status it never reached, is malformed', () => {
    const newImage = imageOf(requestInserted.dynamodb?.NewImage);
    expect(() => claimOf(withImages(requestInserted, { NewImage: { ...newImage, status: { S: 'IN_REVIEW' } } }))).toThrow(
      MalformedRecordError,
    );
    expect(() => claimOf(withImages(requestInserted, { NewImage: { ...newImage, requestId: { S: 'not-a-uuid' } } }))).toThrow(
      MalformedRecordError,
    );
  });

  it('a new request item that has already changed status is malformed: a creation is SUBMITTED', () => {
    const rejected = imageOf(toRejected.dynamodb?.NewImage);
    expect(() => claimOf(withImages(requestInserted, { NewImage: rejected }))).toThrow(
      new MalformedRecordError('4100000000000000000300', 'a new request item that has changed status'),
    );
  });

  it.each([
    ['statusHistory', 'NewImage'],
    ['customerId', 'NewImage'],
    ['status', 'OldImage'],
  ] satisfies [string, 'NewImage' | 'OldImage'][])('a status change without %s in its %s is malformed', (name, which) => {
    const image = imageOf(toRejected.dynamodb?.[which]);
    const error = thrownBy(() => claimOf(withImages(toRejected, { [which]: without(image, name) })));
    expect(error).toBeInstanceOf(MalformedRecordError);
    expect(error).toHaveProperty('message', expect.stringMatching(/^Stream record 4100000000000000000500: /));
  });

  it('a status change without the old image is malformed: the previous status is unknown', () => {
    const record = { ...toRejected, dynamodb: { ...toRejected.dynamodb, OldImage: undefined } };
    expect(() => claimOf(record)).toThrow(
      new MalformedRecordError('4100000000000000000500', 'a status change without the fields of a StatusChanged event'),
    );
  });

  it('a record without a sequence number says so', () => {
    const newImage = imageOf(requestInserted.dynamodb?.NewImage);
    const record = { ...requestInserted, dynamodb: { NewImage: without(newImage, 'customerId') } };
    expect(() => claimOf(record)).toThrow('Stream record (no sequence number)');
  });

  it('an image holding a type the table does not use is unreadable, not malformed', () => {
    const newImage = imageOf(requestInserted.dynamodb?.NewImage);
    expect(() => claimOf(withImages(requestInserted, { NewImage: { ...newImage, photo: { B: 'AAEC' } } }))).toThrow(UnreadableImageError);
  });
});

describe('eventsOf', () => {
  it("rebuilds every event a request made from its item alone: each genuine record's claim is one of them", () => {
    const history = requestHistoryOf(rejectedItem());
    if (history === undefined) throw new Error('The sample is a request item');
    const events = eventsOf(history);
    expect(events.map((event) => [event.detailType, event.detail.status])).toEqual([
      ['TerminationRequestSubmitted', 'SUBMITTED'],
      ['TerminationRequestStatusChanged', 'IN_REVIEW'],
      ['TerminationRequestStatusChanged', 'REJECTED'],
    ]);
    expect(events).toStrictEqual([eventOfRecord(requestInserted), eventOfRecord(toInReview), eventOfRecord(toRejected)]);
  });

  it("a customer's withdrawal is changed by the customer, with no decision, from the status the change before reached", () => {
    const history = requestHistoryOf({
      ...rejectedItem(),
      status: 'WITHDRAWN',
      statusHistory: [
        { status: 'IN_REVIEW', eventId: 'bo-1', occurredAt: '2026-11-23T10:02:00.000Z', appliedAt: '2026-11-23T10:02:00.100Z' },
        { status: 'WITHDRAWN', by: 'customer', occurredAt: '2026-11-23T11:30:00.000Z', appliedAt: '2026-11-23T11:30:00.000Z' },
      ],
    });
    if (history === undefined) throw new Error('A request item');
    expect(eventsOf(history).at(-1)?.detail).toStrictEqual({
      eventId: eventIdOf(REQUEST_ID, 'WITHDRAWN'),
      requestId: REQUEST_ID,
      contractId: 'a1a1a1a1-0000-4000-8000-000000000001',
      requestNumber: 'TR-7KQM-X2PF',
      previousStatus: 'IN_REVIEW',
      status: 'WITHDRAWN',
      changedAt: '2026-11-23T11:30:00.000Z',
      changedBy: 'CUSTOMER',
    });
  });
});

describe('requestHistoryOf (lib/dynamodb/request-item.ts)', () => {
  it('reads nothing but request items', () => {
    expect(requestHistoryOf(imageValues(imageOf(recordAt(created, 1).dynamodb?.NewImage)))).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ['an entry that names no one who made it', [{ status: 'IN_REVIEW', occurredAt: '2026-11-23T10:02:00.000Z' }]],
    [
      'a status reached twice',
      [
        { status: 'REJECTED', eventId: 'bo-1', occurredAt: '2026-11-23T10:02:00.000Z' },
        { status: 'REJECTED', eventId: 'bo-2', occurredAt: '2026-11-23T10:03:00.000Z' },
      ],
    ],
    ['a change back to the first status', [{ status: 'SUBMITTED', eventId: 'bo-1', occurredAt: '2026-11-23T10:02:00.000Z' }]],
    ['an entry without its time', [{ status: 'REJECTED', eventId: 'bo-1' }]],
    ['a history that is not a list', 'REJECTED'],
    ['a history whose last status is not the item’s', [{ status: 'IN_REVIEW', eventId: 'bo-1', occurredAt: '2026-11-23T10:02:00.000Z' }]],
  ])('refuses %s', (_, statusHistory) => {
    expect(() => requestHistoryOf({ ...rejectedItem(), statusHistory })).toThrow(MalformedItemError);
  });

  it('refuses what was submitted in a shape the create never takes', () => {
    expect(() => requestHistoryOf({ ...rejectedItem(), bankDetails: { bik: '1' } })).toThrow(/what was submitted \(bankDetails/);
  });
});

describe('imageValues', () => {
  it('reads strings, numbers, booleans and null', () => {
    expect(
      imageValues({
        s: { S: 'text' },
        empty: { S: '' },
        n: { N: '4102444800' },
        negative: { N: '-1.5' },
        yes: { BOOL: true },
        no: { BOOL: false },
        nothing: { NULL: true },
      }),
    ).toStrictEqual({ s: 'text', empty: '', n: 4102444800, negative: -1.5, yes: true, no: false, nothing: null });
  });

  it('reads lists, maps and string sets, nested', () => {
    expect(
      imageValues({
        list: { L: [{ S: 'a' }, { N: '2' }, { L: [{ BOOL: true }] }, { M: { x: { NULL: true } } }] },
        map: { M: { inner: { M: { deep: { S: 'd' } } }, items: { L: [] } } },
        set: { SS: ['b', 'a'] },
      }),
    ).toStrictEqual({
      list: ['a', 2, [true], { x: null }],
      map: { inner: { deep: 'd' }, items: [] },
      set: ['b', 'a'],
    });
  });

  it('copies a string set rather than sharing it', () => {
    const strings = ['a'];
    const values = imageValues({ set: { SS: strings } });
    strings.push('b');
    expect(values['set']).toEqual(['a']);
  });

  it('reads an empty image as an empty object', () => {
    expect(imageValues({})).toEqual({});
  });

  it.each<[string, AttributeValue]>([
    ['B', { B: 'AAEC' }],
    ['BS', { BS: ['AAEC'] }],
    ['NS', { NS: ['1'] }],
  ])('refuses %s', (type, attribute) => {
    const error = thrownBy(() => imageValues({ field: attribute }));
    expect(error).toBeInstanceOf(UnreadableImageError);
    expect(error).toHaveProperty('name', 'UnreadableImageError');
    expect(error).toHaveProperty('message', expect.stringContaining(type));
  });

  it('refuses a binary value nested in a map or a list', () => {
    expect(() => imageValues({ map: { M: { blob: { B: 'AAEC' } } } })).toThrow(UnreadableImageError);
    expect(() => imageValues({ list: { L: [{ S: 'fine' }, { B: 'AAEC' }] } })).toThrow(UnreadableImageError);
  });

  it('reads the sample request item whole', () => {
    expect(imageValues(imageOf(toRejected.dynamodb?.NewImage))).toMatchObject({
      kind: 'REQUEST',
      status: 'REJECTED',
      bankDetails: { bik: '044525225' },
      decisionIds: ['bo-2026-11-23-000187', 'bo-2026-11-24-000342'],
      statusHistory: [{ status: 'IN_REVIEW' }, { status: 'REJECTED', reason: 'По договору есть просроченная задолженность.' }],
    });
  });
});
