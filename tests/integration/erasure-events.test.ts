import { readFileSync } from 'node:fs';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isErasedDetail } from '../../lib/api-model/validator';
import { CustomerData } from '../../lib/dynamodb/customer-data';
import { ledgerPartition } from '../../lib/dynamodb/erasure-ledger';
import { requestKeyOf } from '../../lib/dynamodb/keys';
import { eventIdOf } from '../../lib/events/request-events';
import { imageValues } from '../../lib/events/stream-image';
import { ERASURE_RULES } from '../../lib/termination/erasure';
import { matchesPattern } from '../../scripts/local/event-pattern';
import { PUBLISHED_SAMPLES } from '../../scripts/local/published-samples';
import type { StreamPoller } from '../../scripts/local/stream-poller';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler, withdrawalOf } from '../support/handler';
import { jsonObject } from '../support/json';
import { keepJsonLines } from '../support/json-lines';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { publishFromStream, type PublisherHandler } from '../support/publisher-stream';
import { streamFilterPatterns } from '../../scripts/local/template-patterns';
import { WITHDRAWN_SAMPLE, WITHDRAWN_SAMPLE_CONTRACT_ID, WITHDRAWN_SAMPLE_ID, writeWithdrawnSample } from '../support/sample-request';
import { callsDuring, installSdkRecorder } from '../support/sdk-calls';
import { verifiedEvents } from '../support/signed-events';
import { streamEvent } from '../../scripts/local/stream-events';

/*
 * The back office learns of an erasure as it learns of everything else (docs/decisions/0025-erasure.md):
 * npm run erase's ledger entry comes through the ledger's stream (DynamoDB Local's, read as
 * Lambda's mapping reads it, with its filter) into the real publisher, which confirms it against
 * the ledger and the requests table and puts one signed TerminationRequestErased on the bus. A
 * forged or untrue ledger record, and a ledger entry's expiry, publish nothing.
 */

let stack: LifecycleStack;
let poller: StreamPoller;
let data: CustomerData;
let uninstall: () => void;
/** Every ledger record the stream handed the publisher, in order. */
const streamed: DynamoDBRecord[] = [];
let handler: PublisherHandler;
const anna = 'customer-anna';

/** The JSON lines the publisher writes (its log and EMF metric lines), kept for the tests that read them. */
const lines: Record<string, unknown>[] = [];
let restoreOutput: () => void = () => undefined;

beforeAll(async () => {
  restoreOutput = keepJsonLines(lines);
  stack = await useLifecycleStack();
  ({ handler, poller } = await publishFromStream(stack, 'erasures', streamed));
  data = new CustomerData(stack.tables.doc, { requests: stack.tables.names.requests, ledger: stack.tables.ledger }, ERASURE_RULES);
  uninstall = installSdkRecorder();
});
afterAll(async () => {
  uninstall();
  await poller.stop();
  await stack.stop();
  restoreOutput();
});
beforeEach(async () => {
  await poller.drain();
  stack.standIn.clear();
  lines.length = 0;
});

const unconfirmedCount = () =>
  lines.reduce((sum, line) => sum + (typeof line['UnconfirmedRecords'] === 'number' ? line['UnconfirmedRecords'] : 0), 0);

/** One of Anna's requests on a contract of its own, withdrawn: final, so an erasure takes it. */
async function withdrawnRequest(): Promise<{ contractId: string; requestId: string; requestNumber: string }> {
  const contractId = await newContract(stack.tables);
  const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  const request = { contractId, requestId: String(answer.body['requestId']), requestNumber: String(answer.body['requestNumber']) };
  expect((await callHandler(withdrawalOf(request, anna))).status).toBe(200);
  return request;
}

/** The ledger records the stream carried for a request, once it has caught up. */
async function ledgerRecordsOf(requestId: string): Promise<DynamoDBRecord[]> {
  await poller.drain();
  return streamed.filter((record) => record.dynamodb?.NewImage?.['requestId']?.S === requestId);
}

const publish = (...records: DynamoDBRecord[]) => handler({ Records: records });

function copyOf(record: DynamoDBRecord | undefined, change: (image: Record<string, { S?: string }>) => void = () => undefined) {
  if (record?.dynamodb?.NewImage === undefined) throw new Error('No ledger record with a new image');
  const copy = structuredClone(record);
  const image = copy.dynamodb?.NewImage;
  if (image !== undefined) change(image);
  return copy;
}

describe('an erasure, through the ledger stream and the real publisher', () => {
  it('publishes one signed TerminationRequestErased, ids and times only, that verifies; the limit record’s erasure publishes nothing', async () => {
    const request = await withdrawnRequest();
    const report = await data.erase(anna, { ledgerDays: 90 });
    expect(report.erased.map((e) => e.requestId)).toContain(request.requestId);
    const [record, ...more] = await ledgerRecordsOf(request.requestId);
    expect(more).toEqual([]);
    const erasures = verifiedEvents(stack.standIn).filter((event) => event.detailType === 'TerminationRequestErased');
    const ours = erasures.filter((event) => jsonObject(event.detail)['requestId'] === request.requestId);
    expect(ours).toHaveLength(1);
    const detail = jsonObject(ours[0]?.detail);
    expect(detail).toEqual({
      eventId: eventIdOf(request.requestId, 'ERASED'),
      requestId: request.requestId,
      contractId: request.contractId,
      requestNumber: request.requestNumber,
      erasedAt: report.erasedAt,
    });
    expect(isErasedDetail(detail)).toBe(true);
    expect(JSON.stringify(ours)).not.toContain(anna);
    // Every erasure event on the bus is of a request: the limit records' ledger entries name none.
    expect(erasures.every((event) => typeof jsonObject(event.detail)['requestId'] === 'string')).toBe(true);
    expect(erasures).toHaveLength(report.erased.filter((e) => e.requestId !== undefined).length);

    // Handed again (a redrive, a retry): the same event, a new signature.
    stack.standIn.clear();
    expect(await publish(copyOf(record))).toEqual({ batchItemFailures: [] });
    expect(verifiedEvents(stack.standIn).map((event) => event.detail)).toEqual([detail]);
  });

  it('confirms each record with a GetItem on the ledger and one BatchGetItem on the requests table', async () => {
    const request = await withdrawnRequest();
    await data.erase(anna, { ledgerDays: 90 });
    const [record] = await ledgerRecordsOf(request.requestId);
    stack.standIn.clear();
    const { answer, calls } = await callsDuring('publish-request-events', () => publish(copyOf(record)));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(calls.filter((call) => call.operation.startsWith('dynamodb:')).map((call) => call.operation)).toEqual([
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
    ]);
    expect(stack.standIn.events).toHaveLength(1);
  });
});

describe('a ledger record the tables do not confirm publishes nothing, counted and logged by ids', () => {
  it('an entry the ledger does not hold (a forgery): no-such-erasure', async () => {
    const request = await withdrawnRequest();
    await data.erase(anna, { ledgerDays: 90 });
    const [record] = await ledgerRecordsOf(request.requestId);
    stack.standIn.clear();
    lines.length = 0;
    const forged = copyOf(record, (image) => {
      image['sk'] = { S: `2020-01-01T00:00:00.000Z#CONTRACT#${request.contractId}/REQUEST#${request.requestId}` };
    });
    if (forged.dynamodb?.Keys !== undefined) forged.dynamodb.Keys['sk'] = { S: String(forged.dynamodb.NewImage?.['sk']?.S) };
    expect(await publish(forged)).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toEqual([]);
    expect(unconfirmedCount()).toBe(1);
    const logged = lines.filter((line) => line['message'] === 'Stream record not confirmed by the tables: nothing published');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        requestId: request.requestId,
        contractId: request.contractId,
        detailType: 'TerminationRequestErased',
        why: 'no-such-erasure',
        sequenceNumber: forged.dynamodb?.SequenceNumber,
      }),
    ]);
    expect(JSON.stringify(logged)).not.toContain(anna);
  });

  it('a real entry told otherwise (another request): other-content, the field named', async () => {
    const [request, other] = [await withdrawnRequest(), await withdrawnRequest()];
    await data.erase(anna, { ledgerDays: 90 });
    const [record] = await ledgerRecordsOf(request.requestId);
    stack.standIn.clear();
    lines.length = 0;
    const forged = copyOf(record, (image) => {
      image['requestId'] = { S: other.requestId };
    });
    expect(await publish(forged)).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ requestId: other.requestId, why: 'other-content', fields: ['requestId'] }));
  });

  it('a genuine entry whose request is there again (a restore): request-still-there, nothing published', async () => {
    const request = await withdrawnRequest();
    const key = requestKeyOf(request.contractId, request.requestId);
    const item = (await stack.tables.doc.send(new GetCommand({ TableName: stack.tables.names.requests, Key: { ...key } }))).Item;
    await data.erase(anna, { ledgerDays: 90 });
    const [record] = await ledgerRecordsOf(request.requestId);
    await stack.tables.doc.send(new PutCommand({ TableName: stack.tables.names.requests, Item: item }));
    stack.standIn.clear();
    lines.length = 0;
    expect(await publish(copyOf(record))).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toEqual([]);
    expect(unconfirmedCount()).toBe(1);
    expect(lines).toContainEqual(expect.objectContaining({ requestId: request.requestId, why: 'request-still-there', fields: [] }));
  });
});

describe("a ledger entry's expiry publishes nothing", () => {
  it('its REMOVE does not pass the mapping’s filter, and handed by hand it is skipped without a read', async () => {
    const request = await withdrawnRequest();
    const report = await data.erase(anna, { ledgerDays: 90 });
    const [record] = await ledgerRecordsOf(request.requestId);
    const key = { pk: ledgerPartition(new Date(report.erasedAt)), sk: String(record?.dynamodb?.NewImage?.['sk']?.S) };
    stack.standIn.clear();
    // What DynamoDB's TTL does when the entry expires: a REMOVE on the stream, by the service principal.
    await stack.tables.doc.send(new DeleteCommand({ TableName: stack.tables.ledger, Key: key }));
    await poller.drain();
    expect(streamed.filter((r) => r.eventName !== 'INSERT')).toEqual([]);
    expect(stack.standIn.events).toEqual([]);

    const expiry: DynamoDBRecord = {
      ...copyOf(record),
      eventName: 'REMOVE',
      userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
    };
    expiry.dynamodb = { ...expiry.dynamodb, OldImage: expiry.dynamodb?.NewImage, NewImage: undefined };
    expect(streamFilterPatterns('erasures').some((pattern) => matchesPattern(pattern, expiry))).toBe(false);
    const { answer, calls } = await callsDuring('publish-request-events', () => publish(expiry));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual([]);
    expect(stack.standIn.events).toEqual([]);
  });
});

describe('the samples events/stream-erasure-recorded.json and events/published-erased.json', () => {
  const ledgerSample = streamEvent(JSON.parse(readFileSync('events/stream-erasure-recorded.json', 'utf8')));
  const erasedAt = '2026-11-27T10:00:00.000Z';

  it('are what npm run erase writes for the withdrawn sample request, replayed through the real publisher into the published sample', async () => {
    await writeWithdrawnSample(stack.tables.doc, stack.tables.names);
    const report = await data.erase(anna, { ledgerDays: 90, now: new Date(erasedAt) });
    expect(report.erased.map((e) => e.requestNumber)).toContain(WITHDRAWN_SAMPLE.requestNumber);
    await poller.drain();
    const { Items = [] } = await stack.tables.doc.send(
      new QueryCommand({
        TableName: stack.tables.ledger,
        KeyConditionExpression: 'pk = :day',
        ExpressionAttributeValues: { ':day': ledgerPartition(new Date(erasedAt)) },
        ConsistentRead: true,
      }),
    );
    // Each record of the sample is an entry the real erasure wrote, as the stream carries it.
    const images = ledgerSample.Records.map((record) => imageValues(record.dynamodb?.NewImage ?? {}));
    expect(Items.filter((item) => item['contractId'] === WITHDRAWN_SAMPLE_CONTRACT_ID)).toEqual(expect.arrayContaining(images));
    expect(images).toHaveLength(2);

    stack.standIn.clear();
    expect(await publish(...ledgerSample.Records)).toEqual({ batchItemFailures: [] });
    const published = verifiedEvents(stack.standIn);
    const sample = PUBLISHED_SAMPLES.find((s) => s.file === 'events/published-erased.json');
    const file = jsonObject(JSON.parse(readFileSync(sample?.file ?? '', 'utf8')));
    const { signature: _signature, ...signed } = jsonObject(file['detail']);
    expect(published.map((event) => ({ detailType: event.detailType, detail: event.detail }))).toEqual([
      { detailType: file['detail-type'], detail: signed },
    ]);
    expect(signed).toMatchObject({ requestId: WITHDRAWN_SAMPLE_ID, contractId: WITHDRAWN_SAMPLE_CONTRACT_ID, erasedAt });
  });
});
