import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { ErrorCode } from '../lib/http/errors';
import { ERROR_CODES, OUTCOMES } from '../lib/http/outcomes';
import { MAX_ACCEPT_LANGUAGE_LENGTH, textsFor } from '../lib/http/texts';
import { DEFAULT_PAGE_SIZE, encodeCursor, MAX_CURSOR_LENGTH, MAX_PAGE_SIZE } from '../lib/termination/read-termination-requests';
import type { Problem } from '../lib/api-model/problems';
import {
  errorBodySchema,
  REASON_CODES,
  terminationRequestInputSchema,
  terminationReasonListSchema,
  terminationRequestListSchema,
  withdrawalSchema,
  terminationRequestSchema,
} from '../lib/api-model/schemas';

/*
 * The OpenAPI 3.1 description of the API, built from the very JSON Schemas the validator
 * compiles and the errorCodes the code maps (npm run openapi writes docs/openapi.yaml; a test
 * fails when the file and this builder disagree).
 */

export const OPENAPI_PATH = 'docs/openapi.yaml';
const API_PATH = '/api/v1/contracts/{contractId}/termination-requests';
const en = textsFor('en');
const correlationId = '6c1f3b0e-2d4a-4e8b-9f7c-1a2b3c4d5e6f';
const requestId = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** The schema without `$id`: components are addressed by their place in the document. */
function component(schema: { $id: string }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$id'));
}

const header = (description: string, schema: Record<string, unknown>, required = false) => ({ description, required, schema });
const correlationHeader = header(
  "The client's X-Correlation-Id, or a new UUID when none was sent (the error body's correlationId).",
  { type: 'string', format: 'uuid' },
  true,
);

/** When the example of REQUEST_LIMIT_REACHED lets a new request be made. */
const LIMIT_EXAMPLE_TIME = '2026-12-24T09:00:00.000Z';

/** An example error body for each errorCode, grouped by status (an operation may show its own). */
const ERROR_EXAMPLES: Record<ErrorCode, Problem[]> = {
  MALFORMED_REQUEST: [{ field: 'body', code: 'notJson' }],
  VALIDATION_ERROR: [
    { field: 'bankDetails.bik', code: 'digits', limit: 9 },
    { field: 'desiredTerminationDate', code: 'date' },
  ],
  IDEMPOTENCY_KEY_MISSING: [{ field: 'Idempotency-Key', code: 'required' }],
  UNAUTHORIZED: [{ field: 'Authorization', code: 'bearerTokenRequired' }],
  CONTRACT_ACCESS_DENIED: [{ field: 'contractId', code: 'contractAccessDenied' }],
  CONTRACT_NOT_FOUND: [{ field: 'contractId', code: 'contractNotFound' }],
  TERMINATION_REQUEST_NOT_FOUND: [{ field: 'requestId', code: 'requestNotFound' }],
  ACTIVE_REQUEST_ALREADY_EXISTS: [{ field: 'contractId', code: 'activeRequestExists', requestNumber: 'TR-7KQM-X2PF' }],
  REQUEST_NOT_WITHDRAWABLE: [{ field: 'status', code: 'notWithdrawable', status: 'APPROVED' }],
  CONTRACT_NOT_ACTIVE: [{ field: 'contractId', code: 'contractNotActive' }],
  TERMINATION_DATE_AFTER_CONTRACT_END: [{ field: 'desiredTerminationDate', code: 'dateAfterContractEnd', endDate: '2045-12-31' }],
  BANK_ACCOUNT_KEY_MISMATCH: [{ field: 'bankDetails.accountNumber', code: 'accountKeyMismatch' }],
  COMMENT_REQUIRED: [{ field: 'comment', code: 'commentRequired' }],
  IDEMPOTENCY_KEY_REUSED: [{ field: 'Idempotency-Key', code: 'keyReused' }],
  DOCUMENT_NOT_AVAILABLE: [{ field: 'documentIds[1]', code: 'documentNotAvailable' }],
  REQUEST_LIMIT_REACHED: [{ field: 'contractId', code: 'requestLimitReached', limit: 5, days: 30, from: LIMIT_EXAMPLE_TIME }],
  INTERNAL_ERROR: [],
  SERVICE_UNAVAILABLE: [],
};

/** Answers only API Gateway gives (gateway responses), by status. */
const GATEWAY_EXAMPLES: Record<string, { errorCode: string; message: string }[]> = {
  '403': [
    { errorCode: 'ACCESS_DENIED', message: 'Access is denied.' },
    { errorCode: 'WAF_FILTERED', message: 'The request was refused.' },
  ],
  '404': [{ errorCode: 'ROUTE_NOT_FOUND', message: 'There is no such route.' }],
  '413': [{ errorCode: 'REQUEST_TOO_LARGE', message: 'The request is too large.' }],
  '429': [{ errorCode: 'THROTTLED', message: 'Too Many Requests' }],
};

/** What each status means, the same for every operation. */
const STATUS_TEXT: Record<string, string> = {
  '401': 'No valid bearer token.',
  '413': 'The body is over the service limit (16 KiB): refused by the WAF or API Gateway.',
  '429': 'The stage throttled the call (API Gateway), or the WAF the address. Retry after Retry-After seconds.',
  '500': 'Internal error. The body carries no internals; quote the correlationId.',
  '503': 'A dependency is unavailable. Retry after Retry-After seconds, with the same Idempotency-Key.',
};

const GATEWAY_403 = 'or API Gateway or the WAF refused the call (ACCESS_DENIED, WAF_FILTERED)';
const GATEWAY_404 = 'or there is no such route (ROUTE_NOT_FOUND, from API Gateway)';

interface Operation {
  /** The errorCodes the operation can answer with. */
  codes: ErrorCode[];
  /** What a status means for this operation, where it differs from STATUS_TEXT. */
  texts: Record<string, string>;
  /** Its own example of an errorCode, where the general one would not fit its call. */
  examples?: Partial<Record<ErrorCode, Problem[]>>;
}

const ALL_CODES = [...ERROR_CODES];
const READ_CODES: ErrorCode[] = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'CONTRACT_ACCESS_DENIED',
  'CONTRACT_NOT_FOUND',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];
const READ_TEXTS = {
  '403': `The contract belongs to another customer, ${GATEWAY_403}.`,
};

const OPERATIONS = {
  create: {
    codes: ALL_CODES.filter((code) => code !== 'TERMINATION_REQUEST_NOT_FOUND' && code !== 'REQUEST_NOT_WITHDRAWABLE'),
    texts: {
      '400': 'The request could not be read, or fields are not valid (details lists each).',
      '403': `The contract belongs to another customer, ${GATEWAY_403}.`,
      '404': `No such contract, ${GATEWAY_404}.`,
      '409': 'The contract already has an active termination request; the message names its number.',
      '422':
        "A business rule refused the request, or the Idempotency-Key was used for another request. DOCUMENT_NOT_AVAILABLE names each documentIds item that is not one of the caller's uploaded, usable documents. REQUEST_LIMIT_REACHED carries nextRequestAllowedAt: the same call is refused until then, so it is not retried.",
    },
  },
  list: {
    codes: READ_CODES,
    texts: {
      ...READ_TEXTS,
      '400': 'A path, query or header value is not valid (details lists each).',
      '404': `No such contract, ${GATEWAY_404}.`,
    },
    examples: {
      VALIDATION_ERROR: [
        { field: 'limit', code: 'range', min: 1, max: MAX_PAGE_SIZE },
        { field: 'cursor', code: 'invalid' },
      ],
    },
  },
  get: {
    codes: [...READ_CODES, 'TERMINATION_REQUEST_NOT_FOUND'],
    texts: {
      ...READ_TEXTS,
      '400': 'A path or header value is not valid (details lists each).',
      '404': `No such contract, or no such request on it, ${GATEWAY_404}.`,
    },
    examples: { VALIDATION_ERROR: [{ field: 'requestId', code: 'mustBeUuid' }] },
  },
  withdraw: {
    codes: [
      ...READ_CODES,
      'MALFORMED_REQUEST',
      'IDEMPOTENCY_KEY_MISSING',
      'IDEMPOTENCY_KEY_REUSED',
      'TERMINATION_REQUEST_NOT_FOUND',
      'REQUEST_NOT_WITHDRAWABLE',
    ],
    texts: {
      ...READ_TEXTS,
      '400':
        'A body was sent (this call takes none), the Idempotency-Key is missing, or a path or header value is not valid (details lists each).',
      '404': `No such contract, or no such request on it, ${GATEWAY_404}.`,
      '409': 'The request can no longer be withdrawn: the bank has approved it, or it is final; details names its status.',
      '422': 'The Idempotency-Key was used for another action (a withdrawal of another request).',
    },
    examples: {
      MALFORMED_REQUEST: [{ field: 'body', code: 'bodyNotAllowed' }],
      VALIDATION_ERROR: [{ field: 'requestId', code: 'mustBeUuid' }],
    },
  },
  reasons: {
    codes: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'],
    texts: {
      '400': 'A header value is not valid (details lists each).',
      '403': 'API Gateway or the WAF refused the call (ACCESS_DENIED, WAF_FILTERED).',
      '404': 'There is no such route (ROUTE_NOT_FOUND, from API Gateway).',
    },
    examples: { VALIDATION_ERROR: [{ field: 'Accept-Language', code: 'maxLength', limit: MAX_ACCEPT_LANGUAGE_LENGTH }] },
  },
} satisfies Record<string, Operation>;

/** Headers arrive as text: Retry-After is whole seconds written in digits. */
const retryAfterHeader = header('Seconds to wait before retrying.', { type: 'string', pattern: '^[1-9][0-9]*$' }, true);

function errorResponses(operation: Operation): Record<string, unknown> {
  const statuses = [...new Set([...operation.codes.map((code) => String(OUTCOMES[code].status)), ...Object.keys(GATEWAY_EXAMPLES)])].sort();
  return Object.fromEntries(
    statuses.map((status): [string, unknown] => {
      const codes = operation.codes.filter((code) => String(OUTCOMES[code].status) === status);
      const examples = Object.fromEntries([
        ...codes.map((errorCode): [string, unknown] => [
          errorCode,
          {
            value: {
              errorCode,
              message: en.error(errorCode, { requestNumber: 'TR-7KQM-X2PF', nextRequestAllowedAt: LIMIT_EXAMPLE_TIME }),
              correlationId,
              details: (operation.examples?.[errorCode] ?? ERROR_EXAMPLES[errorCode]).map((problem) => ({
                field: problem.field,
                reason: en.problem(problem),
              })),
              ...(errorCode === 'REQUEST_LIMIT_REACHED' ? { nextRequestAllowedAt: LIMIT_EXAMPLE_TIME } : {}),
            },
          },
        ]),
        ...(GATEWAY_EXAMPLES[status] ?? []).map((e): [string, unknown] => [
          e.errorCode,
          { summary: 'from API Gateway', value: { ...e, correlationId, details: [] } },
        ]),
      ]);
      const headers: Record<string, unknown> = { 'X-Correlation-Id': { $ref: '#/components/headers/X-Correlation-Id' } };
      // Every 503 and every 429 (the function's, the gateway's, the WAF's) says how long to wait.
      if (status === '503' || status === '429') headers['Retry-After'] = retryAfterHeader;
      // The errorCodes this status can carry here, as literals: a client can switch on them exhaustively.
      const errorCodes = [...codes, ...(GATEWAY_EXAMPLES[status] ?? []).map((e) => e.errorCode)];
      const schema = {
        allOf: [
          { $ref: '#/components/schemas/ErrorBody' },
          { type: 'object', required: ['errorCode'], properties: { errorCode: { enum: errorCodes } } },
        ],
      };
      const description = operation.texts[status] ?? STATUS_TEXT[status];
      if (description === undefined) throw new Error(`No description of ${status} for an operation answering ${codes.join(', ')}`);
      return [status, { description, headers, content: { 'application/json': { schema, examples } } }];
    }),
  );
}

export function buildOpenApi(): Record<string, unknown> {
  const created = {
    requestId,
    requestNumber: 'TR-7KQM-X2PF',
    status: 'SUBMITTED',
    createdAt: '2026-11-21T09:30:00.000Z',
    message: en.created('TR-7KQM-X2PF'),
  };
  // A request the back office has decided on: its status, its words, and the message for both.
  const decided = { status: 'REJECTED', requestNumber: 'TR-7KQM-X2PF', statusReason: 'The contract has an unpaid balance.' } as const;
  const read = { ...created, ...decided, message: en.requestStatus(decided) };
  const contractIdParameter = { name: 'contractId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const commonHeaders = [
    { name: 'X-Correlation-Id', in: 'header', required: false, schema: { type: 'string', format: 'uuid' } },
    {
      name: 'Accept-Language',
      in: 'header',
      required: false,
      description: `ru for Russian texts; English otherwise. At most ${MAX_ACCEPT_LANGUAGE_LENGTH} characters (longer: 400 VALIDATION_ERROR).`,
      schema: { type: 'string', maxLength: MAX_ACCEPT_LANGUAGE_LENGTH },
    },
  ];
  const successHeaders = {
    'X-Correlation-Id': { $ref: '#/components/headers/X-Correlation-Id' },
    Location: header(
      'Where the request lives.',
      { type: 'string', examples: [`/api/v1/contracts/a1a1a1a1-0000-4000-8000-000000000001/termination-requests/${requestId}`] },
      true,
    ),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Contract early-termination requests',
      version: '1.0.0',
      description:
        'Customers ask to terminate a contract ahead of its term. The rules behind each answer are the decision records in docs/decisions/ of the service repository.',
      contact: { name: 'Contract termination service team' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    tags: [{ name: 'termination-requests', description: "A customer's requests to terminate a contract early." }],
    // A deployed stage first: generated clients take the first server as their default base URL.
    servers: [
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: 'A deployed stage, by its execute-api URL (behind a custom domain: that domain and its base path)',
        variables: {
          apiId: { default: 'apiId', description: "The stage's REST API id" },
          region: { default: 'eu-central-1' },
          stage: { default: 'prod' },
        },
      },
      { url: 'http://127.0.0.1:3000', description: 'npm start on a laptop (API_PORT moves it)' },
    ],
    security: [{ bearerAuth: [] }],
    paths: {
      [API_PATH]: {
        post: {
          operationId: 'createTerminationRequest',
          summary: 'Ask to terminate a contract early',
          description:
            'Creates the request once, however often it is sent: reuse one Idempotency-Key for every retry of one user action. A replay answers 200 with the first answer, byte for byte.',
          tags: ['termination-requests'],
          parameters: [
            contractIdParameter,
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: true,
              description: 'UUID; scoped to the customer; kept 24 h. Missing: 400 IDEMPOTENCY_KEY_MISSING.',
              schema: { type: 'string', format: 'uuid' },
            },
            ...commonHeaders,
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/TerminationRequestInput' },
                example: {
                  reasonCode: 'RELOCATION',
                  desiredTerminationDate: '2030-06-30',
                  bankDetails: { bik: '044525225', accountNumber: '40817810700000000001', recipientName: 'Anna Ivanova' },
                  comment: 'Moving abroad',
                },
              },
            },
          },
          responses: {
            '201': {
              description: 'Request created.',
              headers: successHeaders,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/TerminationRequest' }, example: created } },
            },
            '200': {
              description: 'The same call again: the earlier request, byte for byte.',
              headers: { ...successHeaders, 'Idempotent-Replayed': header('Present on replays.', { type: 'string', const: 'true' }, true) },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/TerminationRequest' }, example: created } },
            },
            ...errorResponses(OPERATIONS.create),
          },
        },
        get: {
          operationId: 'listTerminationRequests',
          summary: "The contract's termination requests, newest first",
          description: 'Active and ended requests of one contract of the caller, a page at a time; follow nextCursor for the next page.',
          tags: ['termination-requests'],
          parameters: [
            contractIdParameter,
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: `Requests per page, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when absent.`,
              schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
            },
            {
              name: 'cursor',
              in: 'query',
              required: false,
              description: 'The nextCursor of the previous page, as it came.',
              schema: { type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH },
            },
            ...commonHeaders,
          ],
          responses: {
            '200': {
              description: 'One page of requests; nextCursor is present when there are more.',
              headers: { 'X-Correlation-Id': { $ref: '#/components/headers/X-Correlation-Id' } },
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/TerminationRequestList' },
                  example: { items: [read], nextCursor: encodeCursor(requestId) },
                },
              },
            },
            ...errorResponses(OPERATIONS.list),
          },
        },
      },
      [`${API_PATH}/{requestId}`]: {
        get: {
          operationId: 'getTerminationRequest',
          summary: 'One termination request of the contract, with its current status',
          description: "Where a 201's Location points. The message is written for the request's current status, in the language asked.",
          tags: ['termination-requests'],
          parameters: [
            contractIdParameter,
            { name: 'requestId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
            ...commonHeaders,
          ],
          responses: {
            '200': {
              description: 'The request and a message for its current status.',
              headers: { 'X-Correlation-Id': { $ref: '#/components/headers/X-Correlation-Id' } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/TerminationRequest' }, example: read } },
            },
            ...errorResponses(OPERATIONS.get),
          },
        },
      },
      '/api/v1/termination-reasons': {
        get: {
          operationId: 'listTerminationReasons',
          summary: 'The reasons a customer may give, labelled in their language',
          description:
            "Every reasonCode the create accepts, from the same list its validator uses, with a label in the caller's language and whether it needs a comment. Cacheable per language for an hour (Cache-Control: private, max-age=3600; Vary: Accept-Language).",
          tags: ['termination-requests'],
          parameters: [...commonHeaders],
          responses: {
            '200': {
              description: 'The reasons, in the order a form shows them.',
              headers: { 'X-Correlation-Id': { $ref: '#/components/headers/X-Correlation-Id' } },
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/TerminationReasonList' },
                  example: {
                    items: REASON_CODES.map((reasonCode) => ({
                      reasonCode,
                      label: en.reasons[reasonCode],
                      commentRequired: reasonCode === 'OTHER',
                    })),
                  },
                },
              },
            },
            ...errorResponses(OPERATIONS.reasons),
          },
        },
      },
      [`${API_PATH}/{requestId}/withdrawal`]: {
        post: {
          operationId: 'withdrawTerminationRequest',
          summary: 'Withdraw a termination request',
          description:
            'The customer withdraws their own request while it is SUBMITTED or IN_REVIEW: it becomes WITHDRAWN, final, and the contract may take a new request. No body: a call with one, even {}, answers 400 MALFORMED_REQUEST. Reuse one Idempotency-Key for every retry of one user action: a replay answers 200 with the first answer, byte for byte. A request the bank has approved, or that is already final, answers 409 REQUEST_NOT_WITHDRAWABLE with its status in details.',
          tags: ['termination-requests'],
          parameters: [
            contractIdParameter,
            { name: 'requestId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: true,
              description: 'UUID; scoped to the customer and to withdrawals; kept 24 h. Missing: 400 IDEMPOTENCY_KEY_MISSING.',
              schema: { type: 'string', format: 'uuid' },
            },
            ...commonHeaders,
          ],
          responses: {
            '200': {
              description: 'Withdrawn (or the replay of the same withdrawal, with Idempotent-Replayed: true).',
              headers: {
                'X-Correlation-Id': { $ref: '#/components/headers/X-Correlation-Id' },
                'Idempotent-Replayed': header('true on a replay; absent otherwise.', { type: 'string', enum: ['true'] }),
              },
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/Withdrawal' },
                  example: {
                    requestId: '0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01',
                    status: 'WITHDRAWN',
                    withdrawnAt: '2026-11-24T10:00:00.000Z',
                    message: 'Your early termination request has been withdrawn.',
                  },
                },
              },
            },
            ...errorResponses(OPERATIONS.withdraw),
          },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      headers: { 'X-Correlation-Id': correlationHeader },
      schemas: {
        TerminationRequestInput: component(terminationRequestInputSchema),
        TerminationRequest: component(terminationRequestSchema),
        TerminationRequestList: {
          ...component(terminationRequestListSchema),
          properties: {
            ...terminationRequestListSchema.properties,
            items: { type: 'array', maxItems: MAX_PAGE_SIZE, items: { $ref: '#/components/schemas/TerminationRequest' } },
          },
        },
        Withdrawal: component(withdrawalSchema),
        TerminationReasonList: component(terminationReasonListSchema),
        ErrorBody: component(errorBodySchema),
      },
    },
  };
}

/**
 * Written so that a YAML 1.1 reader (PyYAML, older js-yaml, many generators) reads what a YAML 1.2
 * one does: a string it would take for a date, a time, a boolean or a number (2030-06-30, on) is quoted.
 */
export function openApiYaml(): string {
  return stringify(buildOpenApi(), { lineWidth: 0, aliasDuplicateObjects: false, version: '1.1' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = openApiYaml();
  const changed = (() => {
    try {
      return readFileSync(OPENAPI_PATH, 'utf8') !== text;
    } catch {
      return true;
    }
  })();
  writeFileSync(OPENAPI_PATH, text);
  console.log(`${OPENAPI_PATH} ${changed ? 'written' : 'unchanged'}`);
}
