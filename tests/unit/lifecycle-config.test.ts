import { describe, expect, it } from 'vitest';
import { configProblems } from '../support/thrown';
import { loadDecisionConfig, loadPublisherConfig } from '../../lib/config';

const QUEUE_URL = 'https://sqs.eu-central-1.amazonaws.com/123456789012/decision-dead-letters';
const DECISION_REQUIRED = {
  REQUESTS_TABLE_NAME: 'termination-requests',
  DECISION_DEAD_LETTER_QUEUE_URL: QUEUE_URL,
  DECISION_ACCOUNT_ID: '123456789012',
  DECISION_JWKS_URI: 'https://back-office.example/.well-known/jwks.json',
};
const PUBLISHER_REQUIRED = {
  EVENT_BUS_NAME: 'termination-events',
  REQUESTS_TABLE_NAME: 'termination-requests',
  ERASURE_LEDGER_TABLE_NAME: 'termination-erasures',
  EVENT_SIGNING_KEY_ID: '1234abcd-12ab-34cd-56ef-1234567890ab',
};

describe('loadDecisionConfig', () => {
  it('applies the defaults', () => {
    expect(loadDecisionConfig({ ...DECISION_REQUIRED })).toEqual({
      requestsTableName: 'termination-requests',
      dynamodb: { region: 'eu-central-1', endpoint: undefined, requestTimeoutMs: 2000, connectTimeoutMs: 1000, maxAttempts: 3 },
      retention: { kind: 'calendar-years', years: 5, timeZone: 'Europe/Moscow' },
      decisionSource: 'bank.back-office',
      decisionDetailType: 'TerminationRequestStatusChanged',
      decisionAccountId: '123456789012',
      signatures: {
        jwksUri: 'https://back-office.example/.well-known/jwks.json',
        jwksTtlSeconds: 300,
        jwksMinRefetchSeconds: 30,
        clockSkewSeconds: 30,
      },
      deadLetterQueueUrl: QUEUE_URL,
      sqs: { region: 'eu-central-1', endpoint: undefined },
    });
  });

  it('reads every setting, trimmed', () => {
    const config = loadDecisionConfig({
      REQUESTS_TABLE_NAME: ' requests ',
      DECISION_DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:3007/000000000000/decision-dead-letters',
      DECISION_SOURCE: 'bank.core',
      DECISION_DETAIL_TYPE: 'RequestDecided',
      DECISION_ACCOUNT_ID: ' 210987654321 ',
      DECISION_JWKS_URI: 'http://127.0.0.1:3005/.well-known/back-office-jwks.json',
      JWKS_TTL_SECONDS: '60',
      JWKS_MIN_REFETCH_SECONDS: '5',
      JWT_CLOCK_SKEW_SECONDS: '0',
      AWS_REGION: 'eu-west-1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      DYNAMODB_MAX_ATTEMPTS: '5',
      REQUEST_RETENTION_DAYS: ' 3 ',
      SQS_ENDPOINT: 'http://127.0.0.1:3007',
    });
    expect(config).toEqual({
      requestsTableName: 'requests',
      dynamodb: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:8000', requestTimeoutMs: 2000, connectTimeoutMs: 1000, maxAttempts: 5 },
      retention: { kind: 'days', days: 3 },
      decisionSource: 'bank.core',
      decisionDetailType: 'RequestDecided',
      decisionAccountId: '210987654321',
      signatures: {
        jwksUri: 'http://127.0.0.1:3005/.well-known/back-office-jwks.json',
        jwksTtlSeconds: 60,
        jwksMinRefetchSeconds: 5,
        clockSkewSeconds: 0,
      },
      deadLetterQueueUrl: 'http://127.0.0.1:3007/000000000000/decision-dead-letters',
      sqs: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:3007' },
    });
  });

  it('treats blank endpoints as absent, as a deployment to AWS sets them', () => {
    const config = loadDecisionConfig({ ...DECISION_REQUIRED, SQS_ENDPOINT: '', DYNAMODB_ENDPOINT: '  ', DECISION_SOURCE: ' ' });
    expect(config.sqs.endpoint).toBeUndefined();
    expect(config.dynamodb.endpoint).toBeUndefined();
    expect(config.decisionSource).toBe('bank.back-office');
  });

  it('names every missing required value in one ConfigError', () => {
    const message = configProblems(() => loadDecisionConfig({}));
    expect(message).toContain('REQUESTS_TABLE_NAME is required');
    expect(message).toContain('DECISION_DEAD_LETTER_QUEUE_URL is required');
    // Without the account decisions come from, none could be told from a forgery.
    expect(message).toContain('DECISION_ACCOUNT_ID is required');
    // Without the back office's keys, no decision could prove who made it: there is no default.
    expect(message).toContain('DECISION_JWKS_URI is required');
  });

  it("takes the back office's keys from https only, or plain http on loopback for the local stack", () => {
    for (const uri of ['http://back-office.example/jwks.json', 'http://10.0.0.5/jwks.json', 'file:///jwks.json'])
      expect(configProblems(() => loadDecisionConfig({ ...DECISION_REQUIRED, DECISION_JWKS_URI: uri }))).toContain(
        'DECISION_JWKS_URI must be',
      );
  });

  it('takes only an AWS account id as the account decisions come from', () => {
    expect(configProblems(() => loadDecisionConfig({ ...DECISION_REQUIRED, DECISION_ACCOUNT_ID: 'bank-back-office' }))).toContain(
      'DECISION_ACCOUNT_ID must be an AWS account id (12 digits), got "bank-back-office"',
    );
  });

  it('treats a blank required value as missing', () => {
    const message = configProblems(() => loadDecisionConfig({ ...DECISION_REQUIRED, DECISION_DEAD_LETTER_QUEUE_URL: '   ' }));
    expect(message).toContain('DECISION_DEAD_LETTER_QUEUE_URL is required');
    expect(message).not.toContain('REQUESTS_TABLE_NAME');
  });

  it.each([
    ['DECISION_DEAD_LETTER_QUEUE_URL', 'decision-dead-letters'],
    ['DECISION_DEAD_LETTER_QUEUE_URL', 'sqs.eu-central-1.amazonaws.com/123456789012/q'],
    ['SQS_ENDPOINT', 'localhost 3007'],
    ['DYNAMODB_ENDPOINT', '127.0.0.1:8000/x y'],
  ])('refuses %s=%j: it must be a URL', (name, value) => {
    const message = configProblems(() => loadDecisionConfig({ ...DECISION_REQUIRED, [name]: value }));
    expect(message).toContain(`${name} must be a URL, got "${value}"`);
  });

  it('refuses a bad DynamoDB setting as the service does', () => {
    expect(configProblems(() => loadDecisionConfig({ ...DECISION_REQUIRED, DYNAMODB_MAX_ATTEMPTS: '11' }))).toContain(
      'DYNAMODB_MAX_ATTEMPTS',
    );
  });

  it('lists every problem at once', () => {
    const message = configProblems(() => loadDecisionConfig({ SQS_ENDPOINT: 'nope nope', DYNAMODB_REQUEST_TIMEOUT_MS: 'x' }));
    for (const name of ['REQUESTS_TABLE_NAME', 'DECISION_DEAD_LETTER_QUEUE_URL', 'SQS_ENDPOINT', 'DYNAMODB_REQUEST_TIMEOUT_MS'])
      expect(message).toContain(name);
  });
});

describe('loadPublisherConfig', () => {
  it('applies the defaults', () => {
    expect(loadPublisherConfig({ ...PUBLISHER_REQUIRED })).toEqual({
      requestsTableName: 'termination-requests',
      erasureLedgerTableName: 'termination-erasures',
      // A redrive may name only the streams of the tables the publisher consumes.
      streamTables: ['termination-requests', 'termination-erasures'],
      dynamodb: { region: 'eu-central-1', endpoint: undefined, requestTimeoutMs: 2000, connectTimeoutMs: 1000, maxAttempts: 3 },
      eventBusName: 'termination-events',
      eventSource: 'bank.contract-termination',
      eventBridge: { region: 'eu-central-1', endpoint: undefined },
      maxAttempts: 3,
      signingKeyId: PUBLISHER_REQUIRED.EVENT_SIGNING_KEY_ID,
      kms: { region: 'eu-central-1', endpoint: undefined },
    });
  });

  it('reads every setting', () => {
    const config = loadPublisherConfig({
      REQUESTS_TABLE_NAME: 'requests',
      ERASURE_LEDGER_TABLE_NAME: 'erasures',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      DYNAMODB_REQUEST_TIMEOUT_MS: '700',
      EVENT_BUS_NAME: 'bus',
      EVENT_SOURCE: 'bank.termination',
      DECISION_SOURCE: 'bank.back-office',
      AWS_REGION: 'eu-west-1',
      EVENTBRIDGE_ENDPOINT: 'http://127.0.0.1:3007',
      PUBLISH_MAX_ATTEMPTS: '10',
      EVENT_SIGNING_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      KMS_ENDPOINT: 'http://127.0.0.1:3007',
    });
    expect(config).toEqual({
      requestsTableName: 'requests',
      erasureLedgerTableName: 'erasures',
      streamTables: ['requests', 'erasures'],
      dynamodb: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:8000', requestTimeoutMs: 700, connectTimeoutMs: 1000, maxAttempts: 3 },
      eventBusName: 'bus',
      eventSource: 'bank.termination',
      eventBridge: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:3007' },
      maxAttempts: 10,
      signingKeyId: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      kms: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:3007' },
    });
  });

  it('names the missing signing key, and refuses an alias: the kid is the key itself', () => {
    expect(configProblems(() => loadPublisherConfig({}))).toContain('EVENT_SIGNING_KEY_ID is required');
    expect(configProblems(() => loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENT_SIGNING_KEY_ID: 'alias/events' }))).toContain(
      'EVENT_SIGNING_KEY_ID must name the key itself, not an alias',
    );
  });

  it('names the missing bus and table: every event is checked against the table', () => {
    expect(configProblems(() => loadPublisherConfig({}))).toContain('EVENT_BUS_NAME is required');
    expect(configProblems(() => loadPublisherConfig({}))).toContain('REQUESTS_TABLE_NAME is required');
    expect(configProblems(() => loadPublisherConfig({}))).toContain('ERASURE_LEDGER_TABLE_NAME is required');
    expect(configProblems(() => loadPublisherConfig({ EVENT_BUS_NAME: ' ' }))).toContain('EVENT_BUS_NAME is required');
  });

  it.each(['0', '11', '-1', '2.5', 'three', '1e1'])('refuses PUBLISH_MAX_ATTEMPTS=%j', (value) => {
    const message = configProblems(() => loadPublisherConfig({ ...PUBLISHER_REQUIRED, PUBLISH_MAX_ATTEMPTS: value }));
    expect(message).toContain(`PUBLISH_MAX_ATTEMPTS must be an integer from 1 to 10, got "${value}"`);
  });

  it.each(['1', '10'])('accepts PUBLISH_MAX_ATTEMPTS=%s', (value) => {
    expect(loadPublisherConfig({ ...PUBLISHER_REQUIRED, PUBLISH_MAX_ATTEMPTS: value }).maxAttempts).toBe(Number(value));
  });

  it('refuses an EVENTBRIDGE_ENDPOINT that is not a URL, and ignores a blank one', () => {
    const message = configProblems(() => loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENTBRIDGE_ENDPOINT: '127.0.0.1 3007' }));
    expect(message).toContain('EVENTBRIDGE_ENDPOINT must be a URL, got "127.0.0.1 3007"');
    expect(loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENTBRIDGE_ENDPOINT: '' }).eventBridge.endpoint).toBeUndefined();
  });

  it('refuses an EVENT_SOURCE equal to DECISION_SOURCE', () => {
    const message = configProblems(() =>
      loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENT_SOURCE: 'bank.back-office', DECISION_SOURCE: 'bank.back-office' }),
    );
    expect(message).toContain('EVENT_SOURCE must differ from DECISION_SOURCE');
  });

  it('compares the values as read: trimmed, and with the default EVENT_SOURCE', () => {
    expect(
      configProblems(() => loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENT_SOURCE: ' bank.x ', DECISION_SOURCE: 'bank.x' })),
    ).toContain('EVENT_SOURCE must differ from DECISION_SOURCE');
    expect(configProblems(() => loadPublisherConfig({ ...PUBLISHER_REQUIRED, DECISION_SOURCE: 'bank.contract-termination' }))).toContain(
      'EVENT_SOURCE must differ from DECISION_SOURCE',
    );
  });

  it('accepts sources that differ, even only in case', () => {
    expect(
      loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENT_SOURCE: 'bank.termination', DECISION_SOURCE: 'bank.back-office' }).eventSource,
    ).toBe('bank.termination');
    expect(
      loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENT_SOURCE: 'Bank.Back-Office', DECISION_SOURCE: 'bank.back-office' }).eventSource,
    ).toBe('Bank.Back-Office');
  });

  // Without DECISION_SOURCE the consumer takes its default: the publisher must compare with that.
  it('refuses EVENT_SOURCE=bank.back-office when DECISION_SOURCE is unset: that is the decisions’ default source', () => {
    const decisionSource = loadDecisionConfig({ ...DECISION_REQUIRED }).decisionSource;
    const message = configProblems(() => loadPublisherConfig({ ...PUBLISHER_REQUIRED, EVENT_SOURCE: decisionSource }));
    expect(message).toContain('EVENT_SOURCE must differ from DECISION_SOURCE');
  });

  it('lists every problem at once', () => {
    const message = configProblems(() =>
      loadPublisherConfig({ EVENTBRIDGE_ENDPOINT: 'no url', PUBLISH_MAX_ATTEMPTS: '0', EVENT_SOURCE: 'same', DECISION_SOURCE: 'same' }),
    );
    for (const name of ['EVENT_BUS_NAME', 'EVENTBRIDGE_ENDPOINT', 'PUBLISH_MAX_ATTEMPTS', 'EVENT_SOURCE must differ'])
      expect(message).toContain(name);
  });
});
