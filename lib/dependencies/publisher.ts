import { createDocumentClient } from '../aws/dynamodb-client';
import { putEventsFor } from '../aws/eventbridge-client';
import { kmsSignerFor } from '../aws/kms-signer';
import { loadPublisherConfig, type PublisherConfig } from '../config';
import { ledgerReader } from '../dynamodb/erasure-ledger';
import { batchGetFor, requestReader } from '../dynamodb/request-reads';
import { publisherDeps, publisherRetry, type PublisherDeps } from '../events/publish-request-events';

/** The stream publisher's, built once per cold start as the routes' are (routes.ts): its configuration and what it publishes with. */
export function publisherDependencies(): { config: PublisherConfig; deps: PublisherDeps } {
  const config = loadPublisherConfig();
  const dynamodb = createDocumentClient(config.dynamodb);
  const readRequests = requestReader(batchGetFor(dynamodb), config.requestsTableName, publisherRetry(config));
  return {
    config,
    deps: publisherDeps(
      config,
      putEventsFor(config),
      readRequests,
      ledgerReader(dynamodb, config.erasureLedgerTableName),
      kmsSignerFor(config),
    ),
  };
}
