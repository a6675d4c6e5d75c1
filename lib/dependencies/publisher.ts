import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createDocumentClient } from '../aws/dynamodb-client';
import { createStreamsClient, streamRangeReader, tableStreamLister } from '../aws/dynamodb-streams';
import { putEventsFor } from '../aws/eventbridge-client';
import { kmsSignerFor } from '../aws/kms-signer';
import { loadPublisherConfig, type PublisherConfig } from '../config';
import { ledgerReader } from '../dynamodb/erasure-ledger';
import { batchGetFor, requestReader } from '../dynamodb/request-reads';
import { publisherDeps, publisherTries, type PublisherDeps } from '../events/publish-request-events';
import { redriveStreamBatch, type StreamRedriveResult } from '../events/stream-redrive';
import type { Invocation } from '../retry';

/** One invocation's: what it publishes with, and the redrive of a batch, which hands what it reads to `publish`. */
export interface PublisherInvocation {
  deps: PublisherDeps;
  redriveBatch: (command: unknown, publish: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>) => Promise<StreamRedriveResult>;
}

export interface Publisher {
  config: PublisherConfig;
  /** What one invocation publishes and redrives with: the clients of the cold start, and tries that end with the invocation's time. */
  forInvocation: (invocation: Invocation) => PublisherInvocation;
}

/**
 * The stream publisher's, built once per cold start as the routes' are (routes.ts): its
 * configuration, what it publishes with, and its own streams client and tables for a redrive.
 */
export function publisherDependencies(): Publisher {
  const config = loadPublisherConfig();
  const dynamodb = createDocumentClient(config.dynamodb);
  const batchGet = batchGetFor(dynamodb);
  const putEvents = putEventsFor(config);
  const readLedger = ledgerReader(dynamodb, config.erasureLedgerTableName);
  const signer = kmsSignerFor(config);
  const streams = createStreamsClient(config.dynamodb);
  const redrive = { tables: config.streamTables, listStreams: tableStreamLister(streams), readRange: streamRangeReader(streams) };
  return {
    config,
    forInvocation: (invocation) => {
      const tries = publisherTries(config, invocation);
      return {
        deps: publisherDeps(tries, putEvents, requestReader(batchGet, config.requestsTableName, tries), readLedger, signer),
        redriveBatch: (command, publish) => redriveStreamBatch(command, { ...redrive, tries, publish }),
      };
    },
  };
}
