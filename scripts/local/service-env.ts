import { LOCAL_ACCOUNT_ID } from './template-patterns';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from './signing-key';
import { BACK_OFFICE_JWKS_PATH } from './decision-event';
import { loadOrCreateEventSigningKey } from './kms-stand-in';
import { LOCAL_LEDGER_TABLE } from './tables';

/** Where the local stack keeps its files (git-ignored); LOCAL_DIR moves it (a test's stack keeps its own). */
const localDir = process.env['LOCAL_DIR'] ?? '.local';

/** Ports and addresses of the local stack: stable defaults that scripts and READMEs rely on. */
export const localDefaults = {
  localDir,
  apiPort: Number(process.env['API_PORT'] ?? 3000),
  dynamoDbPort: Number(process.env['DYNAMODB_PORT'] ?? 8000),
  jwksPort: Number(process.env['JWKS_PORT'] ?? 3005),
  pagePort: Number(process.env['PAGE_PORT'] ?? 3006),
  lambdaPort: Number(process.env['LAMBDA_PORT'] ?? 3002),
  /** The stand-in for EventBridge and SQS (scripts/local/aws-stand-in.ts). */
  awsStandInPort: Number(process.env['AWS_STAND_IN_PORT'] ?? 3007),
  /** Every event published, one JSON line each (git-ignored, under .local/). */
  eventsFile: `${localDir}/events.jsonl`,
  deadLettersFile: `${localDir}/dead-letters.jsonl`,
  /** Everything serverless offline and the functions print (their JSON log lines), for this run of npm start. */
  logFile: `${localDir}/service.log`,
  keyDir: process.env['LOCAL_KEY_DIR'] ?? `${localDir}/keys`,
  /** The events' signing key of npm start's KMS stand-in: made on first run, never committed. */
  eventSigningKeyFile: `${process.env['LOCAL_KEY_DIR'] ?? `${localDir}/keys`}/event-signing-key.json`,
  dataDir: `${localDir}/dynamodb`,
  tables: {
    requests: process.env['REQUESTS_TABLE_NAME'] ?? 'termination-requests',
    contracts: process.env['CONTRACTS_TABLE_NAME'] ?? 'contracts',
    documents: process.env['DOCUMENTS_TABLE_NAME'] ?? 'documents',
    ledger: LOCAL_LEDGER_TABLE,
  },
};

export const LOCAL_EVENT_BUS = 'termination-events';

/** The demo page's origin (npm start serves it), by address and by name: the browsers allowed locally. */
export const LOCAL_ALLOWED_ORIGINS = [`http://127.0.0.1:${localDefaults.pagePort}`, `http://localhost:${localDefaults.pagePort}`];

/** What the functions read from the environment when they run against the local stack. */
export function localServiceEnv(running: {
  dynamoDbEndpoint: string;
  jwksUri: string;
  awsStandIn?: string;
  tables?: { requests: string; contracts: string; documents: string; ledger?: string };
  /** The stand-in's event-signing key; npm start's own (localDefaults.eventSigningKeyFile) if none. */
  eventSigningKeyId?: string;
}): Record<string, string> {
  const tables = running.tables ?? localDefaults.tables;
  const standIn = running.awsStandIn ?? `http://127.0.0.1:${localDefaults.awsStandInPort}`;
  return {
    EVENTBRIDGE_ENDPOINT: standIn,
    SQS_ENDPOINT: standIn,
    KMS_ENDPOINT: standIn,
    EVENT_SIGNING_KEY_ID: running.eventSigningKeyId ?? loadOrCreateEventSigningKey(localDefaults.eventSigningKeyFile).keyId,
    EVENT_BUS_NAME: LOCAL_EVENT_BUS,
    DECISION_DEAD_LETTER_QUEUE_URL: `${standIn}/000000000000/decision-dead-letters`,
    DECISION_ACCOUNT_ID: LOCAL_ACCOUNT_ID,
    // The local back office's key, which the local JWKS server publishes beside the customers' (jwks-server.ts).
    DECISION_JWKS_URI: new URL(BACK_OFFICE_JWKS_PATH, running.jwksUri).href,
    DYNAMODB_ENDPOINT: running.dynamoDbEndpoint,
    JWKS_URI: running.jwksUri,
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    REQUESTS_TABLE_NAME: tables.requests,
    ERASURE_LEDGER_TABLE_NAME: tables.ledger ?? LOCAL_LEDGER_TABLE,
    CONTRACTS_TABLE_NAME: tables.contracts,
    DOCUMENTS_TABLE_NAME: tables.documents,
    ALLOWED_ORIGINS: LOCAL_ALLOWED_ORIGINS.join(','),
  };
}
