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

/**
 * How a token proves it is an access token, not an ID token (docs/decisions/0003-authentication.md):
 * `token_use` is `access` (Cognito), the header's `typ` is `at+jwt` (RFC 9068), or its `scope`
 * holds JWT_REQUIRED_SCOPE (a provider that marks neither; ID tokens carry no scope).
 */
export const ACCESS_TOKEN_PROOFS = ['token_use', 'at+jwt', 'scope'] as const;
export type AccessTokenProof = (typeof ACCESS_TOKEN_PROOFS)[number];

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * How one setting is read: what it may hold and what it is when unset. A setting of text, integer
 * or one-of kind without a default is required; `optional` ones are absent when unset.
 */
export type Setting =
  | { kind: 'text'; default?: string }
  | { kind: 'optional-text' }
  | { kind: 'integer'; default: number; min: number; max: number }
  | { kind: 'optional-integer'; min: number; max: number }
  | { kind: 'one-of'; values: readonly string[]; default: string }
  | { kind: 'time-zone'; default: string }
  | { kind: 'url' }
  | { kind: 'jwks-uri' }
  | { kind: 'endpoint' }
  | { kind: 'origins' }
  | { kind: 'account-id' };

/**
 * Every setting a function reads, with its default and what it may hold: the one place either is
 * written. The loaders below read only these; docs/configuration.md's table is made from them
 * (npm run docs:configuration), and tests/unit/config.test.ts holds each default and bound.
 */
export const SETTINGS = {
  REQUESTS_TABLE_NAME: { kind: 'text' },
  ERASURE_LEDGER_TABLE_NAME: { kind: 'text' },
  CONTRACTS_TABLE_NAME: { kind: 'text' },
  DOCUMENTS_TABLE_NAME: { kind: 'text' },
  REQUEST_LIMIT_COUNT: { kind: 'integer', default: 5, min: 1, max: MAX_LIMIT_COUNT },
  REQUEST_LIMIT_DAYS: { kind: 'integer', default: 30, min: 1, max: 365 },
  IDEMPOTENCY_TTL_HOURS: { kind: 'integer', default: 24, min: 1, max: 24 * 30 },
  REQUEST_RETENTION_YEARS: { kind: 'integer', default: 5, min: 1, max: 100 },
  REQUEST_RETENTION_DAYS: { kind: 'optional-integer', min: 1, max: 36_525 },
  BUSINESS_TIME_ZONE: { kind: 'time-zone', default: DEFAULT_BUSINESS_TIME_ZONE },
  DYNAMODB_BUDGET_MS: { kind: 'integer', default: 6000, min: 100, max: 25_000 },
  RETRY_AFTER_SECONDS: { kind: 'integer', default: 1, min: 1, max: 3600 },
  ALLOWED_ORIGINS: { kind: 'origins' },
  DYNAMODB_ENDPOINT: { kind: 'endpoint' },
  DYNAMODB_REQUEST_TIMEOUT_MS: { kind: 'integer', default: 2000, min: 100, max: 20_000 },
  DYNAMODB_CONNECT_TIMEOUT_MS: { kind: 'integer', default: 1000, min: 50, max: 10_000 },
  DYNAMODB_MAX_ATTEMPTS: { kind: 'integer', default: 3, min: 1, max: 10 },
  AWS_REGION: { kind: 'text', default: 'eu-central-1' },
  JWT_ISSUER: { kind: 'text' },
  JWT_AUDIENCE: { kind: 'text' },
  JWT_ACCESS_TOKEN_PROOF: { kind: 'one-of', values: ACCESS_TOKEN_PROOFS, default: 'token_use' },
  JWT_REQUIRED_SCOPE: { kind: 'optional-text' },
  JWKS_URI: { kind: 'jwks-uri' },
  CUSTOMER_ID_CLAIM: { kind: 'text', default: 'sub' },
  JWT_MAX_LIFETIME_SECONDS: { kind: 'integer', default: 86_400, min: 60, max: 7 * 86_400 },
  JWKS_TTL_SECONDS: { kind: 'integer', default: 300, min: 10, max: 900 },
  JWKS_MIN_REFETCH_SECONDS: { kind: 'integer', default: 30, min: 1, max: 300 },
  // API Gateway takes at most 10,240 bytes of request line and headers together.
  JWT_MAX_BYTES: { kind: 'integer', default: 8192, min: 1024, max: 10_240 },
  JWT_CLOCK_SKEW_SECONDS: { kind: 'integer', default: 30, min: 0, max: 300 },
  // API Gateway's own bounds for the authorizer result cache: 0 to 3600 s.
  AUTHORIZER_CACHE_TTL_SECONDS: { kind: 'integer', default: 60, min: 0, max: 3600 },
  DECISION_SOURCE: { kind: 'text', default: 'bank.back-office' },
  DECISION_DETAIL_TYPE: { kind: 'text', default: 'TerminationRequestStatusChanged' },
  DECISION_ACCOUNT_ID: { kind: 'account-id' },
  DECISION_JWKS_URI: { kind: 'jwks-uri' },
  DECISION_DEAD_LETTER_QUEUE_URL: { kind: 'url' },
  SQS_ENDPOINT: { kind: 'endpoint' },
  EVENT_BUS_NAME: { kind: 'text' },
  EVENT_SOURCE: { kind: 'text', default: 'bank.contract-termination' },
  EVENTBRIDGE_ENDPOINT: { kind: 'endpoint' },
  PUBLISH_MAX_ATTEMPTS: { kind: 'integer', default: 3, min: 1, max: 10 },
  EVENT_SIGNING_KEY_ID: { kind: 'text' },
  KMS_ENDPOINT: { kind: 'endpoint' },
} as const satisfies Record<string, Setting>;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
/** The settings of one kind. */
type NamesOf<K extends Setting['kind']> = { [N in SettingName]: Settings[N]['kind'] extends K ? N : never }[SettingName];

export const isSettingName = (name: string): name is SettingName => name in SETTINGS;

/** A setting's default, when it has one. */
export function defaultOf(name: SettingName): string | number | undefined {
  const setting: Setting = SETTINGS[name];
  return 'default' in setting ? setting.default : undefined;
}

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  private raw(name: SettingName): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  /** The value, else the default, else a problem: required. */
  private present(name: SettingName): string {
    const value = this.raw(name) ?? defaultOf(name);
    if (value !== undefined) return String(value);
    this.problems.push(`${name} is required`);
    return '';
  }

  text(name: NamesOf<'text'>): string {
    return this.present(name);
  }

  optional(name: NamesOf<'optional-text'>): string | undefined {
    return this.raw(name);
  }

  integer(name: NamesOf<'integer'>): number {
    const setting = SETTINGS[name];
    return this.bounded(name, setting) ?? setting.default;
  }

  optionalInteger(name: NamesOf<'optional-integer'>): number | undefined {
    return this.bounded(name, SETTINGS[name]);
  }

  private bounded(name: SettingName, { min, max }: { min: number; max: number }): number | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return undefined;
  }

  oneOf<N extends NamesOf<'one-of'>>(name: N): Settings[N]['values'][number] {
    const { values, default: fallback } = SETTINGS[name];
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = values.find((v) => v === raw);
    if (value === undefined) this.problems.push(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return value ?? fallback;
  }

  /** An AWS account id: twelve digits. */
  accountId(name: NamesOf<'account-id'>): string {
    const value = this.present(name);
    if (value && !/^\d{12}$/.test(value)) this.problems.push(`${name} must be an AWS account id (12 digits), got "${value}"`);
    return value;
  }

  url(name: NamesOf<'url' | 'jwks-uri'>): string {
    const value = this.present(name);
    if (value && !isHttpUrl(value)) this.problems.push(`${name} must be a URL, got "${value}"`);
    return value;
  }

  /** HTTPS, or plain HTTP on loopback for the local stack only. */
  jwksUri(name: NamesOf<'jwks-uri'>): string {
    const value = this.url(name);
    if (value && URL.canParse(value) && new URL(value).protocol !== 'https:' && !isLoopbackHttp(value))
      this.problems.push(`${name} must be an https URL, got "${value}"`);
    return value;
  }

  /** A local stand-in's URL; unset in AWS, where the SDK finds the regional endpoint. */
  endpoint(name: NamesOf<'endpoint'>): string | undefined {
    const value = this.raw(name);
    if (value !== undefined && !isHttpUrl(value)) this.problems.push(`${name} must be a URL, got "${value}"`);
    return value;
  }

  /** Comma-separated origins (scheme://host[:port]), each exactly as a browser sends it. */
  origins(name: NamesOf<'origins'>): string[] {
    const raw = this.raw(name);
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

  timeZone(name: NamesOf<'time-zone'>): string {
    const fallback = SETTINGS[name].default;
    const value = this.raw(name) ?? fallback;
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
  const years = read.integer('REQUEST_RETENTION_YEARS');
  const days = read.optionalInteger('REQUEST_RETENTION_DAYS');
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
function readJwksSettings(read: Reader, uriName: Parameters<Reader['jwksUri']>[0]): JwksSettings {
  return {
    jwksUri: read.jwksUri(uriName),
    jwksTtlSeconds: read.integer('JWKS_TTL_SECONDS'),
    jwksMinRefetchSeconds: read.integer('JWKS_MIN_REFETCH_SECONDS'),
    clockSkewSeconds: read.integer('JWT_CLOCK_SKEW_SECONDS'),
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
  return {
    region: read.text('AWS_REGION'),
    endpoint: read.endpoint('DYNAMODB_ENDPOINT'),
    requestTimeoutMs: read.integer('DYNAMODB_REQUEST_TIMEOUT_MS'),
    connectTimeoutMs: read.integer('DYNAMODB_CONNECT_TIMEOUT_MS'),
    maxAttempts: read.integer('DYNAMODB_MAX_ATTEMPTS'),
  };
}

const readRequestLimit = (read: Reader) => ({
  count: read.integer('REQUEST_LIMIT_COUNT'),
  periodDays: read.integer('REQUEST_LIMIT_DAYS'),
});

const readBusinessTimeZone = (read: Reader): string => read.timeZone('BUSINESS_TIME_ZONE');

function readService(read: Reader): ServiceConfig {
  const businessTimeZone = readBusinessTimeZone(read);
  return {
    requestsTableName: read.text('REQUESTS_TABLE_NAME'),
    contractsTableName: read.text('CONTRACTS_TABLE_NAME'),
    idempotencyTtlSeconds: read.integer('IDEMPOTENCY_TTL_HOURS') * 3600,
    retention: readRetention(read, businessTimeZone),
    businessTimeZone,
    budgetMs: read.integer('DYNAMODB_BUDGET_MS'),
    retryAfterSeconds: read.integer('RETRY_AFTER_SECONDS'),
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
    documentsTableName: read.text('DOCUMENTS_TABLE_NAME'),
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
    retryAfterSeconds: read.integer('RETRY_AFTER_SECONDS'),
    allowedOrigins: read.origins('ALLOWED_ORIGINS'),
  });
}

export function loadAuthConfig(env: Env = process.env): AuthConfig {
  const read = new Reader(env);
  const config = {
    issuer: read.text('JWT_ISSUER'),
    audience: read.text('JWT_AUDIENCE'),
    accessTokenProof: read.oneOf('JWT_ACCESS_TOKEN_PROOF'),
    requiredScope: read.optional('JWT_REQUIRED_SCOPE'),
    ...readJwksSettings(read, 'JWKS_URI'),
    customerIdClaim: read.text('CUSTOMER_ID_CLAIM'),
    maxTokenLifetimeSeconds: read.integer('JWT_MAX_LIFETIME_SECONDS'),
    maxTokenBytes: read.integer('JWT_MAX_BYTES'),
    cacheTtlSeconds: read.integer('AUTHORIZER_CACHE_TTL_SECONDS'),
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

function readAwsService(read: Reader, endpointName: Parameters<Reader['endpoint']>[0]): AwsServiceConfig {
  return { region: read.text('AWS_REGION'), endpoint: read.endpoint(endpointName) };
}

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
    requestsTableName: read.text('REQUESTS_TABLE_NAME'),
    dynamodb: readDynamoDb(read),
    retention: readRetention(read, readBusinessTimeZone(read)),
    decisionSource: read.text('DECISION_SOURCE'),
    decisionDetailType: read.text('DECISION_DETAIL_TYPE'),
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
  const requestsTableName = read.text('REQUESTS_TABLE_NAME');
  const erasureLedgerTableName = read.text('ERASURE_LEDGER_TABLE_NAME');
  const config = {
    requestsTableName,
    erasureLedgerTableName,
    streamTables: [requestsTableName, erasureLedgerTableName],
    dynamodb: readDynamoDb(read),
    eventBusName: read.text('EVENT_BUS_NAME'),
    eventSource: read.text('EVENT_SOURCE'),
    eventBridge: readAwsService(read, 'EVENTBRIDGE_ENDPOINT'),
    maxAttempts: read.integer('PUBLISH_MAX_ATTEMPTS'),
    signingKeyId: read.text('EVENT_SIGNING_KEY_ID'),
    kms: readAwsService(read, 'KMS_ENDPOINT'),
  };
  if (config.signingKeyId.includes('alias/')) read.problems.push('EVENT_SIGNING_KEY_ID must name the key itself, not an alias');
  // A consumer of decisions must never take the service's own events for the back office's.
  if (config.eventSource === read.text('DECISION_SOURCE')) read.problems.push('EVENT_SOURCE must differ from DECISION_SOURCE');
  return read.done(config);
}
