import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { DEFAULT_BUSINESS_TIME_ZONE } from '../lib/config';
import type { ErrorCode } from '../lib/http/errors';
import { MAX_DETAILS } from '../lib/http/answers';
import { ERROR_CODES, OUTCOMES } from '../lib/http/outcomes';
import { MAX_BODY_BYTES } from '../lib/http/request';
import { listInWords, MAX_ACCEPT_LANGUAGE_LENGTH, textsFor } from '../lib/http/texts';
import { businessToday } from '../lib/termination/business-date';
import { FINAL_STATUSES, WITHDRAWABLE_STATUSES } from '../lib/termination/lifecycle';
import { needsComment } from '../lib/termination/reason-rules';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../lib/termination/page-size';
import { encodeCursor, MAX_CURSOR_LENGTH } from '../lib/termination/read-termination-requests';
import type { Problem } from '../lib/api-model/problems';
import {
  ACCOUNT_DIGITS,
  BIK_DIGITS,
  customerTerminationRequestListSchema,
  errorBodySchema,
  REASON_CODES,
  STATUS_SUBMITTED,
  STATUS_WITHDRAWN,
  STATUSES,
  type Status,
  terminationRequestInputSchema,
  terminationReasonListSchema,
  terminationRequestDetailsSchema,
  terminationRequestListSchema,
  withdrawalSchema,
  terminationRequestSchema,
} from '../lib/api-model/schemas';
import { edgeAnswers, type EdgeAnswer } from './edge-answers';
import { textPatterns } from './openapi-patterns';

/*
 * The OpenAPI 3.1 description of the API, built from the very JSON Schemas the validator
 * compiles, the errorCodes the code maps (lib/http/outcomes.ts) and the answers API Gateway and
 * the WAF make themselves (resources/api.yml, resources/waf.yml). npm run openapi writes
 * docs/openapi.yaml; a test fails when the file and this builder disagree.
 *
 * Written for the generators client teams run over it (docs/clients.md): every enum is a named
 * schema declared once (ErrorCode, each operation's own list of codes, ReasonCode, the statuses),
 * single values are one-value enums rather than `const` (which 3.0-era generators skip), and each
 * text format the service checks is also a pattern (scripts/openapi-patterns.ts).
 */

export const OPENAPI_PATH = 'docs/openapi.yaml';
const API_PATH = '/api/v1/contracts/{contractId}/termination-requests';
const en = textsFor('en');
const correlationId = '6c1f3b0e-2d4a-4e8b-9f7c-1a2b3c4d5e6f';
const requestId = '0f8fad5b-d9cb-469f-a165-70867728950e';
/** The contract the list's example was read on: its cursor is bound to it. */
const exampleContractId = '3b241101-e2bb-4255-8caf-4136c566a962';
/** API Gateway's own limit on a request's size (an AWS quota, not a setting). */
const GATEWAY_MAX_BODY = '10 MB';
/** The length of every UUID (any case, with its hyphens). */
const UUID_LENGTH = 36;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Statuses in English words, as the answers' own texts list them. */
const inWords = (statuses: readonly Status[], conjunction: 'or' | 'and') => listInWords(statuses, 'en', conjunction);

/** The statuses a withdrawal is refused in: every status the lifecycle does not let the customer withdraw from. */
const NOT_WITHDRAWABLE = STATUSES.filter((status) => !WITHDRAWABLE_STATUSES.includes(status));

/** The status a refused withdrawal's example names: the first one a request reaches that may not be withdrawn. */
const NOT_WITHDRAWABLE_EXAMPLE: Status = NOT_WITHDRAWABLE[0] ?? STATUS_WITHDRAWN;

/** A request's status in words, from the lifecycle's own lists. */
const STATUS_DESCRIPTION = `${STATUS_SUBMITTED} on creation; the back office moves it on. The customer may withdraw it while ${inWords(WITHDRAWABLE_STATUSES, 'or')}. ${inWords(FINAL_STATUSES, 'and')} are final.`;

/** The enums of lib/api-model/schemas.ts that are a schema of their own, by the very list they use. */
const NAMED_ENUMS = new Map<readonly string[], { name: string; description?: string }>([
  [
    REASON_CODES,
    {
      name: 'ReasonCode',
      description: 'A reason a customer may give; GET /api/v1/termination-reasons labels each, in the order a form shows them.',
    },
  ],
  [STATUSES, { name: 'TerminationRequestStatus', description: STATUS_DESCRIPTION }],
]);

/**
 * A schema of lib/api-model/schemas.ts as the description publishes it: `$id` dropped (components
 * are addressed by their place), an enum of NAMED_ENUMS replaced by a reference to its schema
 * (made at its first use, in `named`), `const` written as a one-value enum, each text format
 * given its pattern, and the length a UUID, a date or a fixed count of digits implies written as
 * maxLength, for tools that read no format. Validating with it or with the service's schema is
 * the same (tests/generators/description-patterns.test.ts).
 */
function publish(schema: unknown, named: Record<string, Record<string, unknown>>): unknown {
  if (Array.isArray(schema)) return schema.map((item: unknown) => publish(item, named));
  if (!isObject(schema)) return schema;
  const enumOf = [...NAMED_ENUMS].find(([values]) => values === schema['enum'])?.[1];
  if (enumOf !== undefined) {
    // Its own words, else those of its first use, which then need not be repeated there. A use's
    // personal-data mark is the use's (a reason the customer gave), never the named list's.
    const { description, 'x-personal-data': personal, ...shape } = schema;
    const words = enumOf.description ?? description;
    const first = (named[enumOf.name] ??= { ...shape, ...(words === undefined ? {} : { description: words }) });
    const mark = personal === undefined ? {} : { 'x-personal-data': personal };
    return description === undefined || first['description'] === description
      ? { ...ref(enumOf.name), ...mark }
      : { ...ref(enumOf.name), description, ...mark };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    if (key === 'const') out['enum'] = [value];
    // A lib schema's reference by $id is a component of the same name.
    else if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out[key] = `#/components/schemas/${value}`;
    else if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, publish(property, named)]));
    else out[key] = publish(value, named);
  }
  const { recipientName, customerText } = textPatterns();
  if (schema['format'] === 'recipient-name') out['pattern'] = recipientName;
  if (schema['format'] === 'customer-text') out['pattern'] = customerText;
  if (schema['maxLength'] === undefined && schema['type'] === 'string') {
    const implied =
      schema['format'] === 'uuid'
        ? UUID_LENGTH
        : schema['format'] === 'date'
          ? 'YYYY-MM-DD'.length
          : Number(/^\^\[0-9\]\{(\d+)\}\$$/.exec(String(schema['pattern']))?.[1] ?? Number.NaN);
    if (!Number.isNaN(implied)) out['maxLength'] = implied;
  }
  return out;
}

/** A schema object, published. */
function publishObject(schema: object, named: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const published = publish(schema, named);
  if (!isObject(published)) throw new Error('A published schema is an object');
  return published;
}

/** When the example of REQUEST_LIMIT_REACHED lets a new request be made. */
const LIMIT_EXAMPLE_TIME = '2026-12-24T09:00:00.000Z';

/** An example error body for each errorCode (an operation may show its own); a code without one shows no details. */
const ERROR_EXAMPLES: Partial<Record<ErrorCode, Problem[]>> = {
  MALFORMED_REQUEST: [{ field: 'body', code: 'notJson' }],
  VALIDATION_ERROR: [
    { field: 'bankDetails.bik', code: 'digits', limit: BIK_DIGITS },
    { field: 'desiredTerminationDate', code: 'dateInPast', today: '2026-11-22' },
  ],
  IDEMPOTENCY_KEY_MISSING: [{ field: 'Idempotency-Key', code: 'required' }],
  UNAUTHORIZED: [{ field: 'Authorization', code: 'bearerTokenRequired' }],
  CONTRACT_ACCESS_DENIED: [{ field: 'contractId', code: 'contractAccessDenied' }],
  CONTRACT_NOT_FOUND: [{ field: 'contractId', code: 'contractNotFound' }],
  TERMINATION_REQUEST_NOT_FOUND: [{ field: 'requestId', code: 'requestNotFound' }],
  ACTIVE_REQUEST_ALREADY_EXISTS: [{ field: 'contractId', code: 'activeRequestExists', requestNumber: 'TR-7KQM-X2PF' }],
  REQUEST_NOT_WITHDRAWABLE: [{ field: 'status', code: 'notWithdrawable', status: NOT_WITHDRAWABLE_EXAMPLE }],
  CONTRACT_NOT_ACTIVE: [{ field: 'contractId', code: 'contractNotActive' }],
  TERMINATION_DATE_AFTER_CONTRACT_END: [{ field: 'desiredTerminationDate', code: 'dateAfterContractEnd', endDate: '2045-12-31' }],
  BANK_ACCOUNT_KEY_MISMATCH: [{ field: 'bankDetails.accountNumber', code: 'accountKeyMismatch' }],
  COMMENT_REQUIRED: [{ field: 'comment', code: 'commentRequired' }],
  IDEMPOTENCY_KEY_REUSED: [{ field: 'Idempotency-Key', code: 'keyReused' }],
  DOCUMENT_NOT_AVAILABLE: [{ field: 'documentIds[1]', code: 'documentNotAvailable' }],
  REQUEST_LIMIT_REACHED: [
    {
      field: 'contractId',
      code: 'requestLimitReached',
      limit: 5,
      days: 30,
      from: LIMIT_EXAMPLE_TIME,
      timeZone: DEFAULT_BUSINESS_TIME_ZONE,
    },
  ],
};

/** Between the WAF's limit and API Gateway's: what reaches a function, by operation. */
const tooLarge = (withoutWaf: string) =>
  `The body is too large. On a stage with the WAF (prod): over ${MAX_BODY_BYTES} bytes, the WAF's REQUEST_TOO_LARGE, with an empty correlationId and no X-Correlation-Id. On every stage: over API Gateway's ${GATEWAY_MAX_BODY}, API Gateway's REQUEST_TOO_LARGE. Without the WAF, a body between the two reaches the service: ${withoutWaf}`;

/** What each status means, the same for every operation. */
const STATUS_TEXT: Record<string, string> = {
  '401':
    'No valid bearer token: API Gateway refused it, or on prod the WAF found no well-formed bearer token in the call. Sign in again, then resend the same action.',
  '413': tooLarge('this call reads no body, and answers as if none was sent.'),
  '429':
    'Too many calls: the stage throttled the call (API Gateway, Retry-After 1), or on prod the WAF the address or the token (Retry-After 60). Retry after Retry-After seconds.',
  '500':
    'Internal error: the function, or API Gateway itself. The body carries no internals; quote the correlationId. Retry (a create or a withdrawal with the same Idempotency-Key).',
  '503':
    'A dependency is unavailable: DynamoDB, the authorizer, or the function could not be reached in time. Retry after Retry-After seconds (a create or a withdrawal with the same Idempotency-Key).',
  '5XX':
    'Another failure API Gateway answers itself, keeping its own status (e.g. 502 when a function fails or runs out of time): INTERNAL_ERROR. Retry (a create or a withdrawal with the same Idempotency-Key).',
};

const GATEWAY_403 = 'or API Gateway or the WAF refused the call (ACCESS_DENIED, WAF_FILTERED)';
const GATEWAY_404 = 'or there is no such route (ROUTE_NOT_FOUND, from API Gateway)';
/** A retry, within the key's hours, of a call whose request was erased at the customer's request (docs/decisions/0025-erasure.md). */
const erased404 = (call: string) =>
  `or the request this Idempotency-Key's ${call} was for has been erased at the customer's request (TERMINATION_REQUEST_NOT_FOUND, details naming Idempotency-Key: a retry gets neither the erased answer nor a new request, so it is not retried)`;
const ERASED_EXAMPLE: Problem[] = [{ field: 'Idempotency-Key', code: 'requestErased' }];

interface Operation {
  /** The name of its own list of errorCodes and of its error body (CreateErrorCode, CreateErrorBody). */
  name: string;
  /** The errorCodes its function can answer with; API Gateway's and the WAF's own are added to them. */
  codes: ErrorCode[];
  /** What a status means for this operation, where it differs from STATUS_TEXT. */
  texts: Record<string, string>;
  /** Its own example of an errorCode, where the general one would not fit its call. */
  examples?: Partial<Record<ErrorCode, Problem[]>>;
}

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

/** A GET of one request; a request's details answer the same refusals. */
const GET: Operation = {
  name: 'Get',
  codes: [...READ_CODES, 'TERMINATION_REQUEST_NOT_FOUND'],
  texts: {
    ...READ_TEXTS,
    '400': 'A path or header value is not valid (details lists each).',
    '404': `No such contract, or no such request on it, ${GATEWAY_404}.`,
  },
  examples: { VALIDATION_ERROR: [{ field: 'requestId', code: 'mustBeUuid' }] },
};

const OPERATIONS = {
  create: {
    name: 'Create',
    // Every code but the one only a request already made can meet: a new code of the table is the create's too.
    // TERMINATION_REQUEST_NOT_FOUND is a retry whose request was erased (docs/decisions/0025-erasure.md).
    codes: ERROR_CODES.filter((code) => code !== 'REQUEST_NOT_WITHDRAWABLE'),
    texts: {
      '400': `The request could not be read, or fields are not valid (details lists each). Without the WAF, a body over ${MAX_BODY_BYTES} bytes is MALFORMED_REQUEST too.`,
      '403': `The contract belongs to another customer, ${GATEWAY_403}.`,
      '404': `No such contract (CONTRACT_NOT_FOUND), ${erased404('create')}, ${GATEWAY_404}.`,
      '409': 'The contract already has an active termination request; the message names its number.',
      '413': tooLarge('400 MALFORMED_REQUEST, details naming the body.'),
      '422':
        "A business rule refused the request, or the Idempotency-Key was used for another request. DOCUMENT_NOT_AVAILABLE names each documentIds item that is not one of the caller's uploaded, usable documents. REQUEST_LIMIT_REACHED carries nextRequestAllowedAt: the same call is refused until then, so it is not retried.",
    },
    examples: { TERMINATION_REQUEST_NOT_FOUND: ERASED_EXAMPLE },
  },
  list: {
    name: 'List',
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
  get: GET,
  // The same refusals as a GET of the request, so the same error body.
  details: GET,
  // A call that names no contract meets the reasons dictionary's refusals alone: the same error body.
  customerList: {
    name: 'Reasons',
    codes: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'],
    texts: {
      '400': 'A query or header value is not valid (details lists each).',
      '403': 'API Gateway or the WAF refused the call (ACCESS_DENIED, WAF_FILTERED).',
      '404': 'There is no such route (ROUTE_NOT_FOUND, from API Gateway).',
    },
    examples: {
      VALIDATION_ERROR: [
        { field: 'limit', code: 'range', min: 1, max: MAX_PAGE_SIZE },
        { field: 'cursor', code: 'invalid' },
      ],
    },
  },
  withdraw: {
    name: 'Withdraw',
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
      '404': `No such contract, or no such request on it, ${erased404('withdrawal')}, ${GATEWAY_404}.`,
      '409': `The request can no longer be withdrawn: it is ${inWords(NOT_WITHDRAWABLE, 'or')}; details names its status.`,
      '413': tooLarge('400 MALFORMED_REQUEST, as for any body (this call takes none).'),
      '422': 'The Idempotency-Key was used for another action (a withdrawal of another request).',
    },
    examples: {
      MALFORMED_REQUEST: [{ field: 'body', code: 'bodyNotAllowed' }],
      VALIDATION_ERROR: [{ field: 'requestId', code: 'mustBeUuid' }],
    },
  },
  reasons: {
    name: 'Reasons',
    codes: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'],
    texts: {
      '400': 'A header value is not valid (details lists each).',
      '403': 'API Gateway or the WAF refused the call (ACCESS_DENIED, WAF_FILTERED).',
      '404': 'There is no such route (ROUTE_NOT_FOUND, from API Gateway).',
    },
    examples: { VALIDATION_ERROR: [{ field: 'Accept-Language', code: 'maxLength', limit: MAX_ACCEPT_LANGUAGE_LENGTH }] },
  },
} satisfies Record<string, Operation>;

/** The answers API Gateway and the WAF make themselves, the same on every route. */
const EDGE: EdgeAnswer[] = edgeAnswers(correlationId);
/** Every errorCode: the function's (the table's order), then those only the edge answers. */
const ALL_ERROR_CODES: string[] = [...new Set<string>([...ERROR_CODES, ...EDGE.map((answer) => answer.errorCode)])];

const SOURCE = { gateway: 'API Gateway', waf: 'the WAF (prod)' } as const;
/** An example's name when the function's has the same errorCode. */
const SOURCE_NAME = { gateway: 'API Gateway', waf: 'WAF' } as const;
const codeList = (answers: EdgeAnswer[]) => [...new Set(answers.map((answer) => answer.errorCode))].join(', ');
const statusOrder = (status: string) => (status === '5XX' ? 599.5 : Number(status));

/** The edge's answers a response of this status may be: DEFAULT_5XX keeps whatever 5xx status it had, 500 included. */
const edgeAt = (status: string) => EDGE.filter((answer) => answer.status === status || (status === '500' && answer.status === '5XX'));

function header(description: string, schema: Record<string, unknown>, required: boolean) {
  return { description, required, schema };
}

const uuidHeaderSchema = { type: 'string', format: 'uuid', maxLength: UUID_LENGTH };

/** X-Correlation-Id of an answer of this status: who can make it decides what it holds, and whether it is there at all. */
function correlationHeader(fromFunction: boolean, edge: EdgeAnswer[]) {
  const gateway = edge.filter((answer) => answer.source === 'gateway');
  const waf = edge.filter((answer) => answer.source === 'waf');
  for (const answer of edge) {
    const carries = 'X-Correlation-Id' in answer.headers;
    if (carries !== (answer.source === 'gateway')) throw new Error(`${answer.name}: X-Correlation-Id is not as this builder describes it`);
  }
  const words = [
    ...(fromFunction ? ["From the function: the client's X-Correlation-Id when it sent a UUID, else a new UUID."] : []),
    ...(gateway.length > 0 ? [`From API Gateway itself (${codeList(gateway)}): its own request id, whatever the client sent.`] : []),
    ...(waf.length > 0 ? [`None on the WAF's own answers (${codeList(waf)}, prod), whose correlationId is empty.`] : []),
    waf.length > 0 ? "Where present, the same as the body's correlationId." : "The same as the body's correlationId.",
  ];
  return header(words.join(' '), uuidHeaderSchema, waf.length === 0);
}

/** The value each of the edge's answers gives a header they all carry (else the description would be wrong). */
function edgeValues(name: string, edge: EdgeAnswer[]): string[] {
  return [
    ...new Set(
      edge.map((answer) => {
        const value = answer.headers[name];
        if (value === undefined) throw new Error(`${answer.name} answers ${answer.status} without ${name}`);
        return `${value} from ${SOURCE[answer.source]}`;
      }),
    ),
  ];
}

function errorResponses(operation: Operation): Record<string, unknown> {
  const functionStatuses = operation.codes.map((code) => String(OUTCOMES[code].status));
  const statuses = [...new Set([...functionStatuses, ...EDGE.map((answer) => answer.status)])].sort(
    (a, b) => statusOrder(a) - statusOrder(b),
  );
  return Object.fromEntries(
    statuses.map((status): [string, unknown] => {
      const codes = operation.codes.filter((code) => String(OUTCOMES[code].status) === status);
      const edge = edgeAt(status);
      const examples: Record<string, unknown> = {};
      for (const errorCode of codes) {
        examples[errorCode] = {
          value: {
            errorCode,
            message: en.error(errorCode, {
              requestNumber: 'TR-7KQM-X2PF',
              nextRequestAllowedAt: LIMIT_EXAMPLE_TIME,
              timeZone: DEFAULT_BUSINESS_TIME_ZONE,
            }),
            correlationId,
            details: (operation.examples?.[errorCode] ?? ERROR_EXAMPLES[errorCode] ?? []).map((problem) => ({
              field: problem.field,
              reason: en.problem(problem),
            })),
            ...(errorCode === 'REQUEST_LIMIT_REACHED' ? { nextRequestAllowedAt: LIMIT_EXAMPLE_TIME } : {}),
          },
        };
      }
      const shown = new Set<string>();
      for (const answer of edge) {
        const body = JSON.stringify(answer.body);
        if (shown.has(body)) continue;
        shown.add(body);
        const name = answer.errorCode in examples ? `${answer.errorCode} (${SOURCE_NAME[answer.source]})` : answer.errorCode;
        examples[name] = { summary: `from ${SOURCE[answer.source]}`, value: answer.body };
      }
      const headers: Record<string, unknown> = {
        'X-Correlation-Id': correlationHeader(codes.length > 0, edge),
        'Access-Control-Allow-Origin': { $ref: '#/components/headers/Access-Control-Allow-Origin' },
      };
      if (status === '503' || status === '429') {
        const given = [
          ...(codes.includes('SERVICE_UNAVAILABLE') ? ['1 from the function (RETRY_AFTER_SECONDS)'] : []),
          ...edgeValues('Retry-After', edge),
        ];
        // Headers arrive as text: Retry-After is whole seconds written in digits.
        headers['Retry-After'] = header(
          `Seconds to wait before retrying: ${given.join(', ')}.`,
          { type: 'string', pattern: '^[1-9][0-9]*$', maxLength: 5 },
          true,
        );
      }
      if (status === '401') {
        edgeValues('WWW-Authenticate', edge);
        headers['WWW-Authenticate'] = header('Bearer, on every 401.', { type: 'string', enum: ['Bearer'] }, true);
      }
      const description = operation.texts[status] ?? STATUS_TEXT[status];
      if (description === undefined) throw new Error(`No description of ${status} for an operation answering ${codes.join(', ')}`);
      const schema = ref(`${operation.name}ErrorBody`);
      return [status, { description, headers, content: { 'application/json': { schema, examples } } }];
    }),
  );
}

/** Each operation's own errorCodes and its error body, declared once in components. */
function operationErrorSchemas(): Record<string, unknown> {
  return Object.fromEntries(
    Object.values(OPERATIONS).flatMap((operation: Operation): [string, unknown][] => {
      const codes = ALL_ERROR_CODES.filter(
        (code) => operation.codes.some((own) => own === code) || EDGE.some((answer) => answer.errorCode === code),
      );
      return [
        [
          `${operation.name}ErrorCode`,
          {
            type: 'string',
            enum: codes,
            description: `The errorCodes this operation answers with: its function's, and those API Gateway and the WAF answer themselves.`,
          },
        ],
        [
          `${operation.name}ErrorBody`,
          {
            description: `An error answer of this operation: ErrorBody with one of ${operation.name}ErrorCode.`,
            allOf: [
              ref('ErrorBody'),
              { type: 'object', required: ['errorCode'], properties: { errorCode: ref(`${operation.name}ErrorCode`) } },
            ],
          },
        ],
      ];
    }),
  );
}

/** The business date rule in words, with an instant near midnight to show the zone matters. */
function desiredDateDescription(): string {
  const instant = new Date('2026-11-21T22:30:00Z');
  const today = businessToday(DEFAULT_BUSINESS_TIME_ZONE, instant);
  return `A real date, YYYY-MM-DD, not before today in the bank's business time zone (${DEFAULT_BUSINESS_TIME_ZONE}), today allowed; an earlier one is 400 VALIDATION_ERROR, a date after the contract's end 422 TERMINATION_DATE_AFTER_CONTRACT_END. Today is the date there, not in UTC or on the device: at ${instant.toISOString()} (still the 21st in UTC) the earliest date is ${today}.`;
}

/** A lib schema, published, with some of its properties replaced by the description's own (in their places). */
function publishWith(schema: object, named: Record<string, Record<string, unknown>>, properties: Record<string, unknown>) {
  const published = publishObject(schema, named);
  const own = isObject(published['properties']) ? published['properties'] : {};
  return { ...published, properties: { ...own, ...properties } };
}

function componentSchemas(): Record<string, unknown> {
  const named: Record<string, Record<string, unknown>> = {};
  const input = terminationRequestInputSchema.properties;
  const reasons = terminationReasonListSchema.properties.items;
  const details = errorBodySchema.properties.details;
  const { submitted, timeline } = terminationRequestDetailsSchema.properties;
  const schemas: Record<string, unknown> = {
    TerminationRequestInput: publishWith(terminationRequestInputSchema, named, {
      desiredTerminationDate: {
        ...publishObject(input.desiredTerminationDate, named),
        description: desiredDateDescription(),
        examples: ['2030-06-30'],
      },
      bankDetails: ref('BankDetails'),
    }),
    BankDetails: publishWith(input.bankDetails, named, {
      accountNumber: {
        ...publishObject(input.bankDetails.properties.accountNumber, named),
        description: `${ACCOUNT_DIGITS} digits whose control key matches the BIK, by the Bank of Russia's rule (weights 7, 1, 3 over the BIK's last three digits and the account): a mismatch is 422 BANK_ACCOUNT_KEY_MISMATCH.`,
      },
    }),
    TerminationRequest: publish(terminationRequestSchema, named),
    TerminationRequestList: publishWith(terminationRequestListSchema, named, {
      items: { type: 'array', maxItems: MAX_PAGE_SIZE, items: ref('TerminationRequest') },
      nextCursor: { ...terminationRequestListSchema.properties.nextCursor, maxLength: MAX_CURSOR_LENGTH, pattern: '^[A-Za-z0-9_-]+$' },
      nextRequestAllowedAt: {
        ...terminationRequestListSchema.properties.nextRequestAllowedAt,
        // An ISO 8601 time in UTC with milliseconds, as toISOString() writes it.
        maxLength: 24,
        description:
          'On the first page only, and only while the caller has made as many requests on the contract as the limit allows: the time (ISO 8601, UTC) from which a new request is possible, as a create refused with REQUEST_LIMIT_REACHED would say. Absent when a new request is possible now. Added to v1 without a new version: clients ignore fields they do not know.',
        examples: [LIMIT_EXAMPLE_TIME],
      },
    }),
    TerminationRequestDetails: publishWith(terminationRequestDetailsSchema, named, {
      submitted: ref('SubmittedRequest'),
      timeline: { ...publishObject(timeline, named), items: ref('TimelineEntry') },
    }),
    SubmittedRequest: publishWith(submitted, named, { bankDetails: ref('SubmittedBankDetails') }),
    SubmittedBankDetails: publish(submitted.properties.bankDetails, named),
    TimelineEntry: publish(timeline.items, named),
    CustomerTerminationRequestList: publishWith(customerTerminationRequestListSchema, named, {
      items: { type: 'array', maxItems: MAX_PAGE_SIZE, items: ref('CustomerTerminationRequest') },
      nextCursor: {
        ...customerTerminationRequestListSchema.properties.nextCursor,
        maxLength: MAX_CURSOR_LENGTH,
        pattern: '^[A-Za-z0-9_-]+$',
      },
    }),
    CustomerTerminationRequest: publish(customerTerminationRequestListSchema.properties.items.items, named),
    // Its one status value gets a name of its own: code generators would call it Status.
    Withdrawal: publishWith(withdrawalSchema, named, {
      status: { title: 'WithdrawalStatus', ...publishObject(withdrawalSchema.properties.status, named) },
    }),
    TerminationReasonList: publishWith(terminationReasonListSchema, named, { items: { ...reasons, items: ref('TerminationReason') } }),
    TerminationReason: publish(reasons.items, named),
    ErrorBody: publishWith(errorBodySchema, named, {
      errorCode: ref('ErrorCode'),
      correlationId: {
        ...errorBodySchema.properties.correlationId,
        maxLength: UUID_LENGTH,
        description:
          "The answer's X-Correlation-Id (a UUID): quote it to support. Empty on the WAF's own answers (prod), which carry no id.",
      },
      details: { ...details, maxItems: MAX_DETAILS, items: ref('ErrorDetail') },
    }),
    ErrorDetail: publish(details.items, named),
    ErrorCode: {
      type: 'string',
      enum: ALL_ERROR_CODES,
      description:
        "Every errorCode the API answers with, API Gateway's and the WAF's own included; each operation answers with those of its own list (CreateErrorCode, ...). The status follows from the code (docs/decisions/0011-error-body.md).",
    },
    ...operationErrorSchemas(),
  };
  // The enums named by their first use above, in the order they were met.
  return { ...schemas, ...named };
}

export function buildOpenApi(): Record<string, unknown> {
  const created = {
    requestId,
    requestNumber: 'TR-7KQM-X2PF',
    status: STATUS_SUBMITTED,
    createdAt: '2026-11-21T09:30:00.000Z',
    message: en.created('TR-7KQM-X2PF'),
  };
  // A request the back office has decided on: its status, its words, and the message for both.
  const decided = { status: 'REJECTED', requestNumber: 'TR-7KQM-X2PF', statusReason: 'The contract has an unpaid balance.' } as const;
  const read = { ...created, ...decided, message: en.requestStatus(decided) };
  const uuidPath = (name: string) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid', maxLength: UUID_LENGTH },
  });
  const contractIdParameter = uuidPath('contractId');
  const pageLimit = {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Requests per page, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when absent.`,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  };
  const pageCursor = (description: string) => ({
    name: 'cursor',
    in: 'query',
    required: false,
    description,
    schema: { type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH, pattern: '^[A-Za-z0-9_-]+$' },
  });
  const commonHeaders = [{ $ref: '#/components/parameters/X-Correlation-Id' }, { $ref: '#/components/parameters/Accept-Language' }];
  const idempotencyKey = (scope: string) => ({
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    description: `UUID; scoped to the customer${scope}; kept 24 h. One per user action, the same on every retry of it; used for another call: 422 IDEMPOTENCY_KEY_REUSED. Missing: 400 IDEMPOTENCY_KEY_MISSING.`,
    schema: uuidHeaderSchema,
  });
  const successHeaders = {
    'X-Correlation-Id': { $ref: '#/components/headers/X-Correlation-Id' },
    'Access-Control-Allow-Origin': { $ref: '#/components/headers/Access-Control-Allow-Origin' },
  };
  const createdHeaders = { ...successHeaders, Location: { $ref: '#/components/headers/Location' } };
  const replayedHeader = (description: string, required: boolean) => header(description, { type: 'string', enum: ['true'] }, required);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Contract early-termination requests',
      version: '1.0.0',
      description:
        'Customers ask to terminate a contract ahead of its term. The rules behind each answer are the decision records in docs/decisions/ of the service repository; docs/clients.md is the guide for client teams. ' +
        "Within v1 the service may add optional fields to answers, values to its enums (error codes, statuses, reasons) and routes, and never removes or changes what is here: the schemas describe today's answers exactly, and a client must ignore a field it does not know and handle a value it does not know in a default branch (docs/decisions/0001-api-contract-and-versioning.md).",
      contact: { name: 'Contract termination service team' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    tags: [{ name: 'termination-requests', description: "A customer's requests to terminate a contract early." }],
    // Deployed stages only: a generated client takes the first as its default. The stage's REST API
    // id is known once it is deployed, so it is the one value a team sets (docs/clients.md).
    servers: ['prod', 'dev'].map((stage) => ({
      url: `https://{restApiId}.execute-api.eu-central-1.amazonaws.com/${stage}`,
      description:
        stage === 'prod'
          ? "production: the prod stage. Set restApiId, the first part of the URL `npm run deploy -- --stage prod` prints; behind the bank's own domain, that domain's URL is the server."
          : 'development and test: the dev stage. Set restApiId as for production.',
      'x-internal': false,
      variables: {
        restApiId: {
          // A host that does not exist: a client that keeps it fails on its first call, naming what to set.
          default: 'set-rest-api-id',
          description: "The stage's REST API id (e.g. a1b2c3d4e5), the first label of its execute-api host.",
        },
      },
    })),
    security: [{ bearerAuth: [] }],
    paths: {
      [API_PATH]: {
        post: {
          operationId: 'createTerminationRequest',
          summary: 'Ask to terminate a contract early',
          description:
            'Creates the request once, however often it is sent: reuse one Idempotency-Key for every retry of one user action. A replay answers 200 with the first answer, byte for byte, and Idempotent-Replayed: true.',
          tags: ['termination-requests'],
          parameters: [contractIdParameter, idempotencyKey(''), ...commonHeaders],
          requestBody: {
            required: true,
            description: `JSON in UTF-8 (Content-Type: application/json, a charset if any utf-8), at most ${MAX_BODY_BYTES} bytes; no field but these, and never customerId, which the token gives.`,
            content: {
              'application/json': {
                schema: ref('TerminationRequestInput'),
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
              headers: createdHeaders,
              content: { 'application/json': { schema: ref('TerminationRequest'), example: created } },
            },
            '200': {
              description: 'The same call again: the earlier request, byte for byte. Treat it as the same success as the 201.',
              headers: { ...createdHeaders, 'Idempotent-Replayed': replayedHeader('true: this answers a call made before.', true) },
              content: { 'application/json': { schema: ref('TerminationRequest'), example: created } },
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
            pageLimit,
            pageCursor(
              "The nextCursor of the previous page of this contract's list, as it came; a cursor of another contract's list is 400 VALIDATION_ERROR (cursor).",
            ),
            ...commonHeaders,
          ],
          responses: {
            '200': {
              description: 'One page of requests; nextCursor is present when there are more.',
              headers: successHeaders,
              content: {
                'application/json': {
                  schema: ref('TerminationRequestList'),
                  example: { items: [read], nextCursor: encodeCursor(exampleContractId, requestId) },
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
          parameters: [contractIdParameter, uuidPath('requestId'), ...commonHeaders],
          responses: {
            '200': {
              description: 'The request and a message for its current status.',
              headers: successHeaders,
              content: { 'application/json': { schema: ref('TerminationRequest'), example: read } },
            },
            ...errorResponses(OPERATIONS.get),
          },
        },
      },
      [`${API_PATH}/{requestId}/details`]: {
        get: {
          operationId: 'getTerminationRequestDetails',
          summary: 'One termination request with what the customer submitted and every status it reached',
          description:
            "For the customer who made the request: the GET's answer, what they submitted (the account number only by its last 4 digits: the full number is never shown again) and its timeline, each status with its time and, where the bank gave one, its reason. A request made by someone else is as if it did not exist, as for the GET (docs/decisions/0022-what-a-customer-sees-of-a-request.md).",
          tags: ['termination-requests'],
          parameters: [contractIdParameter, uuidPath('requestId'), ...commonHeaders],
          responses: {
            '200': {
              description: 'The request, what was submitted and its timeline, oldest first.',
              headers: successHeaders,
              content: {
                'application/json': {
                  schema: ref('TerminationRequestDetails'),
                  example: {
                    request: read,
                    submitted: {
                      reasonCode: 'RELOCATION',
                      desiredTerminationDate: '2030-06-30',
                      bankDetails: { bik: '044525225', accountNumberLast4: '0001', recipientName: 'Anna Ivanova' },
                      comment: 'Moving abroad',
                    },
                    timeline: [
                      { status: created.status, at: created.createdAt },
                      { status: 'IN_REVIEW', at: '2026-11-22T08:00:00.000Z' },
                      { status: 'REJECTED', at: '2026-11-23T14:10:00.000Z', reason: decided.statusReason },
                    ],
                  },
                },
              },
            },
            ...errorResponses(OPERATIONS.details),
          },
        },
      },
      '/api/v1/termination-requests': {
        get: {
          operationId: 'listCustomerTerminationRequests',
          summary: "The caller's termination requests on every contract, newest first",
          description:
            "Every request the caller made, whichever contract it is on, a page at a time; follow nextCursor for the next page. A contract's earlier or later owner's requests never show. Read from an index that follows the requests within about a second: a request made a moment ago may show a moment later (docs/decisions/0023-a-customers-requests-by-index.md).",
          tags: ['termination-requests'],
          parameters: [pageLimit, pageCursor('The nextCursor of the previous page, as it came.'), ...commonHeaders],
          responses: {
            '200': {
              description: 'One page of requests, each with its contract; nextCursor is present when there are more.',
              headers: successHeaders,
              content: {
                'application/json': {
                  schema: ref('CustomerTerminationRequestList'),
                  example: {
                    items: [{ contractId: exampleContractId, request: read }],
                    nextCursor: encodeCursor(exampleContractId, requestId),
                  },
                },
              },
            },
            ...errorResponses(OPERATIONS.customerList),
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
              headers: successHeaders,
              content: {
                'application/json': {
                  schema: ref('TerminationReasonList'),
                  example: {
                    items: REASON_CODES.map((reasonCode) => ({
                      reasonCode,
                      label: en.reasons[reasonCode],
                      commentRequired: needsComment(reasonCode),
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
          description: `The customer withdraws their own request while it is ${inWords(WITHDRAWABLE_STATUSES, 'or')}: it becomes WITHDRAWN, final, and the contract may take a new request. No body: a call with one, even {}, answers 400 MALFORMED_REQUEST. Reuse one Idempotency-Key for every retry of one user action: a replay answers 200 with the first answer, byte for byte. A request that is ${inWords(NOT_WITHDRAWABLE, 'or')} answers 409 REQUEST_NOT_WITHDRAWABLE with its status in details.`,
          tags: ['termination-requests'],
          parameters: [contractIdParameter, uuidPath('requestId'), idempotencyKey(' and to withdrawals'), ...commonHeaders],
          responses: {
            '200': {
              description: 'Withdrawn (or the replay of the same withdrawal, with Idempotent-Replayed: true).',
              headers: { ...successHeaders, 'Idempotent-Replayed': replayedHeader('true on a replay; absent otherwise.', false) },
              content: {
                'application/json': {
                  schema: ref('Withdrawal'),
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
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "The customer's access token, a JWT checked by the API's authorizer as RFC8725 (JSON Web Token Best Current Practices) asks: RS256 only, the key by its kid from the issuer's JWKS, iss, aud (or client_id), exp and iat required, at most 24 h of lifetime, no ID tokens (docs/decisions/0003-authentication.md).",
        },
      },
      parameters: {
        'X-Correlation-Id': {
          name: 'X-Correlation-Id',
          in: 'header',
          required: false,
          description:
            'A UUID naming the user action, the same on each of its retries; the answer carries it back. Not a UUID: 400 VALIDATION_ERROR.',
          schema: uuidHeaderSchema,
        },
        'Accept-Language': {
          name: 'Accept-Language',
          in: 'header',
          required: false,
          description: `ru for Russian texts; English otherwise. At most ${MAX_ACCEPT_LANGUAGE_LENGTH} characters (longer: 400 VALIDATION_ERROR).`,
          schema: { type: 'string', maxLength: MAX_ACCEPT_LANGUAGE_LENGTH },
        },
      },
      headers: {
        'X-Correlation-Id': header(
          "The client's X-Correlation-Id when it sent a UUID, else a new UUID (on an error, the body's correlationId).",
          uuidHeaderSchema,
          true,
        ),
        Location: header(
          'Where the request lives: the path of its GET, with the stage in front on an execute-api URL (/prod/api/...); resolve it against the base URL.',
          { type: 'string', examples: [`/api/v1/contracts/a1a1a1a1-0000-4000-8000-000000000001/termination-requests/${requestId}`] },
          true,
        ),
        'Access-Control-Allow-Origin': header(
          "For browsers: the call's Origin when it is one of the stage's allowed origins, on the function's answers; * on the answers API Gateway and the WAF make themselves, which hold no customer data. Absent otherwise (docs/decisions/0016-browsers.md).",
          { type: 'string' },
          false,
        ),
      },
      schemas: componentSchemas(),
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
