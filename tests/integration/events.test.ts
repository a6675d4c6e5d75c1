import { readdirSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import accountKeyMismatch from '../../events/account-key-mismatch.json' with { type: 'json' };
import closedContract from '../../events/closed-contract.json' with { type: 'json' };
import commentRequired from '../../events/comment-required.json' with { type: 'json' };
import createRequestBoris from '../../events/create-request-boris.json' with { type: 'json' };
import createRequestKeyReused from '../../events/create-request-key-reused.json' with { type: 'json' };
import createRequestOtherKey from '../../events/create-request-other-key.json' with { type: 'json' };
import createRequest from '../../events/create-request.json' with { type: 'json' };
import customerIdInBody from '../../events/customer-id-in-body.json' with { type: 'json' };
import dateAfterContractEnd from '../../events/date-after-contract-end.json' with { type: 'json' };
import invalidBody from '../../events/invalid-body.json' with { type: 'json' };
import malformedJson from '../../events/malformed-json.json' with { type: 'json' };
import missingIdempotencyKey from '../../events/missing-idempotency-key.json' with { type: 'json' };
import getUnknownRequest from '../../events/get-unknown-request.json' with { type: 'json' };
import getUnknownRequestDetails from '../../events/get-unknown-request-details.json' with { type: 'json' };
import listMyRequests from '../../events/list-my-requests.json' with { type: 'json' };
import listRequests from '../../events/list-requests.json' with { type: 'json' };
import noAuthorizerContext from '../../events/no-authorizer-context.json' with { type: 'json' };
import otherCustomersContract from '../../events/other-customers-contract.json' with { type: 'json' };
import russianNotFound from '../../events/russian-not-found.json' with { type: 'json' };
import unknownContract from '../../events/unknown-contract.json' with { type: 'json' };
import withdrawUnknownRequest from '../../events/withdraw-unknown-request.json' with { type: 'json' };
import type { ErrorCode } from '../../lib/http/errors';
import { REQUEST_NUMBER_PATTERN } from '../../lib/termination/request-number';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { detailFields } from '../support/error-body';
import { sendEvent, type HandlerAnswer } from '../support/handler';
import { ofKind, useFreshTables, type TestTables } from '../support/local-tables';
import { ISO_UTC, SERVICE_UUID, UUID } from '../support/patterns';

/*
 * Replays every sample event of events/ through the real handler against DynamoDB Local, in the
 * order of the table below: later steps depend on earlier ones (the replay and the 409 need the
 * request created first).
 */

interface Step {
  /** File name in events/. */
  file: string;
  /** Declared as APIGatewayProxyEvent with no cast, so tsc checks each file's shape. */
  event: APIGatewayProxyEvent;
  /** What this step is about, for the test name. */
  title: string;
  status: number;
  /** For error answers; a success answer must not carry an errorCode. */
  errorCode?: ErrorCode;
  /** The exact set of `details[].field` of an error answer. */
  fields?: string[];
  /** The key facts of this step beyond status, errorCode and correlation. */
  check?: (answer: HandlerAnswer) => void;
}

let tables: TestTables;

/** The 201 of create-request.json, kept for the replay and the 409 after it. */
let created: HandlerAnswer | undefined;

beforeAll(async () => {
  tables = await useFreshTables();
});

function sentHeader(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(event.headers).find(([key]) => key.toLowerCase() === wanted)?.[1];
}

function createdAnswer(): HandlerAnswer {
  if (!created) throw new Error('create-request.json did not answer 201 earlier in this file');
  return created;
}

function expectCreatedBody(answer: HandlerAnswer, contractId: string): void {
  expect(answer.body).toEqual({
    requestId: expect.stringMatching(SERVICE_UUID),
    requestNumber: expect.stringMatching(REQUEST_NUMBER_PATTERN),
    status: 'SUBMITTED',
    createdAt: expect.stringMatching(ISO_UTC),
    message: expect.stringContaining(String(answer.body['requestNumber'])),
  });
  expect(answer.headers['Location']).toBe(`/dev/api/v1/contracts/${contractId}/termination-requests/${String(answer.body['requestId'])}`);
  expect(answer.headers['Idempotent-Replayed']).toBeUndefined();
}

const anna = DEMO_CUSTOMERS.anna;
const boris = DEMO_CUSTOMERS.boris;

const steps: Step[] = [
  {
    file: 'create-request.json',
    event: createRequest,
    title: "creates a request on Anna's active contract",
    status: 201,
    check: (answer) => {
      expectCreatedBody(answer, anna.contracts.active);
      created = answer;
    },
  },
  {
    file: 'create-request.json',
    event: createRequest,
    title: 'replays the same call: 200, the same body, Idempotent-Replayed',
    status: 200,
    check: (answer) => {
      expect(answer.raw).toBe(createdAnswer().raw);
      expect(answer.headers['Idempotent-Replayed']).toBe('true');
    },
  },
  {
    file: 'list-requests.json',
    event: listRequests,
    title: "lists the contract's requests: the one just created",
    status: 200,
    check: (answer) => {
      const { requestId, requestNumber } = createdAnswer().body;
      expect(answer.body).toEqual({ items: [expect.objectContaining({ requestId, requestNumber, status: 'SUBMITTED' })] });
    },
  },
  {
    file: 'list-my-requests.json',
    event: listMyRequests,
    title: "lists the caller's requests on every contract: the one just created, with its contract",
    status: 200,
    check: (answer) => {
      const { requestId, requestNumber } = createdAnswer().body;
      expect(answer.body).toEqual({
        items: [{ contractId: anna.contracts.active, request: expect.objectContaining({ requestId, requestNumber, status: 'SUBMITTED' }) }],
      });
    },
  },
  {
    file: 'get-unknown-request-details.json',
    event: getUnknownRequestDetails,
    title: 'refuses the details of a request id that is not on the contract',
    status: 404,
    errorCode: 'TERMINATION_REQUEST_NOT_FOUND',
    fields: ['requestId'],
  },
  {
    file: 'get-unknown-request.json',
    event: getUnknownRequest,
    title: 'refuses a request id that is not on the contract',
    status: 404,
    errorCode: 'TERMINATION_REQUEST_NOT_FOUND',
    fields: ['requestId'],
  },
  {
    file: 'withdraw-unknown-request.json',
    event: withdrawUnknownRequest,
    title: 'refuses to withdraw a request id that is not on the contract',
    status: 404,
    errorCode: 'TERMINATION_REQUEST_NOT_FOUND',
    fields: ['requestId'],
  },
  {
    file: 'create-request-other-key.json',
    event: createRequestOtherKey,
    title: 'refuses a second active request on the contract and names the first one',
    status: 409,
    errorCode: 'ACTIVE_REQUEST_ALREADY_EXISTS',
    fields: ['contractId'],
    check: (answer) => {
      expect(answer.body['message']).toContain(String(createdAnswer().body['requestNumber']));
    },
  },
  {
    file: 'create-request-key-reused.json',
    event: createRequestKeyReused,
    title: 'refuses the key of the first call with another body',
    status: 422,
    errorCode: 'IDEMPOTENCY_KEY_REUSED',
    fields: ['Idempotency-Key'],
  },
  {
    file: 'closed-contract.json',
    event: closedContract,
    title: 'refuses a closed contract',
    status: 422,
    errorCode: 'CONTRACT_NOT_ACTIVE',
    fields: ['contractId'],
  },
  {
    file: 'date-after-contract-end.json',
    event: dateAfterContractEnd,
    title: "refuses a date after the contract's end",
    status: 422,
    errorCode: 'TERMINATION_DATE_AFTER_CONTRACT_END',
    fields: ['desiredTerminationDate'],
  },
  {
    file: 'other-customers-contract.json',
    event: otherCustomersContract,
    title: "refuses Boris's contract to Anna, revealing nothing of it",
    status: 403,
    errorCode: 'CONTRACT_ACCESS_DENIED',
    fields: ['contractId'],
    check: (answer) => {
      expect(answer.raw).not.toContain(boris.customerId);
    },
  },
  {
    file: 'unknown-contract.json',
    event: unknownContract,
    title: 'answers 404 for a contract that does not exist',
    status: 404,
    errorCode: 'CONTRACT_NOT_FOUND',
    fields: ['contractId'],
  },
  {
    file: 'invalid-body.json',
    event: invalidBody,
    title: 'lists every field problem of the body',
    status: 400,
    errorCode: 'VALIDATION_ERROR',
    fields: [
      'bankDetails.accountNumber',
      'bankDetails.bik',
      'bankDetails.recipientName',
      'desiredTerminationDate',
      'documentIds[0]',
      'extra',
      'reasonCode',
    ],
  },
  {
    file: 'missing-idempotency-key.json',
    event: missingIdempotencyKey,
    title: 'refuses a call without Idempotency-Key',
    status: 400,
    errorCode: 'IDEMPOTENCY_KEY_MISSING',
    fields: ['Idempotency-Key'],
  },
  {
    file: 'malformed-json.json',
    event: malformedJson,
    title: 'refuses a body that is not JSON',
    status: 400,
    errorCode: 'MALFORMED_REQUEST',
    fields: ['body'],
  },
  {
    file: 'account-key-mismatch.json',
    event: accountKeyMismatch,
    title: 'refuses an account whose control key does not match the BIK',
    status: 422,
    errorCode: 'BANK_ACCOUNT_KEY_MISMATCH',
    fields: ['bankDetails.accountNumber'],
  },
  {
    file: 'comment-required.json',
    event: commentRequired,
    title: 'refuses reason OTHER without a comment',
    status: 422,
    errorCode: 'COMMENT_REQUIRED',
    fields: ['comment'],
  },
  {
    file: 'customer-id-in-body.json',
    event: customerIdInBody,
    title: 'refuses customerId in the body',
    status: 400,
    errorCode: 'VALIDATION_ERROR',
    fields: ['customerId'],
    check: (answer) => {
      expect(answer.body['details']).toEqual([{ field: 'customerId', reason: expect.stringContaining('must not be sent') }]);
    },
  },
  {
    file: 'no-authorizer-context.json',
    event: noAuthorizerContext,
    title: 'answers 401 without an authorizer context',
    status: 401,
    errorCode: 'UNAUTHORIZED',
    fields: ['Authorization'],
  },
  {
    file: 'russian-not-found.json',
    event: russianNotFound,
    title: 'answers in Russian when Accept-Language prefers ru',
    status: 404,
    errorCode: 'CONTRACT_NOT_FOUND',
    fields: ['contractId'],
    check: (answer) => {
      expect(answer.body['message']).toBe('Договор не найден.');
    },
  },
  {
    file: 'create-request-boris.json',
    event: createRequestBoris,
    title: "creates a request on Boris's contract with an end date",
    status: 201,
    check: (answer) => {
      expectCreatedBody(answer, boris.contracts.withEndDate);
      expect(answer.body['requestNumber']).not.toBe(createdAnswer().body['requestNumber']);
    },
  },
];

describe('events/', () => {
  it('holds exactly the files this test replays', () => {
    // The lifecycle's samples (decision-*, stream-*, withdrawal-*, published-*) are replayed by lifecycle-samples.test.ts.
    const files = readdirSync(new URL('../../events/', import.meta.url))
      .filter((file) => !/^(decision|stream|withdrawal|published)-/.test(file))
      .sort();
    expect(files).toEqual([...new Set(steps.map((s) => s.file))].sort());
  });

  it.each(steps.map((s) => [s.file, s] as const))('%s is a consistent event of its route and contract', (_file, { event }) => {
    const contractId = event.pathParameters?.['contractId'];
    const requestId = event.pathParameters?.['requestId'];
    expect(['POST', 'GET']).toContain(event.httpMethod);
    const withdrawal = /\/(withdrawal|details)$/.exec(event.resource)?.[0] ?? '';
    // The caller's requests on every contract name no contract.
    const resource =
      event.pathParameters === null
        ? '/api/v1/termination-requests'
        : `/api/v1/contracts/{contractId}/termination-requests${requestId === undefined ? '' : '/{requestId}'}${withdrawal}`;
    if (event.pathParameters !== null) expect(contractId).toMatch(UUID);
    expect(event.resource).toBe(resource);
    expect(event.requestContext.resourcePath).toBe(resource);
    expect(event.path).toBe(resource.replace('{contractId}', String(contractId)).replace('{requestId}', String(requestId)));
    if (event.httpMethod === 'GET' || withdrawal) expect(event.body).toBeNull();
    expect(event.requestContext.path).toBe(`/${event.requestContext.stage}${event.path}`);
    expect(event.multiValueHeaders).toEqual(Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k, [v]])));
    expect(sentHeader(event, 'X-Correlation-Id')).toMatch(UUID);
  });
});

describe('replaying events/ through the handler against DynamoDB Local, in order', () => {
  for (const [index, step] of steps.entries()) {
    it(`${String(index + 1).padStart(2, '0')} ${step.file}: ${step.title} -> ${step.status}`, async () => {
      const answer = await sendEvent(step.event);
      const sentCorrelationId = sentHeader(step.event, 'X-Correlation-Id');

      expect({ status: answer.status, errorCode: answer.body['errorCode'] }).toEqual({ status: step.status, errorCode: step.errorCode });
      expect(answer.headers['X-Correlation-Id']).toBe(sentCorrelationId);
      if (step.errorCode !== undefined) {
        expect(answer.body['correlationId']).toBe(sentCorrelationId);
        expect(answer.body['message']).toEqual(expect.any(String));
        expect(detailFields(answer.body).sort()).toEqual([...(step.fields ?? [])].sort());
      }
      step.check?.(answer);
    });
  }

  it('leaves exactly the two created requests in the table: refusals wrote nothing', async () => {
    const requests = ofKind(await tables.requestItems(), 'REQUEST');
    expect(requests.map((r) => [r['customerId'], r['contractId']]).sort()).toEqual(
      [
        [anna.customerId, anna.contracts.active],
        [boris.customerId, boris.contracts.withEndDate],
      ].sort(),
    );
  });
});
