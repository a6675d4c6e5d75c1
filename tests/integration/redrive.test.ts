import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, ExpiredIteratorException } from '@aws-sdk/client-dynamodb-streams';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { streamRangeReader } from '../../lib/aws/dynamodb-streams';
import { localEndpoint } from '../../lib/aws/local-endpoint';
import { requestKeyOf } from '../../lib/dynamodb/keys';
import { publisherTries } from '../../lib/events/publish-request-events';
import { eventIdOf } from '../../lib/events/request-events';
import { isStreamRedriveCommand } from '../../lib/events/stream-redrive';
import { RESERVE_MS, RetriesExhaustedError } from '../../lib/retry';
import type { PutEventsFault } from '../../scripts/local/aws-stand-in';
import {
  redriveDecisions,
  redrivePublisher,
  sqsDeadLetterQueue,
  type DeadLetterQueueClient,
} from '../../scripts/operations/dead-letter-redrive';
import { decisionEvent } from '../../scripts/local/decision-event';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { localClient } from '../../scripts/local/dynamodb-local';
import { lambdaInvoker, offlineInvoker } from '../../scripts/operations/lambda-invoke';
import { freePort } from '../../scripts/local/free-port';
import { LOCAL_DEAD_LETTER_QUEUES } from '../../scripts/local/local-queues';
import { streamFailureRecord } from '../../scripts/operations/stream-mapping';
import { startStreamPoller, type StreamPoller } from '../../scripts/local/stream-poller';
import { streamFilterPatterns } from '../../scripts/local/template-patterns';
import { headersWithKey, validBody } from '../support/bodies';
import { callHandler } from '../support/handler';
import { jsonObject } from '../support/json';
import { ofKind } from '../support/local-tables';
import { streamPositionsOf } from '../../scripts/local/stream-events';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';

/*
 * npm run redrive's logic (scripts/operations/dead-letter-redrive.ts) against the stand-in's queues
 * and DynamoDB Local's stream, with the real consumer and publisher handlers in process. The
 * stream poller sends its dead letters as Lambda's on-failure destination does.
 */

let stack: LifecycleStack;
let poller: StreamPoller;
let sqs: SQSClient;
let publisherQueueUrl: string;
const anna = DEMO_CUSTOMERS.anna;
const BODY = validBody();

/** What the redrive handed to each function, in this test. */
let consumed: EventBridgeEvent<string, unknown>[] = [];
let published: unknown[] = [];

beforeAll(async () => {
  stack = await useLifecycleStack();
  publisherQueueUrl = LOCAL_DEAD_LETTER_QUEUES.publisher(stack.standIn.endpoint);
  const { handler } = await import('../../functions/publish-request-events');
  poller = await startStreamPoller({
    client: localClient(stack.tables.endpoint),
    endpoint: stack.tables.endpoint,
    tableName: stack.tables.names.requests,
    filters: streamFilterPatterns(),
    deliver: handler,
    onFailureDestination: { queueUrl: publisherQueueUrl },
    onError: (error) => console.error('Reading the stream failed:', error),
    maxRetries: 2,
    intervalMs: 50,
  });
  sqs = new SQSClient({ region: 'eu-central-1', maxAttempts: 1, ...localEndpoint(stack.standIn.endpoint) });
});
afterAll(async () => {
  await poller.stop();
  await stack.stop();
  sqs.destroy();
});
beforeEach(async () => {
  await poller.drain();
  stack.standIn.clear();
  consumed = [];
  published = [];
});

const decisionsQueue = (): DeadLetterQueueClient => sqsDeadLetterQueue(sqs, stack.deadLetterQueueUrl, 30);
const publisherQueue = (): DeadLetterQueueClient => sqsDeadLetterQueue(sqs, publisherQueueUrl, 30);

function redriveDecisionQueue(dryRun = false) {
  return redriveDecisions({
    queue: decisionsQueue(),
    max: 10,
    dryRun,
    consumer: (event) => {
      consumed.push(event);
      return stack.decide(event);
    },
  });
}

async function redrivePublisherQueue(dryRun = false) {
  const { handler } = await import('../../functions/publish-request-events');
  return redrivePublisher({
    queue: publisherQueue(),
    max: 10,
    dryRun,
    publisher: (command) => {
      published.push(command);
      // What Lambda's Invoke hands the function: the command as JSON, whatever it holds.
      return isStreamRedriveCommand(command) ? handler(command) : Promise.reject(new Error('not a redrive'));
    },
  });
}

async function createdOn(contractId: string): Promise<string> {
  const answer = await callHandler({ contractId, customerId: anna.customerId, body: BODY, headers: headersWithKey(randomUUID()) });
  expect(answer.status).toBe(201);
  return String(answer.body['requestId']);
}

async function freshContract(): Promise<string> {
  const contractId = randomUUID();
  await stack.tables.addContracts([{ contractId, customerId: anna.customerId, status: 'ACTIVE' }]);
  return contractId;
}

async function statusOf(contractId: string, requestId: string): Promise<unknown> {
  const { Item } = await stack.tables.doc.send(
    new GetCommand({ TableName: stack.tables.names.requests, Key: { ...requestKeyOf(contractId, requestId) }, ConsistentRead: true }),
  );
  return Item?.['status'];
}

const send = (queueUrl: string, body: unknown) =>
  sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: typeof body === 'string' ? body : JSON.stringify(body) }));

describe('the decision dead-letter queue', () => {
  it('a decision refused because its request did not exist yet applies when redriven once the request exists', async () => {
    const contractId = await freshContract();
    const requestId = await createdOn(contractId);
    // The request is not there when the decision comes (as if written later, or restored from a backup).
    const [item] = ofKind(await stack.tables.contractItems(contractId), 'REQUEST');
    await stack.tables.doc.send(
      new DeleteCommand({ TableName: stack.tables.names.requests, Key: { ...requestKeyOf(contractId, requestId) } }),
    );
    const decision = decisionEvent({ requestId, contractId, status: 'IN_REVIEW' });
    expect((await stack.decide(decision)).outcome).toBe('unknown-request');
    expect(stack.standIn.queued(stack.deadLetterQueueUrl)).toEqual([
      { queueUrl: stack.deadLetterQueueUrl, body: expect.objectContaining({ reason: 'unknown-request', event: decision }) },
    ]);

    await stack.tables.doc.send(new PutCommand({ TableName: stack.tables.names.requests, Item: item }));
    const results = await redriveDecisionQueue();

    expect(results).toEqual([
      {
        messageId: expect.any(String),
        kind: 'refused (unknown-request)',
        about: `eventId=${decision.detail.eventId} requestId=${requestId} contractId=${contractId} status=IN_REVIEW`,
        outcome: 'applied',
        action: 'deleted',
      },
    ]);
    expect(consumed).toEqual([decision]);
    expect(await statusOf(contractId, requestId)).toBe('IN_REVIEW');
    expect(stack.standIn.queued(stack.deadLetterQueueUrl)).toEqual([]);
    // No new dead letter: the one message ever sent is the first refusal.
    expect(stack.standIn.messages).toHaveLength(1);
  });

  it('a dead letter that can never apply is consumed and dead-lettered anew once, never looped', async () => {
    const contractId = await freshContract();
    const requestId = await createdOn(contractId);
    expect((await stack.decide(decisionEvent({ requestId, contractId, status: 'COMPLETED' }))).outcome).toBe('applied');
    const late = decisionEvent({ requestId, contractId, status: 'IN_REVIEW' });
    expect((await stack.decide(late)).outcome).toBe('forbidden-transition');

    const results = await redriveDecisionQueue();

    expect(results.map((r) => [r.kind, r.outcome, r.action])).toEqual([
      ['refused (forbidden-transition)', 'refused again (forbidden-transition): the consumer wrote a new dead letter', 'deleted'],
    ]);
    expect(consumed).toEqual([late]);
    // One message in the queue, the consumer's new one; the old one is gone.
    expect(stack.standIn.messages).toHaveLength(2);
    expect(stack.standIn.queued(stack.deadLetterQueueUrl)).toEqual([
      { queueUrl: stack.deadLetterQueueUrl, body: expect.objectContaining({ reason: 'forbidden-transition', event: late }) },
    ]);
    expect(await statusOf(contractId, requestId)).toBe('COMPLETED');
  });

  it("refuses, through the consumer's own check, a decision planted in the queue from another account: the request stays as it was", async () => {
    const contractId = await freshContract();
    const requestId = await createdOn(contractId);
    const forged = { ...decisionEvent({ requestId, contractId, status: 'APPROVED' }), account: '999999999999' };
    await send(stack.deadLetterQueueUrl, forged);

    const results = await redriveDecisionQueue();

    expect(results.map((r) => [r.outcome, r.action])).toEqual([
      ['refused again (unexpected-event): the consumer wrote a new dead letter', 'deleted'],
    ]);
    expect(consumed).toEqual([forged]);
    expect(stack.standIn.queued(stack.deadLetterQueueUrl)).toEqual([
      {
        queueUrl: stack.deadLetterQueueUrl,
        body: expect.objectContaining({
          reason: 'unexpected-event',
          problems: [expect.stringContaining('account 123456789012')],
          event: forged,
        }),
      },
    ]);
    expect(await statusOf(contractId, requestId)).toBe('SUBMITTED');
  });

  it("applies a decision signed 13 days ago, left in the queue by an outage of the back office's JWKS: a redrive within the queue's retention still verifies", async () => {
    const contractId = await freshContract();
    const requestId = await createdOn(contractId);
    const signedAt = new Date(Date.now() - 13 * 86_400_000);
    const old = decisionEvent({
      requestId,
      contractId,
      status: 'REJECTED',
      reason: 'Late',
      occurredAt: signedAt.toISOString(),
      signature: { issuedAt: signedAt },
    });
    // Lambda's record of the invocation that failed while the JWKS could not be fetched.
    await send(stack.deadLetterQueueUrl, {
      version: '1.0',
      timestamp: signedAt.toISOString(),
      requestContext: {
        requestId: randomUUID(),
        functionArn: 'arn:aws:lambda:eu-central-1:000000000000:function:x',
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: old,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'FetchError', errorMessage: 'Failed to fetch the back office JWKS' },
    });

    const results = await redriveDecisionQueue();

    expect(results.map((r) => [r.kind, r.outcome, r.action])).toEqual([['retries exhausted (RetriesExhausted)', 'applied', 'deleted']]);
    expect(await statusOf(contractId, requestId)).toBe('REJECTED');
  });

  it("refuses, through the consumer's own check, an unsigned decision planted in the queue with the back office's account: the request stays as it was", async () => {
    const contractId = await freshContract();
    const requestId = await createdOn(contractId);
    const genuine = decisionEvent({ requestId, contractId, status: 'APPROVED' });
    const planted = { ...genuine, detail: { ...genuine.detail, signature: undefined } };
    await send(stack.deadLetterQueueUrl, planted);

    const results = await redriveDecisionQueue();

    expect(results.map((r) => [r.outcome, r.action])).toEqual([
      ['refused again (unauthenticated): the consumer wrote a new dead letter', 'deleted'],
    ]);
    expect(stack.standIn.queued(stack.deadLetterQueueUrl)).toEqual([
      {
        queueUrl: stack.deadLetterQueueUrl,
        body: {
          reason: 'unauthenticated',
          problems: ['no signature: the back office signs every decision'],
          event: JSON.parse(JSON.stringify(planted)),
        },
      },
    ]);
    expect(await statusOf(contractId, requestId)).toBe('SUBMITTED');
  });

  it("reads the rule's undelivered event and Lambda's record of a failed invocation as well; keeps what it cannot read", async () => {
    const contractId = await freshContract();
    const requestId = await createdOn(contractId);
    const undelivered = decisionEvent({ requestId, contractId, status: 'IN_REVIEW' });
    const failed = decisionEvent({ requestId, contractId, status: 'APPROVED' });
    await send(stack.deadLetterQueueUrl, undelivered);
    await send(stack.deadLetterQueueUrl, {
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: {
        requestId: randomUUID(),
        functionArn: 'arn:aws:lambda:eu-central-1:000000000000:function:contract-termination-local-applyStatusDecision:$LATEST',
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: failed,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'TimeoutError', errorMessage: 'DynamoDB did not answer' },
    });
    await send(stack.deadLetterQueueUrl, 'not JSON');

    const results = await redriveDecisionQueue();

    expect(results.map((r) => [r.kind, r.outcome, r.action])).toEqual([
      ['undelivered by the rule', 'applied', 'deleted'],
      ['retries exhausted (RetriesExhausted)', 'applied', 'deleted'],
      ['unreadable', 'no event found in the message: read it by hand', 'kept'],
    ]);
    expect(consumed).toEqual([undelivered, failed]);
    expect(await statusOf(contractId, requestId)).toBe('APPROVED');
    expect(stack.standIn.queued(stack.deadLetterQueueUrl)).toEqual([{ queueUrl: stack.deadLetterQueueUrl, body: 'not JSON' }]);
    // Kept means visible again at once, for the next run or an operator.
    expect(await decisionsQueue().depth()).toEqual({ waiting: 1, inFlight: 0 });
  });

  it('a dry run invokes nothing and leaves every message in the queue, visible', async () => {
    const contractId = await freshContract();
    const decision = decisionEvent({ requestId: randomUUID(), contractId, status: 'REJECTED' });
    expect((await stack.decide(decision)).outcome).toBe('unknown-request');
    await send(stack.deadLetterQueueUrl, { something: 'else' });
    const before = stack.standIn.queued(stack.deadLetterQueueUrl);

    const results = await redriveDecisionQueue(true);

    expect(results.map((r) => [r.kind, r.outcome, r.action])).toEqual([
      ['refused (unknown-request)', 'would hand the event to the consumer', 'would redrive'],
      ['unreadable', 'no event found in the message: read it by hand', 'would keep'],
    ]);
    expect(consumed).toEqual([]);
    expect(stack.standIn.queued(stack.deadLetterQueueUrl)).toEqual(before);
    expect(stack.standIn.messages).toHaveLength(2);
    expect(await decisionsQueue().depth()).toEqual({ waiting: 2, inFlight: 0 });
  });
});

describe('the publisher dead-letter queue', () => {
  it("a batch the stream gave up on (Lambda's on-failure record) goes to the publisher as its stream positions, is read back by it and published exactly once", async () => {
    const contractId = await freshContract();
    // Three invocations (maxRetries 2) of three PutEvents attempts each, all failing.
    stack.standIn.failNextPutEvents(...Array.from({ length: 9 }, (): PutEventsFault => ({ kind: 'entries', failing: [0] })));
    const requestId = await createdOn(contractId);
    await poller.drain();
    expect(stack.standIn.putEventsCalls).toEqual(Array.from({ length: 9 }, () => 1));
    expect(stack.standIn.events).toEqual([]);
    const { Table } = await stack.tables.doc.send(new DescribeTableCommand({ TableName: stack.tables.names.requests }));
    const [letter] = stack.standIn.queued(publisherQueueUrl);
    expect(letter?.body).toEqual({
      requestContext: {
        requestId: expect.any(String),
        functionArn: expect.stringMatching(/^arn:aws:lambda:.*:function:.*publishRequestEvents$/),
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 3,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      DDBStreamBatchInfo: {
        shardId: expect.stringMatching(/^shardId-/),
        startSequenceNumber: expect.stringMatching(/^\d+$/),
        endSequenceNumber: expect.stringMatching(/^\d+$/),
        approximateArrivalOfFirstRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        approximateArrivalOfLastRecord: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        batchSize: 1,
        streamArn: Table?.LatestStreamArn,
      },
    });

    const dry = await redrivePublisherQueue(true);
    expect(dry.map((r) => [r.kind, r.outcome, r.action])).toEqual([
      ['stream-batch', 'would ask the publisher to read these records again and publish them', 'would redrive'],
    ]);
    expect(published).toEqual([]);
    expect(stack.standIn.queued(publisherQueueUrl)).toHaveLength(1);

    const results = await redrivePublisherQueue();

    expect(results.map((r) => [r.kind, r.outcome, r.action])).toEqual([
      ['stream-batch', 'published: the publisher read 1 records again and handed none back', 'deleted'],
    ]);
    // The publisher got the batch's stream positions only, never a record: it read them itself.
    const { streamArn, shardId, startSequenceNumber, endSequenceNumber } = jsonObject(jsonObject(letter?.body)['DDBStreamBatchInfo']);
    expect(published).toEqual([{ redrive: { streamArn, shardId, startSequenceNumber, endSequenceNumber } }]);
    expect(stack.standIn.queued(publisherQueueUrl)).toEqual([]);
    expect(await redrivePublisherQueue()).toEqual([]);
    await poller.drain();
    expect(stack.standIn.events.map((e) => [e.detailType, e.detail])).toEqual([
      ['TerminationRequestSubmitted', expect.objectContaining({ requestId, eventId: eventIdOf(requestId, 'SUBMITTED') })],
    ]);
  });

  it('a batch whose records the stream no longer holds is kept and reported', async () => {
    const { Table } = await stack.tables.doc.send(new DescribeTableCommand({ TableName: stack.tables.names.requests }));
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    const letter = streamFailureRecord({
      records: [{ dynamodb: { SequenceNumber: '000000000000000000001', ApproximateCreationDateTime: twoDaysAgo.getTime() / 1000 } }],
      // A shard that has aged out of the stream: DynamoDB keeps a closed shard 24 hours.
      shardId: 'shardId-00000001000000000000-00000000',
      streamArn: Table?.LatestStreamArn ?? '',
      invokeCount: 11,
      functionError: true,
      now: twoDaysAgo,
    });
    await send(publisherQueueUrl, letter);

    const results = await redrivePublisherQueue();

    expect(results).toEqual([
      {
        messageId: expect.any(String),
        kind: 'stream-batch',
        about: expect.stringContaining('shard shardId-00000001000000000000-00000000 000000000000000000001..000000000000000000001'),
        outcome: expect.stringMatching(
          /^the stream no longer holds these records \(ResourceNotFoundException: .*\); they are older than the 24 h the stream keeps: republish them from the table by hand/,
        ),
        action: 'kept',
      },
    ]);
    // The publisher was asked, read nothing (its own role, its own answer), and published nothing.
    expect(published).toEqual([{ redrive: expect.objectContaining({ shardId: 'shardId-00000001000000000000-00000000' }) }]);
    expect(stack.standIn.events).toEqual([]);
    expect(stack.standIn.queued(publisherQueueUrl)).toEqual([{ queueUrl: publisherQueueUrl, body: letter }]);
    expect(await publisherQueue().depth()).toEqual({ waiting: 1, inFlight: 0 });
  });
});

describe('the redrive command the publisher takes (stream positions only)', () => {
  const positionsOf = (tableName: string, contractId: string) => streamPositionsOf(stack.tables.endpoint, tableName, contractId);

  it("reads a batch of the requests table's stream with its own role and publishes what the table confirms, once per record", async () => {
    const { handler } = await import('../../functions/publish-request-events');
    const contractId = await freshContract();
    const requestId = await createdOn(contractId);
    await poller.drain();
    stack.standIn.clear();

    const answer = await handler({ redrive: await positionsOf(stack.tables.names.requests, contractId) });

    // The create's items (request, slot, number, limit): the request's INSERT publishes, the others mean no event.
    expect(answer).toEqual({ outcome: 'redriven', records: expect.any(Number), handedBack: undefined });
    expect(stack.standIn.events.map((e) => [e.detailType, e.detail])).toEqual([
      ['TerminationRequestSubmitted', expect.objectContaining({ requestId, eventId: eventIdOf(requestId, 'SUBMITTED') })],
    ]);
  });

  it('refuses a stream the publisher does not consume, even one holding a copy of a genuine request item: nothing read, nothing published', async () => {
    const { handler } = await import('../../functions/publish-request-events');
    const contractId = await freshContract();
    await createdOn(contractId);
    await poller.drain();
    const [request] = ofKind(await stack.tables.contractItems(contractId), 'REQUEST');
    const other = `copies-${randomUUID().slice(0, 8)}`;
    await stack.tables.doc.send(
      new CreateTableCommand({
        TableName: other,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    await stack.tables.doc.send(new PutCommand({ TableName: other, Item: request }));
    const positions = await positionsOf(other, contractId);
    stack.standIn.clear();

    await expect(handler({ redrive: positions })).rejects.toThrow(
      new RegExp(`^Redrive refused, nothing read or published: ${positions.streamArn} is not a stream the publisher consumes`),
    );
    expect(stack.standIn.events).toEqual([]);

    // Through npm run redrive: a dead letter naming that stream is kept, and says why.
    await send(
      publisherQueueUrl,
      JSON.stringify({
        DDBStreamBatchInfo: { ...positions, batchSize: 1, approximateArrivalOfFirstRecord: '', approximateArrivalOfLastRecord: '' },
      }),
    );
    const results = await redrivePublisherQueue();
    expect(results.map((r) => [r.outcome, r.action])).toEqual([
      [expect.stringMatching(/^the publisher failed: .*is not a stream the publisher consumes/), 'kept'],
    ]);
    expect(stack.standIn.events).toEqual([]);
  });

  it.each([
    ['no positions', { redrive: {} }],
    ['positions as text', { redrive: 'shardId-1 1..9' }],
    ['a field more', { redrive: { streamArn: 'x', shardId: 'shardId-1', startSequenceNumber: '1', endSequenceNumber: '2', records: [] } }],
    ['records instead of positions', { redrive: { Records: [{ dynamodb: { NewImage: { kind: { S: 'REQUEST' } } } }] } }],
    ['a sequence number that is not one', { redrive: { shardId: 'shardId-1', startSequenceNumber: '1e3', endSequenceNumber: '2' } }],
    [
      'an ARN that is no stream',
      {
        redrive: {
          streamArn: 'arn:aws:sqs:eu-central-1:123456789012:q',
          shardId: 'shardId-1',
          startSequenceNumber: '1',
          endSequenceNumber: '2',
        },
      },
    ],
  ])('refuses %s: nothing read, nothing published', async (_, command) => {
    const { handler } = await import('../../functions/publish-request-events');
    stack.standIn.clear();
    await expect(handler(command)).rejects.toThrow(/^Redrive refused, nothing read or published: not a batch's stream positions \(/);
    expect(stack.standIn.events).toEqual([]);
  });

  it('refuses a range that ends before it starts', async () => {
    const { handler } = await import('../../functions/publish-request-events');
    const { Table } = await stack.tables.doc.send(new DescribeTableCommand({ TableName: stack.tables.names.requests }));
    const command = {
      redrive: { streamArn: Table?.LatestStreamArn ?? '', shardId: 'shardId-1', startSequenceNumber: '9', endSequenceNumber: '1' },
    };
    await expect(handler(command)).rejects.toThrow('startSequenceNumber is after endSequenceNumber');
  });
});

describe('a shard iterator that expires while the publisher reads a range', () => {
  /**
   * A streams client on DynamoDB Local that reads one record per page and answers the GetRecords
   * calls numbered in `expiredAt` (1 for the first) with ExpiredIteratorException, as an iterator
   * 15 minutes old is answered: a fault DynamoDB Local cannot be made to show.
   */
  function expiringStreams(expiredAt: (call: number) => boolean) {
    const client = new DynamoDBStreamsClient({ region: 'eu-central-1', ...localEndpoint(stack.tables.endpoint) });
    const calls = { iterators: 0, reads: 0 };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetShardIteratorCommand') calls.iterators++;
        if (context.commandName === 'GetRecordsCommand' && 'Limit' in args.input) {
          calls.reads++;
          if (expiredAt(calls.reads)) throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
          return next({ ...args, input: { ...args.input, Limit: 1 } });
        }
        return next(args);
      },
      { step: 'initialize', name: 'expireIterators' },
    );
    return { client, calls };
  }
  /** Where a fresh request's create is in the requests table's stream. */
  const positionsOfACreate = async () => {
    const contractId = await freshContract();
    await createdOn(contractId);
    return streamPositionsOf(stack.tables.endpoint, stack.tables.names.requests, contractId);
  };
  const countingTries = (maxAttempts: number) => {
    const pauses: number[] = [];
    return { pauses, tries: { maxAttempts, pause: async (attempt: number) => void pauses.push(attempt) } };
  };

  it('has an iterator again after the last record read, after a pause, and reads every record of the range once', async () => {
    const positions = await positionsOfACreate();
    const plain = expiringStreams(() => false);
    const expected = await streamRangeReader(plain.client)(positions, countingTries(1).tries);
    const expiring = expiringStreams((call) => call === 2 || call === 3);
    const { pauses, tries } = countingTries(5);

    const range = await streamRangeReader(expiring.client)(positions, tries);

    // The create's items, a page each: the iterator expires after the first record, and again at once.
    expect(expected.kind === 'records' ? expected.records.length : 0).toBeGreaterThan(2);
    expect(range).toEqual(expected);
    expect(pauses).toEqual([1, 2]);
    expect(expiring.calls.iterators).toBe(3);
    plain.client.destroy();
    expiring.client.destroy();
  });

  it("fails the read when the invocation's tries run out, each try after a pause", async () => {
    const positions = await positionsOfACreate();
    const expiring = expiringStreams(() => true);
    const { pauses, tries } = countingTries(3);

    await expect(streamRangeReader(expiring.client)(positions, tries)).rejects.toBeInstanceOf(RetriesExhaustedError);

    expect(pauses).toEqual([1, 2]);
    expect(expiring.calls).toEqual({ iterators: 3, reads: 3 });
    expiring.client.destroy();
  });

  it("fails the read when the invocation's time ends the pause", async () => {
    const positions = await positionsOfACreate();
    const expiring = expiringStreams(() => true);
    // The publisher's tries in an invocation that has only the reserve left.
    const tries = publisherTries({ maxAttempts: 5 }, { remainingMs: () => RESERVE_MS });

    await expect(streamRangeReader(expiring.client)(positions, tries)).rejects.toMatchObject({ name: 'AbortError' });

    expect(expiring.calls).toEqual({ iterators: 1, reads: 1 });
    expiring.client.destroy();
  });
});

describe("invoking a function through Lambda's API (the SDK: AWS, or serverless offline)", () => {
  /**
   * Lambda's Invoke API as AWS answers it, for what a local stack cannot be made to show (a
   * function error of AWS's own shape): records each call, answers the given payload.
   */
  async function lambdaApi(answer: { payload: unknown; functionError?: string }) {
    const calls: { path: string; event: unknown; invocationType: string | undefined }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        calls.push({
          path: request.url ?? '',
          event: JSON.parse(body),
          invocationType: request.headers['x-amz-invocation-type']?.toString(),
        });
        response.writeHead(200, {
          'content-type': 'application/json',
          ...(answer.functionError === undefined ? {} : { 'x-amz-function-error': answer.functionError }),
        });
        response.end(JSON.stringify(answer.payload));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const client = new LambdaClient({ region: 'eu-central-1', maxAttempts: 1, ...localEndpoint(`http://127.0.0.1:${String(port)}`) });
    return { client, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  it("sends the event as one RequestResponse Invoke of the named function and returns the function's answer", async () => {
    const api = await lambdaApi({ payload: { outcome: 'applied' } });
    const event = decisionEvent({ requestId: randomUUID(), contractId: randomUUID(), status: 'IN_REVIEW' });
    try {
      expect(await lambdaInvoker('contract-termination-prod-applyStatusDecision', api.client)(event)).toEqual({ outcome: 'applied' });
      expect(api.calls).toEqual([
        {
          path: '/2015-03-31/functions/contract-termination-prod-applyStatusDecision/invocations',
          event,
          invocationType: 'RequestResponse',
        },
      ]);
    } finally {
      await api.close();
    }
  });

  it('throws when the function failed, so the message is kept, and names a stack that does not answer', async () => {
    const api = await lambdaApi({ payload: { errorType: 'Error', errorMessage: 'DynamoDB is down' }, functionError: 'Unhandled' });
    try {
      await expect(lambdaInvoker('f', api.client)({})).rejects.toThrow('f failed: Unhandled: DynamoDB is down');
    } finally {
      await api.close();
    }
    await expect(offlineInvoker('applyStatusDecision', await freePort())({})).rejects.toThrow(
      /contract-termination-local-applyStatusDecision failed: serverless offline does not answer on port \d+: is npm start running\?/,
    );
  });
});
