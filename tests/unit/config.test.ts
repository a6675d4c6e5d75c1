import { describe, expect, it, vi } from 'vitest';
import { configProblems, thrownBy } from '../support/thrown';
import { envVariables, stageParams } from '../support/serverless-yml';
import {
  ConfigError,
  defaultOf,
  isSettingName,
  loadAuthConfig,
  loadCreateConfig,
  loadDecisionConfig,
  loadEdgeConfig,
  loadPublisherConfig,
  loadServiceConfig,
  type Setting,
  SETTINGS,
} from '../../lib/config';

const SERVICE_REQUIRED = { REQUESTS_TABLE_NAME: 'termination-requests', CONTRACTS_TABLE_NAME: 'contracts' };
const AUTH_REQUIRED = {
  JWT_ISSUER: 'https://issuer.example.com',
  JWT_AUDIENCE: 'termination-api',
  JWKS_URI: 'https://issuer.example.com/.well-known/jwks.json',
};

describe('loadServiceConfig', () => {
  it('applies the defaults', () => {
    expect(loadServiceConfig({ ...SERVICE_REQUIRED })).toEqual({
      requestsTableName: 'termination-requests',
      contractsTableName: 'contracts',
      idempotencyTtlSeconds: 24 * 3600,
      retention: { kind: 'calendar-years', years: 5, timeZone: 'Europe/Moscow' },
      businessTimeZone: 'Europe/Moscow',
      budgetMs: 6000,
      retryAfterSeconds: 1,
      allowedOrigins: [],
      dynamodb: { region: 'eu-central-1', endpoint: undefined, requestTimeoutMs: 2000, connectTimeoutMs: 1000, maxAttempts: 3 },
      requestLimit: { count: 5, periodDays: 30 },
    });
  });

  it('reads every setting', () => {
    const config = loadServiceConfig({
      ...SERVICE_REQUIRED,
      IDEMPOTENCY_TTL_HOURS: '48',
      REQUEST_RETENTION_YEARS: '10',
      BUSINESS_TIME_ZONE: 'Asia/Yekaterinburg',
      DYNAMODB_BUDGET_MS: '100',
      RETRY_AFTER_SECONDS: '30',
      AWS_REGION: 'eu-west-1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      DYNAMODB_REQUEST_TIMEOUT_MS: '500',
      DYNAMODB_CONNECT_TIMEOUT_MS: '200',
      DYNAMODB_MAX_ATTEMPTS: '5',
      REQUEST_LIMIT_COUNT: '3',
      REQUEST_LIMIT_DAYS: '7',
    });
    expect(config).toEqual({
      requestsTableName: 'termination-requests',
      contractsTableName: 'contracts',
      idempotencyTtlSeconds: 48 * 3600,
      retention: { kind: 'calendar-years', years: 10, timeZone: 'Asia/Yekaterinburg' },
      businessTimeZone: 'Asia/Yekaterinburg',
      budgetMs: 100,
      retryAfterSeconds: 30,
      allowedOrigins: [],
      dynamodb: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:8000', requestTimeoutMs: 500, connectTimeoutMs: 200, maxAttempts: 5 },
      requestLimit: { count: 3, periodDays: 7 },
    });
  });

  it('trims values and treats blank optional values as absent', () => {
    const config = loadServiceConfig({
      REQUESTS_TABLE_NAME: '  r  ',
      CONTRACTS_TABLE_NAME: 'c',
      IDEMPOTENCY_TTL_HOURS: '   ',
      BUSINESS_TIME_ZONE: '',
      DYNAMODB_ENDPOINT: ' ',
    });
    expect(config.requestsTableName).toBe('r');
    expect(config.idempotencyTtlSeconds).toBe(24 * 3600);
    expect(config.businessTimeZone).toBe('Europe/Moscow');
    expect(config.dynamodb.endpoint).toBeUndefined();
  });

  it('lists all missing required names in one ConfigError', () => {
    const message = configProblems(() => loadServiceConfig({}));
    expect(message).toContain('REQUESTS_TABLE_NAME is required');
    expect(message).toContain('CONTRACTS_TABLE_NAME is required');
  });

  it('treats a blank required value as missing', () => {
    const message = configProblems(() => loadServiceConfig({ REQUESTS_TABLE_NAME: '   ', CONTRACTS_TABLE_NAME: 'c' }));
    expect(message).toContain('REQUESTS_TABLE_NAME is required');
    expect(message).not.toContain('CONTRACTS_TABLE_NAME');
  });

  it.each([
    ['IDEMPOTENCY_TTL_HOURS', 'abc'],
    ['IDEMPOTENCY_TTL_HOURS', '1.5'],
    ['IDEMPOTENCY_TTL_HOURS', '0'],
    ['IDEMPOTENCY_TTL_HOURS', '-1'],
    ['IDEMPOTENCY_TTL_HOURS', '721'],
    ['IDEMPOTENCY_TTL_HOURS', 'Infinity'],
    ['DYNAMODB_BUDGET_MS', '99'],
    ['DYNAMODB_BUDGET_MS', '25001'],
    ['DYNAMODB_BUDGET_MS', '-5'],
    ['RETRY_AFTER_SECONDS', '0'],
    ['RETRY_AFTER_SECONDS', '3601'],
    ['RETRY_AFTER_SECONDS', '1s'],
    ['DYNAMODB_REQUEST_TIMEOUT_MS', '99'],
    ['DYNAMODB_CONNECT_TIMEOUT_MS', '10001'],
    ['DYNAMODB_MAX_ATTEMPTS', '0'],
    ['DYNAMODB_MAX_ATTEMPTS', '11'],
    ['DYNAMODB_MAX_ATTEMPTS', 'NaN'],
    ['IDEMPOTENCY_TTL_HOURS', '0x10'],
    ['RETRY_AFTER_SECONDS', '1e1'],
    ['DYNAMODB_MAX_ATTEMPTS', '0b11'],
    ['REQUEST_RETENTION_DAYS', '0'],
    ['REQUEST_RETENTION_DAYS', '36526'],
    ['REQUEST_RETENTION_YEARS', '0'],
    ['REQUEST_RETENTION_YEARS', '101'],
  ])('rejects %s=%j', (name, value) => {
    const message = configProblems(() => loadServiceConfig({ ...SERVICE_REQUIRED, [name]: value }));
    expect(message).toContain(name);
    expect(message).toContain(`"${value}"`);
  });

  it.each([
    ['IDEMPOTENCY_TTL_HOURS', '1', 3600],
    ['IDEMPOTENCY_TTL_HOURS', '720', 720 * 3600],
  ])('accepts the bounds %s=%s', (name, value, expected) => {
    expect(loadServiceConfig({ ...SERVICE_REQUIRED, [name]: value }).idempotencyTtlSeconds).toBe(expected);
  });

  it.each(['Mars/Olympus_Mons', 'Moscow', 'UTC+3', 'Europe/Moskva'])('rejects the time zone %j', (zone) => {
    const message = configProblems(() => loadServiceConfig({ ...SERVICE_REQUIRED, BUSINESS_TIME_ZONE: zone }));
    expect(message).toContain('BUSINESS_TIME_ZONE');
    expect(message).toContain(zone);
  });

  it.each(['UTC', 'Europe/Kaliningrad', 'Asia/Vladivostok'])('accepts the time zone %s', (zone) => {
    expect(loadServiceConfig({ ...SERVICE_REQUIRED, BUSINESS_TIME_ZONE: zone }).businessTimeZone).toBe(zone);
  });

  it("takes the default time zone, one Intl knows, without loading Intl's list at cold start; another zone is looked up", () => {
    const lookups = vi.spyOn(Intl, 'supportedValuesOf');
    const zone = loadServiceConfig(SERVICE_REQUIRED).businessTimeZone;
    expect(lookups).not.toHaveBeenCalled();
    expect(loadServiceConfig({ ...SERVICE_REQUIRED, BUSINESS_TIME_ZONE: zone }).businessTimeZone).toBe(zone);
    expect(lookups).not.toHaveBeenCalled();
    loadServiceConfig({ ...SERVICE_REQUIRED, BUSINESS_TIME_ZONE: 'UTC' });
    expect(lookups).toHaveBeenCalledTimes(1);
    lookups.mockRestore();
    expect(Intl.supportedValuesOf('timeZone')).toContain(zone);
  });

  it('rejects a DYNAMODB_ENDPOINT that is not a URL', () => {
    const message = configProblems(() => loadServiceConfig({ ...SERVICE_REQUIRED, DYNAMODB_ENDPOINT: 'localhost 8000' }));
    expect(message).toContain('DYNAMODB_ENDPOINT');
  });

  it('lists every problem at once: missing names, bad integers and a bad time zone', () => {
    const message = configProblems(() =>
      loadServiceConfig({ IDEMPOTENCY_TTL_HOURS: 'x', DYNAMODB_MAX_ATTEMPTS: '99', BUSINESS_TIME_ZONE: 'Nowhere/Land' }),
    );
    for (const name of [
      'REQUESTS_TABLE_NAME',
      'CONTRACTS_TABLE_NAME',
      'IDEMPOTENCY_TTL_HOURS',
      'DYNAMODB_MAX_ATTEMPTS',
      'BUSINESS_TIME_ZONE',
    ]) {
      expect(message).toContain(name);
    }
  });

  it('ConfigError is an Error with its own name', () => {
    const error = new ConfigError(['A is required', 'B is required']);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
    expect(error.message).toBe('Invalid configuration: A is required; B is required');
  });
});

describe('loadAuthConfig', () => {
  it('reads the settings; defaults: claim sub, tokens up to 24 h, JWKS refreshed every 5 min and for an unknown kid at most every 30 s, tokens up to 8 KiB', () => {
    expect(loadAuthConfig({ ...AUTH_REQUIRED })).toEqual({
      issuer: 'https://issuer.example.com',
      audience: 'termination-api',
      accessTokenProof: 'token_use',
      requiredScope: undefined,
      jwksUri: 'https://issuer.example.com/.well-known/jwks.json',
      customerIdClaim: 'sub',
      maxTokenLifetimeSeconds: 86_400,
      jwksTtlSeconds: 300,
      jwksMinRefetchSeconds: 30,
      maxTokenBytes: 8192,
      clockSkewSeconds: 30,
      cacheTtlSeconds: 60,
    });
  });

  it('reads the JWKS refetch bound and the token size limit within their bounds, naming every problem at once', () => {
    expect(loadAuthConfig({ ...AUTH_REQUIRED, JWKS_MIN_REFETCH_SECONDS: '1', JWT_MAX_BYTES: '10240' })).toMatchObject({
      jwksMinRefetchSeconds: 1,
      maxTokenBytes: 10_240,
    });
    const message = configProblems(() => loadAuthConfig({ ...AUTH_REQUIRED, JWKS_MIN_REFETCH_SECONDS: '0', JWT_MAX_BYTES: '10241' }));
    expect(message).toContain('JWKS_MIN_REFETCH_SECONDS must be an integer from 1 to 300, got "0"');
    expect(message).toContain('JWT_MAX_BYTES must be an integer from 1024 to 10240, got "10241"');
  });

  it('refuses an authorizer cache that outlives every token: none could pass', () => {
    expect(() => loadAuthConfig({ ...AUTH_REQUIRED, JWT_MAX_LIFETIME_SECONDS: '300', AUTHORIZER_CACHE_TTL_SECONDS: '300' })).toThrow(
      /AUTHORIZER_CACHE_TTL_SECONDS \(300\) must be below JWT_MAX_LIFETIME_SECONDS \(300\)/,
    );
  });

  it('names every cross-setting problem at once, with the settings read alone', () => {
    const message = configProblems(() =>
      loadAuthConfig({
        ...AUTH_REQUIRED,
        JWT_ACCESS_TOKEN_PROOF: 'scope',
        JWT_MAX_LIFETIME_SECONDS: '300',
        AUTHORIZER_CACHE_TTL_SECONDS: '300',
        JWT_MAX_BYTES: '1',
      }),
    );
    expect(message).toContain('JWT_REQUIRED_SCOPE is required when JWT_ACCESS_TOKEN_PROOF is scope');
    expect(message).toContain('AUTHORIZER_CACHE_TTL_SECONDS (300) must be below JWT_MAX_LIFETIME_SECONDS (300)');
    expect(message).toContain('JWT_MAX_BYTES');
    expect(configProblems(() => loadAuthConfig({ ...AUTH_REQUIRED, JWT_REQUIRED_SCOPE: 'two scopes', JWT_MAX_BYTES: '1' }))).toMatch(
      /JWT_MAX_BYTES.*JWT_REQUIRED_SCOPE must be one scope/,
    );
  });

  it('reads the clock skew and the authorizer cache TTL within their bounds', () => {
    expect(loadAuthConfig({ ...AUTH_REQUIRED, JWT_CLOCK_SKEW_SECONDS: '0', AUTHORIZER_CACHE_TTL_SECONDS: '300' })).toMatchObject({
      clockSkewSeconds: 0,
      cacheTtlSeconds: 300,
    });
    expect(() => loadAuthConfig({ ...AUTH_REQUIRED, JWT_CLOCK_SKEW_SECONDS: '301' })).toThrow(/JWT_CLOCK_SKEW_SECONDS/);
    expect(() => loadAuthConfig({ ...AUTH_REQUIRED, AUTHORIZER_CACHE_TTL_SECONDS: '3601' })).toThrow(/AUTHORIZER_CACHE_TTL_SECONDS/);
  });

  it('refuses a JWKS kept longer than 15 minutes', () => {
    expect(() => loadAuthConfig({ ...AUTH_REQUIRED, JWKS_TTL_SECONDS: '901' })).toThrow(/JWKS_TTL_SECONDS/);
    expect(loadAuthConfig({ ...AUTH_REQUIRED, JWKS_TTL_SECONDS: '900', JWT_MAX_LIFETIME_SECONDS: '3600' })).toMatchObject({
      jwksTtlSeconds: 900,
      maxTokenLifetimeSeconds: 3600,
    });
  });

  it('reads how a token proves it is an access token, and the scope the scope proof needs', () => {
    expect(loadAuthConfig({ ...AUTH_REQUIRED, JWT_ACCESS_TOKEN_PROOF: 'at+jwt' }).accessTokenProof).toBe('at+jwt');
    expect(loadAuthConfig({ ...AUTH_REQUIRED, JWT_ACCESS_TOKEN_PROOF: 'scope', JWT_REQUIRED_SCOPE: 'termination/requests' })).toMatchObject(
      {
        accessTokenProof: 'scope',
        requiredScope: 'termination/requests',
      },
    );
    expect(configProblems(() => loadAuthConfig({ ...AUTH_REQUIRED, JWT_ACCESS_TOKEN_PROOF: 'typ' }))).toContain(
      'JWT_ACCESS_TOKEN_PROOF must be one of token_use, at+jwt, scope, got "typ"',
    );
    expect(configProblems(() => loadAuthConfig({ ...AUTH_REQUIRED, JWT_ACCESS_TOKEN_PROOF: 'scope' }))).toContain(
      'JWT_REQUIRED_SCOPE is required when JWT_ACCESS_TOKEN_PROOF is scope',
    );
    expect(configProblems(() => loadAuthConfig({ ...AUTH_REQUIRED, JWT_REQUIRED_SCOPE: 'two scopes' }))).toContain('JWT_REQUIRED_SCOPE');
  });

  it('reads CUSTOMER_ID_CLAIM', () => {
    expect(loadAuthConfig({ ...AUTH_REQUIRED, CUSTOMER_ID_CLAIM: 'custom:customer_id' }).customerIdClaim).toBe('custom:customer_id');
  });

  it('lists all missing required names in one ConfigError', () => {
    const message = configProblems(() => loadAuthConfig({}));
    expect(message).toContain('JWT_ISSUER is required');
    expect(message).toContain('JWT_AUDIENCE is required');
    expect(message).toContain('JWKS_URI is required');
  });

  it.each([
    'http://issuer.example.com/.well-known/jwks.json',
    'http://10.0.0.5/jwks.json',
    'http://localhost.evil.example/jwks.json',
    'ftp://issuer.example.com/jwks.json',
    'file:///etc/jwks.json',
  ])('rejects the JWKS URI %s', (uri) => {
    const message = configProblems(() => loadAuthConfig({ ...AUTH_REQUIRED, JWKS_URI: uri }));
    expect(message).toContain('JWKS_URI must be an https URL');
  });

  it('rejects a JWKS URI that is not a URL', () => {
    const message = configProblems(() => loadAuthConfig({ ...AUTH_REQUIRED, JWKS_URI: 'issuer.example.com/jwks' }));
    expect(message).toContain('JWKS_URI must be a URL');
  });

  it.each([
    'http://127.0.0.1:4100/.well-known/jwks.json',
    'http://localhost:4100/jwks.json',
    'http://[::1]:4100/jwks.json',
    'https://cognito-idp.eu-central-1.amazonaws.com/pool/.well-known/jwks.json',
  ])('accepts the JWKS URI %s', (uri) => {
    expect(loadAuthConfig({ ...AUTH_REQUIRED, JWKS_URI: uri }).jwksUri).toBe(uri);
  });
});

describe("the settings' defaults and bounds, in lib/config.ts and serverless.yml", () => {
  // Every loader of lib/config.ts (tests/unit/docs.test.ts fails when one is added and not listed there).
  const loaders = [loadServiceConfig, loadCreateConfig, loadEdgeConfig, loadAuthConfig, loadDecisionConfig, loadPublisherConfig];
  /** What every loader needs to load at all: the settings without a default. */
  const REQUIRED = {
    ...SERVICE_REQUIRED,
    ...AUTH_REQUIRED,
    DOCUMENTS_TABLE_NAME: 'documents',
    ERASURE_LEDGER_TABLE_NAME: 'termination-erasures',
    EVENT_BUS_NAME: 'termination-events',
    EVENT_SIGNING_KEY_ID: '1234abcd-12ab-34cd-56ef-1234567890ab',
    DECISION_ACCOUNT_ID: '123456789012',
    DECISION_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/decisions',
    DECISION_JWKS_URI: 'https://backoffice.example/.well-known/jwks.json',
  };
  const loadAll = (env: Record<string, string | undefined>) => loaders.map((load) => load(env));

  /** `${env:NAME, 'default'}` of the default stage, for each name whose default is a plain value. */
  function packagedDefaults(): [string, string][] {
    return envVariables(stageParams()['default']).flatMap(({ name, fallback }): [string, string][] =>
      fallback === undefined ? [] : [[name, fallback]],
    );
  }

  it('are the ones lib/config.ts applies: each, passed as packaged, loads what the setting left out loads', () => {
    const read = new Set<string>();
    const recording = new Proxy<Record<string, string | undefined>>(
      { ...REQUIRED },
      {
        get(target, name) {
          if (typeof name === 'string') read.add(name);
          return typeof name === 'string' ? target[name] : undefined;
        },
      },
    );
    loadAll(recording);
    const checked = packagedDefaults().filter(([name]) => read.has(name) && !(name in REQUIRED));
    expect(checked.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'IDEMPOTENCY_TTL_HOURS',
        'DYNAMODB_BUDGET_MS',
        'JWKS_TTL_SECONDS',
        'REQUEST_LIMIT_COUNT',
        'REQUEST_RETENTION_YEARS',
      ]),
    );
    for (const [name, value] of checked) expect(loadAll({ ...REQUIRED, [name]: value }), `${name}: '${value}'`).toEqual(loadAll(REQUIRED));
  });

  /** The problems every loader names for this environment, one message. */
  const problemsOf = (env: Record<string, string | undefined>) =>
    loaders
      .map((load) => thrownBy(() => load(env)))
      .flatMap((error) => (error instanceof ConfigError ? [error.message] : []))
      .join(' ');
  /** Every setting of lib/config.ts, with how it is read. */
  const settings = () =>
    Object.keys(SETTINGS)
      .filter(isSettingName)
      .map((name) => {
        const setting: Setting = SETTINGS[name];
        return { name, setting };
      });

  it("are lib/config.ts's own: each setting's default, passed in, loads what the setting left out loads", () => {
    const defaulted = settings().flatMap(({ name }) => {
      const fallback = defaultOf(name);
      return fallback === undefined ? [] : [[name, String(fallback)]];
    });
    expect(defaulted.length).toBeGreaterThan(20);
    for (const [name = '', value] of defaulted)
      expect(loadAll({ ...REQUIRED, [name]: value }), `${name}: '${value}'`).toEqual(loadAll(REQUIRED));
  });

  it('hold every integer setting to its bounds: both ends accepted, one past either refused, naming the setting', () => {
    let checked = 0;
    for (const { name, setting } of settings()) {
      if (setting.kind !== 'integer' && setting.kind !== 'optional-integer') continue;
      checked += 1;
      // The authorizer's cache must stay below the token lifetime: a short lifetime with no cache, a long cache with the longest lifetime.
      const env = { ...REQUIRED, JWT_MAX_LIFETIME_SECONDS: '604800', AUTHORIZER_CACHE_TTL_SECONDS: '0' };
      expect(problemsOf({ ...env, [name]: String(setting.min) }), `${name}=${String(setting.min)}`).toBe('');
      expect(problemsOf({ ...env, [name]: String(setting.max) }), `${name}=${String(setting.max)}`).toBe('');
      expect(problemsOf({ ...env, [name]: String(setting.max + 1) })).toContain(`${name} must be an integer from`);
      if (setting.min > 0) expect(problemsOf({ ...env, [name]: String(setting.min - 1) })).toContain(`${name} must be an integer from`);
    }
    expect(checked).toBeGreaterThan(15);
  });

  it('take each value a one-of setting lists, and refuse another', () => {
    for (const { name, setting } of settings()) {
      if (setting.kind !== 'one-of') continue;
      for (const value of setting.values) {
        // The scope proof needs the scope it proves by.
        expect(problemsOf({ ...REQUIRED, [name]: value, JWT_REQUIRED_SCOPE: 'termination/requests' }), `${name}=${value}`).toBe('');
      }
      expect(problemsOf({ ...REQUIRED, [name]: 'none-of-these' })).toContain(name);
    }
  });
});
