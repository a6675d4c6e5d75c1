import { createDocumentClient } from '../aws/dynamodb-client';
import { putEventsFor } from '../aws/eventbridge-client';
import { kmsSignerFor } from '../aws/kms-signer';
import { loadPublisherConfig, type PublisherConfig } from '../config';
import { ledgerReader } from '../dynamodb/erasure-ledger';
import { batchGetFor, requestReader } from '../dynamodb/request-reads';
import { publisherDeps, publisherTries, type PublisherDeps } from '../events/publish-request-events';
import type { Invocation } from '../retry';

export interface Publisher {
  config: PublisherConfig;
  /** What it publishes with in one invocation: the clients of the cold start, and tries that end with the invocation's time. */
  depsFor: (invocation: Invocation) => PublisherDeps;
}

/** The stream publisher's, built once per cold start as the routes' are (routes.ts): its configuration and what it publishes with. */
export function publisherDependencies(): Publisher {
  const config = loadPublisherConfig();
  const dynamodb = createDocumentClient(config.dynamodb);
  const batchGet = batchGetFor(dynamodb);
  const putEvents = putEventsFor(config);
  const readLedger = ledgerReader(dynamodb, config.erasureLedgerTableName);
  const signer = kmsSignerFor(config);
  return {
    config,
    depsFor: (invocation) => {
      const tries = publisherTries(config, invocation);
      return publisherDeps(tries, putEvents, requestReader(batchGet, config.requestsTableName, tries), readLedger, signer);
    },
  };
}
