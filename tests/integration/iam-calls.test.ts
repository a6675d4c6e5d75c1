import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import streamRequestCreated from '../../events/stream-request-created.json' with { type: 'json' };
import streamStatusChanged from '../../events/stream-status-changed.json' with { type: 'json' };
import streamErasureRecorded from '../../events/stream-erasure-recorded.json' with { type: 'json' };
import decisionInReview from '../../events/decision-in-review.json' with { type: 'json' };
import decisionRejected from '../../events/decision-rejected.json' with { type: 'json' };
import { apiEvent, authorizerEvent, type EventOptions } from '../../scripts/local/api-event';
import { decisionEvent, type DecisionOptions } from '../../scripts/local/decision-event';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, makeSigningKey, signToken } from '../../scripts/local/signing-key';
import { headersWithKey, validBody } from '../support/bodies';
import { ACCOUNT_ID, REGION, TemplateResolver, keyArn, roleArn, streamArn, queueArn } from '../support/cfn-intrinsics';
import { newContract } from '../support/contracts';
import { at } from '../support/json';
import { callHandler, withdrawalOf, type HandlerAnswer } from '../support/handler';
import {
  functionRoles,
  grantsOf,
  grantText,
  grantUsed,
  keyAccesses,
  resourcePolicyFor,
  simulate,
  toProdAccess,
  type FunctionRole,
  type ProdAccess,
} from '../support/iam-check';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { templatePackager } from '../support/packaged-template';
import { callsDuring, installSdkRecorder, recordedCalls, type SdkCall } from '../support/sdk-calls';
import { writeSampleRequest } from '../support/sample-request';
import { streamEvent, streamPositionsOf } from '../../scripts/local/stream-events';

/*
 * IAM, checked against recorded calls (docs/security.md): each function's handler is
 * driven in-process through the paths that make distinct AWS SDK calls (DynamoDB Local, the
 * EventBridge/SQS stand-in), every SDK command it sends is recorded (tests/support/sdk-calls.ts),
 * and each is then simulated with @cloud-copilot/iam-simulate against that function's role in
 * the packaged prod template, on the prod resource the local one stands for. Then every grant of
 * every role that no recorded call needed must be on the commented allow-list below.
 */

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;

/** Every entry point of functions/: the template must have exactly these, and each is driven below. */
const FUNCTIONS = [
  'apply-status-decision',
  'authorize-customer',
  'create-termination-request',
  'get-termination-request',
  'get-termination-request-details',
  'list-customer-termination-requests',
  'list-termination-reasons',
  'list-termination-requests',
  'publish-request-events',
  'withdraw-termination-request',
];

/**
 * Condition keys the template would test with a single-valued operator although IAM types them
 * as multivalued (ArrayOfString), which iam-simulate never matches; the check would read such a
 * test as the set operator its effect means. None now: the template tests events:source with
 * ForAllValues (the Allows, with a Null guard) and ForAnyValue (the Deny), as this check found.
 */
const READ_AS_SET_OPERATOR: string[] = [];

const LOGS = `arn:aws:logs:${REGION}:${ACCOUNT_ID}:log-group:/aws/lambda/contract-termination-prod`;
/** Lambda itself writes a function's logs with its role: no SDK call of the function's code does. */
const ownLogs = (role: string, fn: string) => [`${role} logs:CreateLogStream ${LOGS}-${fn}:*`, `${role} logs:PutLogEvents ${LOGS}-${fn}:*`];
const PROD_REQUESTS_STREAM = streamArn('contract-termination-prod-requests');
const STAGE_KEY = keyArn('StageKey');

/**
 * The grants no recorded call uses, each with why it stays. A grant that appears unused and is
 * not here fails the test: remove it from the template, or add it here with its reason.
 * (X-Ray grants exist only when TRACING=true at package time; prod is packaged without.)
 */
const UNUSED_BY_DESIGN = [
  ...ownLogs('AuthorizerRole', 'authorizeCustomer'),
  ...ownLogs('CreateTerminationRequestRole', 'createTerminationRequest'),
  ...ownLogs('WithdrawTerminationRequestRole', 'withdrawTerminationRequest'),
  ...ownLogs('ListTerminationReasonsRole', 'listTerminationReasons'),
  ...ownLogs('GetTerminationRequestRole', 'getTerminationRequest'),
  ...ownLogs('ListTerminationRequestsRole', 'listTerminationRequests'),
  ...ownLogs('GetTerminationRequestDetailsRole', 'getTerminationRequestDetails'),
  ...ownLogs('ListCustomerTerminationRequestsRole', 'listCustomerTerminationRequests'),
  ...ownLogs('ApplyStatusDecisionRole', 'applyStatusDecision'),
  ...ownLogs('PublishRequestEventsRole', 'publishRequestEvents'),
  // Lambda's event source mapping describes the requests table's stream with the publisher's role;
  // the function's own code lists its streams and reads them only for a redrive (recorded below).
  `PublishRequestEventsRole dynamodb:DescribeStream ${PROD_REQUESTS_STREAM}`,
  // The erasure ledger's mapping reads its stream with the same role (the redrive recorded below reads the requests table's).
  `PublishRequestEventsRole dynamodb:DescribeStream ${streamArn('contract-termination-prod-erasures')}`,
  `PublishRequestEventsRole dynamodb:GetRecords ${streamArn('contract-termination-prod-erasures')}`,
  `PublishRequestEventsRole dynamodb:GetShardIterator ${streamArn('contract-termination-prod-erasures')}`,
  // The same mapping sends the records it gives up on to its on-failure destination, with the same role.
  `PublishRequestEventsRole sqs:SendMessage ${queueArn('contract-termination-prod-publisher-dead-letters')}`,
  // And that queue is under the stage's key: the mapping's sends use it.
  `PublishRequestEventsRole kms:GenerateDataKey ${STAGE_KEY} (DeadLettersUnderTheKey)`,
  `PublishRequestEventsRole kms:Decrypt ${STAGE_KEY} (DeadLettersUnderTheKey)`,
];

let stack: LifecycleStack;
let stopJwks: () => Promise<void>;
let uninstall: () => void;
const key = makeSigningKey();

beforeAll(async () => {
  const jwks = await startJwksServer(key.jwks, 0);
  stopJwks = jwks.stop;
  Object.assign(process.env, { JWKS_URI: jwks.uri, JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE });
  stack = await useLifecycleStack();
  uninstall = installSdkRecorder();
});

afterAll(async () => {
  uninstall();
  await stack.stop();
  await stopJwks();
});

/** One body for every create, Anna's and naming her document: a replay must send the body of the first call. */
const BODY = validBody({ documentIds: [anna.documents.passport] });

const operations = (calls: SdkCall[]) => calls.map((call) => call.operation);

/** One API call to the route's handler, with the SDK calls it made. */
function api(functionName: string, options: EventOptions): Promise<{ answer: HandlerAnswer; calls: SdkCall[] }> {
  return callsDuring(functionName, () => callHandler(options));
}

const create = (contractId: string, options: { customerId?: string; key?: string; body?: Record<string, unknown> } = {}) =>
  api('create-termination-request', {
    contractId,
    customerId: options.customerId ?? anna.customerId,
    body: options.body ?? BODY,
    headers: headersWithKey(options.key ?? randomUUID()),
  });
const read = (contractId: string, requestId: string, customerId: string = anna.customerId) =>
  api('get-termination-request', { method: 'GET', contractId, requestId, customerId });
const list = (contractId: string, query: Record<string, string> = {}, customerId: string = anna.customerId) =>
  api('list-termination-requests', { method: 'GET', contractId, query, customerId });
const withdraw = (contractId: string, requestId: string, key: string = randomUUID(), customerId: string = anna.customerId) =>
  api('withdraw-termination-request', withdrawalOf({ contractId, requestId }, customerId, key));
const decide = (options: DecisionOptions) => callsDuring('apply-status-decision', () => stack.decide(decisionEvent(options)));

/** A SUBMITTED request of a new contract of its own (made outside any recorded scope). */
async function submitted(customerId: string = anna.customerId): Promise<{ contractId: string; requestId: string }> {
  const contractId = await newContract(stack.tables, { customerId });
  const answer = await callHandler({ contractId, customerId, body: BODY, headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return { contractId, requestId: String(answer.body['requestId']) };
}

describe('the calls each function makes', () => {
  describe('create-termination-request', () => {
    it('201: one transaction over the three tables', async () => {
      const contractId = await newContract(stack.tables);
      const { answer, calls } = await create(contractId);
      expect(answer.status).toBe(201);
      expect(operations(calls)).toEqual(['dynamodb:TransactWriteItems']);
      expect(calls[0]?.accesses.map((a) => a.action).sort()).toEqual([
        'dynamodb:ConditionCheckItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:PutItem',
        'dynamodb:PutItem',
        'dynamodb:PutItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
    });

    it("422: a document not the caller's, and the limit reached: the transaction alone", async () => {
      const contractId = await newContract(stack.tables);
      const documents = await create(contractId, { body: validBody({ documentIds: [boris.documents.offer] }) });
      expect(documents.answer.body['errorCode']).toBe('DOCUMENT_NOT_AVAILABLE');
      expect(operations(documents.calls)).toEqual(['dynamodb:TransactWriteItems']);
      for (let i = 0; i < 5; i++) {
        expect((await create(contractId)).answer.status).toBe(201);
        await withdrawnOutsideRecording(contractId);
      }
      const limited = await create(contractId);
      expect(limited.answer.body['errorCode']).toBe('REQUEST_LIMIT_REACHED');
      expect(operations(limited.calls)).toEqual(['dynamodb:TransactWriteItems']);
    });

    it('200 replay: the transaction, refused with the stored key item', async () => {
      const contractId = await newContract(stack.tables);
      const key = randomUUID();
      expect((await create(contractId, { key })).answer.status).toBe(201);
      const { answer, calls } = await create(contractId, { key });
      expect(answer.status).toBe(200);
      expect(operations(calls)).toEqual(['dynamodb:TransactWriteItems']);
    });

    it('409: a second request on the contract', async () => {
      const contractId = await newContract(stack.tables);
      expect((await create(contractId)).answer.status).toBe(201);
      const { answer, calls } = await create(contractId);
      expect(answer.status).toBe(409);
      expect(operations(calls)).toContain('dynamodb:TransactWriteItems');
    });

    it('422: a closed contract, refused with the contract item', async () => {
      const contractId = await newContract(stack.tables, { status: 'CLOSED' });
      const { answer, calls } = await create(contractId);
      expect(answer.status).toBe(422);
      expect(answer.body['errorCode']).toBe('CONTRACT_NOT_ACTIVE');
      expect(operations(calls)).toEqual(['dynamodb:TransactWriteItems']);
    });

    it('422: a body that breaks a rule, after looking its key up (a replay would win)', async () => {
      const contractId = await newContract(stack.tables);
      const bankDetails = { bik: '044525225', accountNumber: '40817810700000000002', recipientName: 'A' };
      const { answer, calls } = await create(contractId, { body: validBody({ bankDetails }) });
      expect(answer.status).toBe(422);
      expect(answer.body['errorCode']).toBe('BANK_ACCOUNT_KEY_MISMATCH');
      expect(operations(calls)).toEqual(['dynamodb:GetItem']);
      expect(calls[0]?.accesses[0]?.resource).toEqual({ kind: 'table', name: stack.tables.names.requests });
    });

    it('404: an unknown contract', async () => {
      const { answer, calls } = await create(randomUUID());
      expect(answer.status).toBe(404);
      expect(operations(calls)).toEqual(['dynamodb:TransactWriteItems', 'dynamodb:GetItem']);
    });
  });

  describe('get-termination-request', () => {
    it('200: the request by its key', async () => {
      const { contractId, requestId } = await submitted();
      const { answer, calls } = await read(contractId, requestId);
      expect(answer.status).toBe(200);
      expect(operations(calls)).toEqual(['dynamodb:GetItem']);
    });

    it('404: a miss, explained by the contract', async () => {
      const contractId = await newContract(stack.tables);
      const { answer, calls } = await read(contractId, randomUUID());
      expect(answer.status).toBe(404);
      expect(operations(calls)).toEqual(['dynamodb:GetItem', 'dynamodb:GetItem']);
    });

    it("403: another customer's request", async () => {
      const { contractId, requestId } = await submitted();
      const { answer, calls } = await read(contractId, requestId, boris.customerId);
      expect(answer.status).toBe(403);
      expect(operations(calls)).toContain('dynamodb:GetItem');
    });
  });

  describe('list-termination-requests', () => {
    it('200: a page, then the next with its cursor', async () => {
      const { contractId } = await submitted();
      await withdrawnOutsideRecording(contractId);
      const second = await callHandler({ contractId, customerId: anna.customerId, body: BODY, headers: headersWithKey() });
      expect(second.status).toBe(201);
      const first = await list(contractId, { limit: '1' });
      expect(first.answer.status).toBe(200);
      // The first page's one Query also reads the caller's limit record, to say when the next request is possible.
      expect(operations(first.calls)).toEqual(['dynamodb:Query']);
      const cursor = first.answer.body['nextCursor'];
      expect(typeof cursor).toBe('string');
      const next = await list(contractId, { limit: '1', cursor: String(cursor) });
      expect(next.answer.status).toBe(200);
      expect(operations(next.calls)).toEqual(['dynamodb:Query']);
    });

    it('404: an unknown contract, explained by reading it', async () => {
      const { answer, calls } = await list(randomUUID());
      expect(answer.status).toBe(404);
      expect(operations(calls)).toEqual(['dynamodb:Query', 'dynamodb:GetItem']);
    });

    it("403: another customer's contract", async () => {
      const { contractId } = await submitted();
      const { answer, calls } = await list(contractId, {}, boris.customerId);
      expect(answer.status).toBe(403);
      expect(operations(calls)).toEqual(['dynamodb:Query', 'dynamodb:GetItem']);
    });
  });

  describe('get-termination-request-details', () => {
    it('200: the request item by its key; 404: a miss, explained by the contract', async () => {
      const { contractId, requestId } = await submitted();
      const found = await api('get-termination-request-details', {
        method: 'GET',
        details: true,
        contractId,
        requestId,
        customerId: anna.customerId,
      });
      expect(found.answer.status).toBe(200);
      expect(operations(found.calls)).toEqual(['dynamodb:GetItem']);
      const missed = await api('get-termination-request-details', {
        method: 'GET',
        details: true,
        contractId,
        requestId: randomUUID(),
        customerId: anna.customerId,
      });
      expect(missed.answer.status).toBe(404);
      expect(operations(missed.calls)).toEqual(['dynamodb:GetItem', 'dynamodb:GetItem']);
    });
  });

  describe('list-customer-termination-requests', () => {
    it('200: one Query of the index by customer', async () => {
      await submitted();
      const { answer, calls } = await api('list-customer-termination-requests', {
        method: 'GET',
        allContracts: true,
        customerId: anna.customerId,
      });
      expect(answer.status).toBe(200);
      expect(operations(calls)).toEqual(['dynamodb:Query']);
    });
  });

  describe('withdraw-termination-request', () => {
    it('200, then its replay', async () => {
      const { contractId, requestId } = await submitted();
      const key = randomUUID();
      const first = await withdraw(contractId, requestId, key);
      expect(first.answer.status).toBe(200);
      expect(operations(first.calls)).toEqual(['dynamodb:TransactWriteItems']);
      expect(first.calls[0]?.accesses.map((a) => a.action).sort()).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
      const again = await withdraw(contractId, requestId, key);
      expect(again.answer.status).toBe(200);
      expect(operations(again.calls)).toContain('dynamodb:TransactWriteItems');
    });

    it('409 for a request already withdrawn, 404 for an unknown one, 403 for another customer', async () => {
      const { contractId, requestId } = await submitted();
      expect((await withdraw(contractId, requestId)).answer.status).toBe(200);
      const conflict = await withdraw(contractId, requestId);
      expect(conflict.answer.status).toBe(409);
      const unknown = await withdraw(contractId, randomUUID());
      expect(unknown.answer.status).toBe(404);
      const other = await submitted();
      const forbidden = await withdraw(other.contractId, other.requestId, randomUUID(), boris.customerId);
      expect(forbidden.answer.status).toBe(403);
      for (const { calls } of [conflict, unknown, forbidden]) expect(operations(calls)[0]).toBe('dynamodb:TransactWriteItems');
      expect(operations(forbidden.calls)).toContain('dynamodb:GetItem');
    });
  });

  describe('apply-status-decision', () => {
    it('applies a non-final decision in one update, and a resent one as a duplicate', async () => {
      const { contractId, requestId } = await submitted();
      const eventId = randomUUID();
      const applied = await decide({ contractId, requestId, status: 'IN_REVIEW', eventId });
      expect(applied.answer.outcome).toBe('applied');
      expect(operations(applied.calls)).toEqual(['dynamodb:UpdateItem']);
      const duplicate = await decide({ contractId, requestId, status: 'IN_REVIEW', eventId });
      expect(duplicate.answer.outcome).toBe('duplicate');
      expect(operations(duplicate.calls)[0]).toBe('dynamodb:UpdateItem');
    });

    it('applies a final decision in one transaction that frees the slot', async () => {
      const { contractId, requestId } = await submitted();
      const { answer, calls } = await decide({ contractId, requestId, status: 'REJECTED', reason: 'The contract is pledged' });
      expect(answer.outcome).toBe('applied');
      expect(operations(calls)).toEqual(['dynamodb:TransactWriteItems']);
      expect(calls[0]?.accesses.map((a) => a.action).sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:UpdateItem']);
    });

    it('sends a decision on an unknown request to the dead-letter queue', async () => {
      const before = stack.standIn.messages.length;
      const { answer, calls } = await decide({ contractId: randomUUID(), requestId: randomUUID(), status: 'IN_REVIEW' });
      expect(answer.outcome).toBe('unknown-request');
      expect(operations(calls)).toContain('sqs:SendMessage');
      expect(stack.standIn.messages.length).toBe(before + 1);
    });
  });

  describe('publish-request-events', () => {
    it('confirms a stream batch of a creation and its status changes with one BatchGetItem, signs each event with KMS, and publishes them with PutEvents', async () => {
      const { handler } = await import('../../functions/publish-request-events');
      // The samples' request, its decisions applied by the service's own writes: what the records say, the table holds.
      await writeSampleRequest(stack.tables.doc, stack.tables.names);
      for (const decision of [decisionInReview, decisionRejected]) expect((await stack.decide(decision)).outcome).toBe('applied');
      const created = streamEvent(streamRequestCreated);
      const changed = streamEvent(streamStatusChanged);
      stack.standIn.clear();
      const { answer, calls } = await callsDuring('publish-request-events', () =>
        handler({ Records: [...created.Records, ...changed.Records] }),
      );
      expect(answer.batchItemFailures).toEqual([]);
      const detailTypes = stack.standIn.events.map((e) => e.detailType);
      expect(detailTypes).toEqual(['TerminationRequestSubmitted', 'TerminationRequestStatusChanged', 'TerminationRequestStatusChanged']);
      expect(operations(calls)).toEqual(['dynamodb:BatchGetItem', 'kms:Sign', 'kms:Sign', 'kms:Sign', 'events:PutEvents']);
    });

    it("reads an erasure ledger record's entry back from the ledger with one GetItem before anything goes out", async () => {
      const { handler } = await import('../../functions/publish-request-events');
      // The sample's entry is not in this test's ledger: the publisher reads it, finds nothing, and publishes nothing.
      const { calls } = await callsDuring('publish-request-events', () => handler(streamEvent(streamErasureRecorded)));
      expect(operations(calls)).toContain('dynamodb:GetItem');
      expect(operations(calls)).not.toContain('events:PutEvents');
    });

    it("redrives a dead letter's batch: lists its table's streams, reads the range with its own role, confirms and publishes", async () => {
      const { handler } = await import('../../functions/publish-request-events');
      const { contractId } = await submitted();
      const positions = await streamPositionsOf(stack.tables.endpoint, stack.tables.names.requests, contractId);
      stack.standIn.clear();
      const { answer, calls } = await callsDuring('publish-request-events', () => handler({ redrive: positions }));
      expect(answer).toMatchObject({ outcome: 'redriven', handedBack: undefined });
      expect(stack.standIn.events.map((e) => e.detailType)).toEqual(['TerminationRequestSubmitted']);
      // One ListStreams per table whose stream it consumes (the requests table, the erasure ledger).
      expect(operations(calls).slice(0, 4)).toEqual([
        'dynamodb:ListStreams',
        'dynamodb:ListStreams',
        'dynamodb:GetShardIterator',
        'dynamodb:GetRecords',
      ]);
      expect(operations(calls).slice(-3)).toEqual(['dynamodb:BatchGetItem', 'kms:Sign', 'events:PutEvents']);
    });
  });

  describe('functions that make no AWS call', () => {
    it('authorize-customer checks a token with no AWS SDK call (the JWKS comes over HTTPS)', async () => {
      const { handler } = await import('../../functions/authorize-customer');
      const allowed = await callsDuring('authorize-customer', () =>
        handler(authorizerEvent(`Bearer ${signToken(key, { customerId: anna.customerId })}`)),
      );
      expect(allowed.answer.principalId).toBe(anna.customerId);
      const refused = await callsDuring('authorize-customer', () =>
        handler(authorizerEvent(`Bearer ${signToken(key, { customerId: anna.customerId, audience: 'nobody' })}`)).catch(
          (error: unknown) => error,
        ),
      );
      expect(String(refused.answer)).toMatch(/Unauthorized/);
      expect(recordedCalls('authorize-customer')).toEqual([]);
    });

    it('list-termination-reasons answers from the code alone', async () => {
      const { handler } = await import('../../functions/list-termination-reasons');
      const { answer, calls } = await callsDuring('list-termination-reasons', () => handler(reasonsEvent()));
      expect(answer.statusCode).toBe(200);
      expect(calls).toEqual([]);
    });
  });
});

/** Withdraws the contract's request without recording, so a second request can be made on it. */
async function withdrawnOutsideRecording(contractId: string): Promise<void> {
  const page = await callHandler({ method: 'GET', contractId, customerId: anna.customerId });
  const requestId = at(page.body, 'items', 0, 'requestId');
  const answer = await callHandler(withdrawalOf({ contractId, requestId: String(requestId) }, anna.customerId));
  expect(answer.status).toBe(200);
}

function reasonsEvent(): APIGatewayProxyEvent {
  const event = apiEvent({ method: 'GET' });
  const resource = '/api/v1/termination-reasons';
  return { ...event, resource, path: resource, pathParameters: null, requestContext: { ...event.requestContext, resourcePath: resource } };
}

describe('the prod roles, against the recorded calls', () => {
  let template: Record<string, unknown>;
  let resolver: TemplateResolver;
  let roles: FunctionRole[];
  /** The environment the handlers read at import: it names the local resources. */
  let localEnv: Record<string, string | undefined>;

  beforeAll(async () => {
    localEnv = { ...process.env };
    const packager = templatePackager();
    try {
      template = await packager.packageStage('prod', { CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere' });
    } finally {
      packager.cleanUp();
    }
    resolver = new TemplateResolver(template);
    roles = functionRoles(resolver);
  }, 120_000);

  const roleOf = (functions: FunctionRole[], name: string): FunctionRole => {
    const found = functions.find((fn) => fn.functionName === name);
    if (found === undefined) throw new Error(`The prod template has no function for functions/${name}.ts`);
    return found;
  };

  /** Every recorded access of the calls, on its prod resource, and each use of a key it makes there. */
  const prodAccesses = (functions: FunctionRole[], on: TemplateResolver, calls: SdkCall[]): ProdAccess[] =>
    calls.flatMap((call) =>
      call.accesses.flatMap((access) => {
        const prodAccess = toProdAccess(on, roleOf(functions, call.functionName), localEnv, call, access);
        return [prodAccess, ...keyAccesses(on, prodAccess)];
      }),
    );

  /** What the role of each call's function does not allow, as lines to read. */
  async function refusals(functions: FunctionRole[], on: TemplateResolver, calls: SdkCall[]): Promise<string[]> {
    const lines: string[] = [];
    for (const access of prodAccesses(functions, on, calls)) {
      const fn = roleOf(functions, access.functionName);
      const verdict = await simulate(fn, access, {
        resourcePolicy: resourcePolicyFor(on, access.resource),
        setOperatorKeys: READ_AS_SET_OPERATOR,
      });
      const where = `${access.functionName} (${fn.role}) ${access.operation}: ${access.action} on ${access.resource}`;
      if (verdict.result !== 'Allowed') lines.push(`${where} is ${verdict.result}: ${verdict.why}`);
      if (verdict.ignoredContextKeys.length > 0) lines.push(`${where} ignored the context keys ${verdict.ignoredContextKeys.join(', ')}`);
    }
    return lines;
  }

  /** The grants of every role that no recorded call of its functions used, as `Role action resource`. */
  async function unusedGrants(functions: FunctionRole[], on: TemplateResolver, calls: SdkCall[]): Promise<string[]> {
    const accesses = prodAccesses(functions, on, calls);
    const unused: string[] = [];
    for (const fn of functions) {
      const own = accesses.filter((access) => access.functionName === fn.functionName);
      for (const grant of grantsOf(fn))
        if (!(await grantUsed(fn, grant, own, READ_AS_SET_OPERATOR, (arn) => resourcePolicyFor(on, arn)))) unused.push(grantText(grant));
    }
    return [...new Set(unused)].sort();
  }

  it('has one function per entry point, each with its own role, and each was driven above', () => {
    expect(roles.map((fn) => fn.functionName).sort()).toEqual(FUNCTIONS);
    expect(new Set(roles.map((fn) => fn.role)).size).toBe(roles.length);
    const silent = ['authorize-customer', 'list-termination-reasons'];
    for (const name of FUNCTIONS.filter((n) => !silent.includes(n))) expect(recordedCalls(name).length, name).toBeGreaterThan(0);
    for (const name of silent) expect(recordedCalls(name), name).toEqual([]);
  });

  it('allows every recorded call by the role of the function that made it, on the prod resource', async () => {
    expect(recordedCalls().length).toBeGreaterThan(0);
    expect(await refusals(roles, resolver, recordedCalls())).toEqual([]);
  });

  it('grants nothing that no recorded call used, but the commented allow-list', async () => {
    expect(await unusedGrants(roles, resolver, recordedCalls())).toEqual([...UNUSED_BY_DESIGN].sort());
  });

  describe('fails when the template changes (in memory)', () => {
    /** A copy of the prod template with one role's statements changed. */
    function changed(role: string, policy: string, change: (statements: Record<string, unknown>[]) => void): TemplateResolver {
      const copy = structuredClone(template);
      const policies = at(copy, 'Resources', role, 'Properties', 'Policies');
      const found = Array.isArray(policies) ? policies.find((p: unknown) => at(p, 'PolicyName') === policy) : undefined;
      const statements = at(found, 'PolicyDocument', 'Statement');
      if (!Array.isArray(statements)) throw new Error(`${role} has no policy ${policy}`);
      change(statements.filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null));
      return new TemplateResolver(copy);
    }

    it('a call loses its grant: the create refused ConditionCheckItem on the contracts table', async () => {
      const on = changed('CreateTerminationRequestRole', 'termination-tables', (statements) => {
        for (const statement of statements) {
          const actions = statement['Action'];
          if (Array.isArray(actions) && JSON.stringify(statement['Resource']).includes('contracts-owned-elsewhere'))
            statement['Action'] = actions.filter((action) => action !== 'dynamodb:ConditionCheckItem');
        }
      });
      const lines = await refusals(functionRoles(on), on, recordedCalls('create-termination-request'));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).toMatch(
          /^create-termination-request \(CreateTerminationRequestRole\) dynamodb:TransactWriteItems: dynamodb:ConditionCheckItem on arn:aws:dynamodb:eu-central-1:123456789012:table\/contracts-owned-elsewhere is ImplicitlyDenied/,
        );
      }
    });

    it('a role gains a grant no call uses: it is flagged', async () => {
      const on = changed('ListTerminationRequestsRole', 'list-requests', (statements) => {
        const [query] = statements;
        if (query !== undefined) query['Action'] = ['dynamodb:Query', 'dynamodb:Scan'];
      });
      const unused = await unusedGrants(functionRoles(on), on, recordedCalls());
      expect(unused.filter((grant) => !UNUSED_BY_DESIGN.includes(grant))).toEqual([
        'ListTerminationRequestsRole dynamodb:Scan arn:aws:dynamodb:eu-central-1:123456789012:table/contract-termination-prod-requests',
      ]);
    });
  });

  describe("the stage's key", () => {
    const reads = () => prodAccesses(roles, resolver, recordedCalls('get-termination-request'));

    it('is used by every read of the requests table, through DynamoDB, and allowed by the role and the key policy together', async () => {
      const uses = reads().filter((access) => access.action.startsWith('kms:'));
      expect(uses.length).toBeGreaterThan(0);
      for (const use of uses) {
        expect([use.action, use.resource, use.context['kms:ViaService']]).toEqual([
          'kms:Decrypt',
          STAGE_KEY,
          `dynamodb.${REGION}.amazonaws.com`,
        ]);
      }
      // The contracts table another system owns in prod is not under this stack's key.
      expect(reads().some((access) => access.resource.includes('contracts-owned-elsewhere'))).toBe(true);
      expect(uses).toHaveLength(reads().filter((access) => access.resource.includes('contract-termination-prod-requests')).length);
      expect(await refusals(roles, resolver, recordedCalls('get-termination-request'))).toEqual([]);
    });

    it("refuses a role that lacks the key's use in its own policy, though the key's policy names the account", async () => {
      const copy = structuredClone(template);
      const policies = at(copy, 'Resources', 'GetTerminationRequestRole', 'Properties', 'Policies');
      if (!Array.isArray(policies)) throw new Error('GetTerminationRequestRole has no policies');
      const index = policies.findIndex((policy: unknown) => at(policy, 'PolicyName') === 'stage-key');
      expect(index).toBeGreaterThan(0);
      policies.splice(index, 1);
      const on = new TemplateResolver(copy);
      const lines = await refusals(functionRoles(on), on, recordedCalls('get-termination-request'));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines)
        expect(line).toMatch(/dynamodb:GetItem \(dynamodb:GetItem\): kms:Decrypt on arn:aws:kms:.*:key\/StageKey is ImplicitlyDenied/);
    });

    it('lets no one of the account decrypt with it directly, whatever their own policies allow', async () => {
      const [use] = reads().filter((access) => access.action === 'kms:Decrypt');
      if (use === undefined) throw new Error('No read under the key');
      const insider = roleOf(roles, 'create-termination-request');
      const everything = {
        name: 'insider',
        document: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
      };
      const keyPolicy = resourcePolicyFor(resolver, STAGE_KEY);
      const through = (context: Record<string, string>) =>
        simulate(
          insider,
          { ...use, context: { ...context, 'aws:PrincipalArn': roleArn(insider.role), 'aws:PrincipalAccount': ACCOUNT_ID } },
          {
            policies: [everything],
            resourcePolicy: keyPolicy,
          },
        );
      expect((await through({ 'kms:CallerAccount': ACCOUNT_ID, 'kms:ViaService': `dynamodb.${REGION}.amazonaws.com` })).result).toBe(
        'Allowed',
      );
      expect((await through({ 'kms:CallerAccount': ACCOUNT_ID })).result).not.toBe('Allowed');
      // Through S3 only the audit trail's files, which carry the trail's ARN in their encryption context.
      expect((await through({ 'kms:CallerAccount': ACCOUNT_ID, 'kms:ViaService': `s3.${REGION}.amazonaws.com` })).result).not.toBe(
        'Allowed',
      );
    });
  });

  describe('the event bus', () => {
    const publishes = () =>
      prodAccesses(roles, resolver, recordedCalls('publish-request-events')).filter((access) => access.action === 'events:PutEvents');

    it("refuses the publisher an event with the back office's source (the bus policy's Deny)", async () => {
      const fn = roleOf(roles, 'publish-request-events');
      const [access] = publishes();
      if (access === undefined) throw new Error('The publisher made no PutEvents');
      const forged = { ...access, context: { ...access.context, 'events:source': ['bank.back-office'] } };
      const verdict = await simulate(fn, forged, {
        resourcePolicy: resourcePolicyFor(resolver, forged.resource),
        setOperatorKeys: READ_AS_SET_OPERATOR,
      });
      expect(verdict.result).toBe('ExplicitlyDenied');
    });

    /** The same access made by another function's role (the recorded context names the caller). */
    const madeBy = (fn: FunctionRole, access: ProdAccess): ProdAccess => ({
      ...access,
      context: { ...access.context, 'aws:PrincipalArn': roleArn(fn.role) },
    });
    /** A principal of the account allowed everything by its own policies: only a resource policy stops it. */
    const insiderPolicy = {
      name: 'insider',
      document: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
    };

    it("lets the publisher put this service's events, and refuses them to any other role of the account", async () => {
      const [access] = publishes();
      if (access === undefined) throw new Error('The publisher made no PutEvents');
      const resourcePolicy = resourcePolicyFor(resolver, access.resource);
      const asPublisher = await simulate(roleOf(roles, 'publish-request-events'), access, {
        resourcePolicy,
        setOperatorKeys: READ_AS_SET_OPERATOR,
      });
      expect(asPublisher.result).toBe('Allowed');
      for (const other of ['create-termination-request', 'apply-status-decision']) {
        const verdict = await simulate(roleOf(roles, other), madeBy(roleOf(roles, other), access), {
          policies: [insiderPolicy],
          resourcePolicy,
          setOperatorKeys: READ_AS_SET_OPERATOR,
        });
        expect([other, verdict.result]).toEqual([other, 'ExplicitlyDenied']);
      }
    });

    it("refuses a decision planted in the dead-letter queue by any role but the consumer, and any letter in the publisher's but its own", async () => {
      const [sent] = prodAccesses(roles, resolver, recordedCalls('apply-status-decision')).filter((a) => a.action === 'sqs:SendMessage');
      if (sent === undefined) throw new Error('The consumer sent no dead letter');
      const resourcePolicy = resourcePolicyFor(resolver, sent.resource);
      expect((await simulate(roleOf(roles, 'apply-status-decision'), sent, { resourcePolicy })).result).toBe('Allowed');
      const insider = roleOf(roles, 'create-termination-request');
      const planted = await simulate(insider, madeBy(insider, sent), { policies: [insiderPolicy], resourcePolicy });
      expect(planted.result).toBe('ExplicitlyDenied');
      const publisherQueue = { ...sent, resource: sent.resource.replace('decision-dead-letters', 'publisher-dead-letters') };
      const publisherPolicy = resourcePolicyFor(resolver, publisherQueue.resource);
      expect(publisherPolicy).toBeDefined();
      const publisher = roleOf(roles, 'publish-request-events');
      const asPublisher = await simulate(publisher, madeBy(publisher, publisherQueue), {
        policies: publisher.policies,
        resourcePolicy: publisherPolicy,
      });
      expect(asPublisher.result).toBe('Allowed');
      const asConsumer = await simulate(roleOf(roles, 'apply-status-decision'), publisherQueue, {
        policies: [insiderPolicy],
        resourcePolicy: publisherPolicy,
      });
      expect(asConsumer.result).toBe('ExplicitlyDenied');
    });
  });
});
