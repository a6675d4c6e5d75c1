import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestKeyOf } from '../../lib/dynamodb/keys';
import { startAwsStandIn, type AwsStandIn } from '../../scripts/local/aws-stand-in';
import { decisionEvent } from '../../scripts/local/decision-event';
import { localClient } from '../../scripts/local/dynamodb-local';
import { startStreamPoller } from '../../scripts/local/stream-poller';
import { decisionRulePattern, streamFilterPatterns } from '../../scripts/local/template-patterns';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler } from '../support/handler';
import { TEST_BUS, useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';

/*
 * The local stack routes and filters by the template's own patterns: a decision put
 * on the bus reaches the consumer only through the decision rule's pattern, and the publisher
 * sees only the stream records the mapping's filter lets through.
 */

let stack: LifecycleStack;
let bus: AwsStandIn;
let client: EventBridgeClient;
const delivered: string[] = [];

beforeAll(async () => {
  stack = await useLifecycleStack();
  bus = await startAwsStandIn({
    rules: [
      {
        name: 'DecisionRule',
        pattern: decisionRulePattern(),
        deliver: async (event) => {
          delivered.push(event.id);
          await stack.decide(event);
        },
      },
    ],
  });
  client = new EventBridgeClient({
    region: 'eu-central-1',
    endpoint: bus.endpoint,
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
});
afterAll(async () => {
  client.destroy();
  await bus.stop();
  await stack.stop();
});

async function submitted(): Promise<{ contractId: string; requestId: string }> {
  const contractId = await newContract(stack.tables);
  const answer = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return { contractId, requestId: String(answer.body['requestId']) };
}

/** Puts one event on the bus; its EventBridge id. */
async function put(source: string, detailType: string, detail: unknown): Promise<string | undefined> {
  const answer = await client.send(
    new PutEventsCommand({ Entries: [{ EventBusName: TEST_BUS, Source: source, DetailType: detailType, Detail: JSON.stringify(detail) }] }),
  );
  expect(answer.FailedEntryCount).toBe(0);
  return answer.Entries?.[0]?.EventId;
}

async function statusOf(request: { contractId: string; requestId: string }): Promise<unknown> {
  const { Item } = await stack.tables.doc.send(
    new GetCommand({ TableName: stack.tables.names.requests, Key: { ...requestKeyOf(request.contractId, request.requestId) } }),
  );
  return Item?.['status'];
}

async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
}

describe("PutEvents -> the template's decision rule -> the consumer", () => {
  it("applies a decision put on the bus with the back office's source", async () => {
    const request = await submitted();
    const event = decisionEvent({ ...request, status: 'IN_REVIEW' });
    await put(event.source, event['detail-type'], event.detail);
    expect(await eventually(async () => (await statusOf(request)) === 'IN_REVIEW')).toBe(true);
  });

  it.each([
    ['another source', 'bank.contract-termination', 'TerminationRequestStatusChanged'],
    ['another detail-type', 'bank.back-office', 'TerminationRequestSubmitted'],
  ])('never routes an event of %s to the consumer', async (_name, source, detailType) => {
    const request = await submitted();
    const before = delivered.length;
    await put(source, detailType, decisionEvent({ ...request, status: 'REJECTED' }).detail);
    // A decision the rule does route, put after it: once that one has applied, the bus has
    // routed (or not) the event before it, and the consumer has had it.
    const marker = decisionEvent({ ...request, status: 'IN_REVIEW' });
    const markerId = await put(marker.source, marker['detail-type'], marker.detail);
    expect(await eventually(async () => (await statusOf(request)) === 'IN_REVIEW')).toBe(true);
    expect(delivered.slice(before)).toEqual([markerId]);
  });
});

describe("the stream mapping's filter", () => {
  it('hands the publisher the request items only, never the slot, key or number items written with them', async () => {
    const seen: DynamoDBRecord[] = [];
    const poller = await startStreamPoller({
      client: localClient(stack.tables.endpoint),
      endpoint: stack.tables.endpoint,
      tableName: stack.tables.names.requests,
      startingPosition: 'LATEST',
      filters: streamFilterPatterns(),
      deliver: (event) => {
        seen.push(...event.Records);
        return Promise.resolve(undefined);
      },
      intervalMs: 50,
    });
    const contractId = await newContract(stack.tables);
    const key = randomUUID();
    expect((await callHandler({ contractId, body: validBody(), headers: headersWithKey(key) })).status).toBe(201);
    await poller.drain();
    await poller.stop();
    const mine = seen.filter((record) => record.dynamodb?.NewImage?.['contractId']?.S === contractId);
    // The create wrote four items (request, slot, key, number); only the request passes.
    expect(mine.map((record) => record.dynamodb?.NewImage?.['kind']?.S)).toEqual(['REQUEST']);
  });
});
