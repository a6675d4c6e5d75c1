import { MAX_LIMIT_COUNT } from './termination/request-limit';
import type { RetentionRule } from './termination/retention';

/*
 * The one place that reads environment variables. Each function loads what it needs at cold
 * start; a missing or malformed value throws at once, naming every problem, so a misconfigured
 * deployment fails its first invocation loudly instead of answering wrongly.
 */

type Env = Record<string, string | undefined>;

/** The names of this machine in a URL (`URL.hostname`): where plain HTTP may be trusted, for the local stack only. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for a plain-HTTP URL on loopback: the local stack's JWKS, never a deployed one. */
export function isLoopbackHttp(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Where "today" is decided when BUSINESS_TIME_ZONE is unset (the API description says it too). */
export const DEFAULT_BUSINESS_TIME_ZONE = 'Europe/Moscow';

/** `localhost:3007` parses as a URL of scheme `localhost:`: only http and https are endpoints. */
const isHttpUrl = (value: string) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback?: string): string {
    const value = this.env[name]?.trim();
    if (value) return value;
    if (fallback !== undefined) return fallback;
    this.problems.push(`${name} is required`);
    return '';
  }

  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = values.find((v) => v === raw);
    if (value === undefined) this.problems.push(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return value ?? fallback;
  }

  /** An AWS account id: twelve digits. */
  accountId(name: string): string {
    const value = this.string(name);
    if (value && !/^\d{12}$/.test(value)) this.problems.push(`${name} must be an AWS account id (12 digits), got "${value}"`);
    return value;
  }

  url(name: string, fallback?: string): string {
    const value = this.string(name, fallback);
    if (value && !isHttpUrl(value)) this.problems.push(`${name} must be a URL, got "${value}"`);
    return value;
  }

  /** HTTPS, or plain HTTP on loopback for the local stack only. */
  jwksUri(name: string): string {
    const value = this.url(name);
    if (value && URL.canParse(value) && new URL(value).protocol !== 'https:' && !isLoopbackHttp(value))
      this.problems.push(`${name} must be an https URL, got "${value}"`);
    return value;
  }

  /** Comma-separated origins (scheme://host[:port]), each exactly as a browser sends it. */
  origins(name: string): string[] {
    const raw = this.optional(name);
    if (raw === undefined) return [];
    const origins = raw
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== '');
    for (const origin of origins) {
      if (!URL.canParse(origin) || new URL(origin).origin !== origin)
        this.problems.push(`${name} must list origins like https://lk.bank.example, got "${origin}"`);
    }
    return origins;
  }

  timeZone(name: string, fallback: string): string {
    const value = this.string(name, fallback);
    // The default is checked by tests/unit/config.test.ts, not at every cold start: Intl's list
    // costs ~3 ms of one (docs/performance.md), the first Intl formatter of a process ~20 ms.
    if (value === fallback || Intl.supportedValuesOf('timeZone').includes(value)) return value;
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
    } catch {
      this.problems.push(`${name} must be an IANA time zone, got "${value}"`);
    }
    return value;
  }

  done<T>(config: T): T {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
    return config;
  }
}

export interface DynamoDbConfig {
  region: string;
  /** Set only for DynamoDB Local; in AWS the SDK finds the regional endpoint. */
  endpoint: string | undefined;
  /** Per-attempt socket timeout; with maxAttempts it bounds how long one call can take. */
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  maxAttempts: number;
}

/**
 * How long a final request is kept (docs/decisions/0024-retention-by-calendar-year.md): to the end
 * of the calendar year it became final in, in the business time zone, plus REQUEST_RETENTION_YEARS
 * whole years; or, on a test stage that sets REQUEST_RETENTION_DAYS, that many days from the moment
 * it became final (packaging refuses that, and fewer years than the law's, on prod:
 * scripts/serverless/stage-settings.cjs).
 */
function readRetention(read: Reader, businessTimeZone: string): RetentionRule {
  const years = read.integer('REQUEST_RETENTION_YEARS', 5, 1, 100);
  const days = read.optional('REQUEST_RETENTION_DAYS') === undefined ? undefined : read.integer('REQUEST_RETENTION_DAYS', 1, 1, 36_525);
  if (days !== undefined) return { kind: 'days', days };
  return { kind: 'calendar-years', years, timeZone: businessTimeZone };
}

export interface ServiceConfig {
  requestsTableName: string;
  contractsTableName: string;
  idempotencyTtlSeconds: number;
  /** How long a request made final is kept (the withdrawal makes one). */
  retention: RetentionRule;
  businessTimeZone: string;
  /** How long one invocation's DynamoDB work (retries included) may take before it answers 503. */
  budgetMs: number;
  retryAfterSeconds: number;
  /** Browser origins that may read the answers (CORS). */
  allowedOrigins: string[];
  dynamodb: DynamoDbConfig;
  /**
   * How many requests one customer may make on one contract within how many days
   * (docs/decisions/0020-request-limit.md): the create holds to it, the list says when the next is possible.
   */
  requestLimit: { count: number; periodDays: number };
}

/**
 * How a token proves it is an access token, not an ID token (docs/decisions/0003-authentication.md):
 * `token_use` is `access` (Cognito), the header's `typ` is `at+jwt` (RFC 9068), or its `scope`
 * holds JWT_REQUIRED_SCOPE (a provider that marks neither; ID tokens carry no scope).
 */
export const ACCESS_TOKEN_PROOFS = ['token_use', 'at+jwt', 'scope'] as const;
export type AccessTokenProof = (typeof ACCESS_TOKEN_PROOFS)[number];

/** A scope token as RFC 6749 writes them: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,256}$/;

/** Where a signer's public keys are, and how they are cached: customer tokens and decisions alike. */
export interface JwksSettings {
  jwksUri: string;
  /** How long a fetched JWKS is trusted before it is fetched again. */
  jwksTtlSeconds: number;
  /**
   * An unknown `kid` makes the JWKS be fetched again only when the last fetch began at least this
   * long ago; sooner, the token is refused at once from the JWKS in hand.
   */
  jwksMinRefetchSeconds: number;
  /** How far ahead of ours the signer's clock may run (`iat`). */
  clockSkewSeconds: number;
}

/** The JWKS at `uriName`, cached as JWKS_TTL_SECONDS and JWKS_MIN_REFETCH_SECONDS say, with JWT_CLOCK_SKEW_SECONDS. */
function readJwksSettings(read: Reader, uriName: string): JwksSettings {
  return {
    jwksUri: read.jwksUri(uriName),
    jwksTtlSeconds: read.integer('JWKS_TTL_SECONDS', 300, 10, 900),
    jwksMinRefetchSeconds: read.integer('JWKS_MIN_REFETCH_SECONDS', 30, 1, 300),
    clockSkewSeconds: read.integer('JWT_CLOCK_SKEW_SECONDS', 30, 0, 300),
  };
}

export interface AuthConfig extends JwksSettings {
  issuer: string;
  audience: string;
  accessTokenProof: AccessTokenProof;
  /** A scope every token's `scope` must hold: required with the `scope` proof, optional with the others. */
  requiredScope: string | undefined;
  customerIdClaim: string;
  /** Longest accepted token lifetime (exp - iat). */
  maxTokenLifetimeSeconds: number;
  /** Longest token accepted, in bytes (a JWT is ASCII); a longer one is refused unread. */
  maxTokenBytes: number;
  /** API Gateway's authorizer result cache TTL: the same number as in serverless.yml. */
  cacheTtlSeconds: number;
}

function readDynamoDb(read: Reader): DynamoDbConfig {
  const endpoint = read.optional('DYNAMODB_ENDPOINT');
  if (endpoint !== undefined && !isHttpUrl(endpoint)) read.problems.push(`DYNAMODB_ENDPOINT must be a URL, got "${endpoint}"`);
  return {
    region: read.string('AWS_REGION', 'eu-central-1'),
    endpoint,
    requestTimeoutMs: read.integer('DYNAMODB_REQUEST_TIMEOUT_MS', 2000, 100, 20000),
    connectTimeoutMs: read.integer('DYNAMODB_CONNECT_TIMEOUT_MS', 1000, 50, 10000),
    maxAttempts: read.integer('DYNAMODB_MAX_ATTEMPTS', 3, 1, 10),
  };
}

const readRequestLimit = (read: Reader) => ({
  count: read.integer('REQUEST_LIMIT_COUNT', 5, 1, MAX_LIMIT_COUNT),
  periodDays: read.integer('REQUEST_LIMIT_DAYS', 30, 1, 365),
});

const readBusinessTimeZone = (read: Reader): string => read.timeZone('BUSINESS_TIME_ZONE', DEFAULT_BUSINESS_TIME_ZONE);

function readService(read: Reader): ServiceConfig {
  const businessTimeZone = readBusinessTimeZone(read);
  return {
    requestsTableName: read.string('REQUESTS_TABLE_NAME'),
    contractsTableName: read.string('CONTRACTS_TABLE_NAME'),
    idempotencyTtlSeconds: read.integer('IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 30) * 3600,
    retention: readRetention(read, businessTimeZone),
    businessTimeZone,
    budgetMs: read.integer('DYNAMODB_BUDGET_MS', 6000, 100, 25000),
    retryAfterSeconds: read.integer('RETRY_AFTER_SECONDS', 1, 1, 3600),
    allowedOrigins: read.origins('ALLOWED_ORIGINS'),
    dynamodb: readDynamoDb(read),
    requestLimit: readRequestLimit(read),
  };
}

export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  const read = new Reader(env);
  return read.done(readService(read));
}

/** The create's settings besides the service's: the documents table it checks. */
export interface CreateConfig extends ServiceConfig {
  documentsTableName: string;
}

export function loadCreateConfig(env: Env = process.env): CreateConfig {
  const read = new Reader(env);
  return read.done({
    ...readService(read),
    documentsTableName: read.string('DOCUMENTS_TABLE_NAME'),
  });
}

/** What a route that reads no table needs: how it answers browsers and a 503. */
export interface EdgeConfig {
  retryAfterSeconds: number;
  allowedOrigins: string[];
}

export function loadEdgeConfig(env: Env = process.env): EdgeConfig {
  const read = new Reader(env);
  return read.done({
    retryAfterSeconds: read.integer('RETRY_AFTER_SECONDS', 1, 1, 3600),
    allowedOrigins: read.origins('ALLOWED_ORIGINS'),
  });
}

export function loadAuthConfig(env: Env = process.env): AuthConfig {
  const read = new Reader(env);
  const config = {
    issuer: read.string('JWT_ISSUER'),
    audience: read.string('JWT_AUDIENCE'),
    accessTokenProof: read.oneOf('JWT_ACCESS_TOKEN_PROOF', ACCESS_TOKEN_PROOFS, 'token_use'),
    requiredScope: read.optional('JWT_REQUIRED_SCOPE'),
    ...readJwksSettings(read, 'JWKS_URI'),
    customerIdClaim: read.string('CUSTOMER_ID_CLAIM', 'sub'),
    maxTokenLifetimeSeconds: read.integer('JWT_MAX_LIFETIME_SECONDS', 86_400, 60, 7 * 86_400),
    // API Gateway takes at most 10,240 bytes of request line and headers together.
    maxTokenBytes: read.integer('JWT_MAX_BYTES', 8192, 1024, 10_240),
    // API Gateway's own bounds for the authorizer result cache: 0 to 3600 s.
    cacheTtlSeconds: read.integer('AUTHORIZER_CACHE_TTL_SECONDS', 60, 0, 3600),
  };
  if (config.accessTokenProof === 'scope' && config.requiredScope === undefined)
    read.problems.push('JWT_REQUIRED_SCOPE is required when JWT_ACCESS_TOKEN_PROOF is scope');
  if (config.requiredScope !== undefined && !SCOPE_TOKEN.test(config.requiredScope))
    read.problems.push(`JWT_REQUIRED_SCOPE must be one scope (printable ASCII, no space), got "${config.requiredScope}"`);
  // A token with less life left than the cache keeps an answer is refused: no token could pass.
  if (config.cacheTtlSeconds >= config.maxTokenLifetimeSeconds) {
    read.problems.push(
      `AUTHORIZER_CACHE_TTL_SECONDS (${config.cacheTtlSeconds}) must be below JWT_MAX_LIFETIME_SECONDS (${config.maxTokenLifetimeSeconds})`,
    );
  }
  return read.done(config);
}

/** Another AWS service's client: the region, and an endpoint only for the local stand-in. */
export interface AwsServiceConfig {
  region: string;
  endpoint: string | undefined;
}

function readAwsService(read: Reader, endpointName: string): AwsServiceConfig {
  const endpoint = read.optional(endpointName);
  if (endpoint !== undefined && !isHttpUrl(endpoint)) read.problems.push(`${endpointName} must be a URL, got "${endpoint}"`);
  return { region: read.string('AWS_REGION', 'eu-central-1'), endpoint };
}

/** The back office's source, unless DECISION_SOURCE names another. */
const DEFAULT_DECISION_SOURCE = 'bank.back-office';

export interface DecisionConfig {
  requestsTableName: string;
  dynamodb: DynamoDbConfig;
  /** How long a request a final decision made final is kept. */
  retention: RetentionRule;
  /** Only events of this source and detail-type, from this account, are decisions (docs/events.md). */
  decisionSource: string;
  decisionDetailType: string;
  decisionAccountId: string;
  /**
   * The back office's public keys (DECISION_JWKS_URI), which every decision's signature must
   * verify against, whatever path brought it (docs/decisions/0017-lifecycle.md). No switch turns
   * the check off.
   */
  signatures: JwksSettings;
  /** Where a decision that can never apply goes, with the reason. */
  deadLetterQueueUrl: string;
  sqs: AwsServiceConfig;
}

export function loadDecisionConfig(env: Env = process.env): DecisionConfig {
  const read = new Reader(env);
  return read.done({
    requestsTableName: read.string('REQUESTS_TABLE_NAME'),
    dynamodb: readDynamoDb(read),
    retention: readRetention(read, readBusinessTimeZone(read)),
    decisionSource: read.string('DECISION_SOURCE', DEFAULT_DECISION_SOURCE),
    decisionDetailType: read.string('DECISION_DETAIL_TYPE', 'TerminationRequestStatusChanged'),
    decisionAccountId: read.accountId('DECISION_ACCOUNT_ID'),
    signatures: readJwksSettings(read, 'DECISION_JWKS_URI'),
    deadLetterQueueUrl: read.url('DECISION_DEAD_LETTER_QUEUE_URL'),
    sqs: readAwsService(read, 'SQS_ENDPOINT'),
  });
}

export interface PublisherConfig {
  /** The table every event is checked against before it is published. */
  requestsTableName: string;
  /** The tables whose streams the publisher consumes: a redrive may name only one of their streams. */
  streamTables: string[];
  /** The erasure ledger, whose stream the publisher also reads and against which it checks each erasure's event. */
  erasureLedgerTableName: string;
  dynamodb: DynamoDbConfig;
  eventBusName: string;
  /** The source of the events the service publishes; never the back office's. */
  eventSource: string;
  eventBridge: AwsServiceConfig;
  /** Attempts per batch for PutEvents entries that keep failing, and for request reads DynamoDB leaves unprocessed, before the records are handed back. */
  maxAttempts: number;
  /** The stage's asymmetric KMS key that signs every event (its id or ARN, never an alias: the id is the signatures' kid). */
  signingKeyId: string;
  kms: AwsServiceConfig;
}

export function loadPublisherConfig(env: Env = process.env): PublisherConfig {
  const read = new Reader(env);
  const requestsTableName = read.string('REQUESTS_TABLE_NAME');
  const erasureLedgerTableName = read.string('ERASURE_LEDGER_TABLE_NAME');
  const config = {
    requestsTableName,
    erasureLedgerTableName,
    streamTables: [requestsTableName, erasureLedgerTableName],
    dynamodb: readDynamoDb(read),
    eventBusName: read.string('EVENT_BUS_NAME'),
    eventSource: read.string('EVENT_SOURCE', 'bank.contract-termination'),
    eventBridge: readAwsService(read, 'EVENTBRIDGE_ENDPOINT'),
    maxAttempts: read.integer('PUBLISH_MAX_ATTEMPTS', 3, 1, 10),
    signingKeyId: read.string('EVENT_SIGNING_KEY_ID'),
    kms: readAwsService(read, 'KMS_ENDPOINT'),
  };
  if (config.signingKeyId.includes('alias/')) read.problems.push('EVENT_SIGNING_KEY_ID must name the key itself, not an alias');
  // A consumer of decisions must never take the service's own events for the back office's.
  if (config.eventSource === read.string('DECISION_SOURCE', DEFAULT_DECISION_SOURCE))
    read.problems.push('EVENT_SOURCE must differ from DECISION_SOURCE');
  return read.done(config);
}
