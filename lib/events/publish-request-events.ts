import { isDeepStrictEqual } from 'node:util';
import type { DynamoDBRecord } from 'aws-lambda';
import { isUuid } from '../api-model/validator';
import { budgetSignal, RETRY, triesBy, type Invocation, type Tries } from '../retry';
import type { PublisherConfig } from '../config';
import { isTransientAwsError } from '../aws/transient-errors';
import type { ReadLedger } from '../dynamodb/erasure-ledger';
import type { Item } from '../dynamodb/items';
import { requestHistoryOf } from '../dynamodb/request-item';
import type { ReadRequests, RequestIds, StoredRequests } from '../dynamodb/request-reads';
import { MalformedItemError } from '../termination/ports/errors';
import type { RequestHistory } from '../termination/ports/request-history';
import { isStatus, type Status } from '../api-model/schemas';
import { publishInOrder, reasonOf, type PublishDeps, type PublishResult } from './publish-batches';
import type { RecordIds } from './record-copies';
import { claimOf, eventsOf, statusChangedEventOf, submittedEventOf, type Claim, type RequestEvent } from './request-events';
import type { SigningDeps } from './sign-events';
import { signedEntries, type EntryConfig } from './signed-entries';
import { claimsOf, sendConfirmed } from './stream-claims';

/*
 * The stream's records out as events (docs/decisions/0017-lifecycle.md). The publisher speaks for
 * the service, so it publishes only what the requests table confirms, whoever handed it the
 * records (the stream, a redrive, a direct invoke): each record's claim is checked against the
 * request item, read consistently in one BatchGetItem for the whole batch, and the event sent is
 * the one rebuilt from the table. A record the table does not confirm (no such request, a
 * transition the request never made, other content) publishes nothing and is reported, by ids
 * only; a genuine record handed again publishes the same event, with the same eventId, however
 * far the request has moved since. Events go out in stream order, one PutEvents entry each.
 */

/** The batch's first record could not be published: the stream must bisect the batch. */
export class PublishFailedError extends Error {
  constructor(reason: string) {
    super(`The batch's first record could not be published: ${reason}`);
    this.name = 'PublishFailedError';
  }
}

/** The metric that counts records the table did not confirm; an alarm watches it (resources/monitoring.yml). */
export const UNCONFIRMED_RECORDS_METRIC = 'UnconfirmedRecords';

/**
 * Why the tables do not confirm a record: a request record's (the request item), or an erasure
 * ledger record's (publish-erasure-events.ts: the ledger's entry, and the request item that must be gone).
 */
export type UnconfirmedReason = 'no-such-request' | 'no-such-transition' | 'other-content' | 'no-such-erasure' | 'request-still-there';

/** A record the table did not confirm: what the log says of it, ids and names only (never a value a customer wrote). */
export interface UnconfirmedRecord {
  sequenceNumber: string;
  requestId: string;
  contractId: string;
  detailType: string;
  /** The status the record claims the request moved to; an erasure claims none. */
  status?: string;
  why: UnconfirmedReason;
  /** The event's fields whose values the table holds otherwise, by name. */
  fields: string[];
}

export interface StreamPublishResult extends PublishResult {
  /** Records that mean no event (slots, keys, numbers, removals, changes that keep the status). */
  skipped: number;
  unconfirmed: UnconfirmedRecord[];
  /** DynamoDB calls made to confirm the batch: one BatchGetItem, or none when no record claims an event. */
  reads: number;
  /** Confirmed records handed again in the batch (record-copies.ts): published once, these left out. */
  copies: RecordIds[];
}

export interface PublisherDeps extends PublishDeps {
  readRequests: ReadRequests;
  /** The erasure ledger, read entry by entry (lib/events/publish-erasure-events.ts). */
  readLedger: ReadLedger;
  signer: SigningDeps['signer'];
}

/**
 * The publisher's tries in one invocation (lib/retry.ts), for its reads of the table, its signings
 * and its PutEvents calls alike: PUBLISH_MAX_ATTEMPTS each, their pauses ended when the invocation
 * has only RESERVE_MS left, so that what is not published goes back to the stream before Lambda's
 * timeout would end the invocation mid-batch.
 */
export function publisherTries(config: Pick<PublisherConfig, 'maxAttempts'>, invocation: Invocation): Tries {
  return triesBy({ ...RETRY.publisher, maxAttempts: config.maxAttempts }, budgetSignal(undefined, invocation.remainingMs()));
}

export function publisherDeps(
  tries: Tries,
  putEvents: PublishDeps['putEvents'],
  readRequests: ReadRequests,
  readLedger: ReadLedger,
  signer: SigningDeps['signer'],
): PublisherDeps {
  return { putEvents, readRequests, readLedger, signer, ...tries, isTransient: isTransientAwsError };
}

type Config = EntryConfig;

/** The table's own version of the event a claim names, or why there is none. */
function truthOf(claim: Claim, stored: RequestHistory | undefined): RequestEvent | 'no-such-request' | 'no-such-transition' {
  if (stored === undefined) return 'no-such-request';
  const claimed = claim.event;
  if (claimed.detailType === 'TerminationRequestSubmitted') return submittedEventOf(stored);
  const change = stored.changes.find((c) => c.status === claimed.detail.status && c.previousStatus === claimed.detail.previousStatus);
  return change === undefined ? 'no-such-transition' : statusChangedEventOf(stored, change);
}

/** The names of the fields two events differ in. */
function differences(claimed: RequestEvent, truth: RequestEvent): string[] {
  const a: Record<string, unknown> = { detailType: claimed.detailType, time: claimed.time, ...claimed.detail };
  const b: Record<string, unknown> = { detailType: truth.detailType, time: truth.time, ...truth.detail };
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((name) => !isDeepStrictEqual(a[name], b[name])).sort();
}

/** A claim's request item as the batch's read found it (undefined: none), or why it stays unread, where the batch stops. */
export function storedItemOf(
  stored: StoredRequests | { error: string },
  request: RequestIds,
): { item: Item | undefined } | { unread: string } {
  if ('error' in stored) return { unread: stored.error };
  const item = stored.itemOf(request);
  return item === 'unread' ? { unread: `the requests table left request ${request.requestId} unread` } : { item };
}

/** Reads the batch's requests, or says why it could not. */
export async function readAll(readRequests: ReadRequests, claims: { request: RequestIds }[]): Promise<StoredRequests | { error: string }> {
  if (claims.length === 0) return { calls: 0, itemOf: () => undefined };
  try {
    return await readRequests(claims.map((claim) => claim.request));
  } catch (error) {
    return { error: `the requests table could not be read: ${reasonOf(error)}` };
  }
}

export async function publishRequestEvents(records: DynamoDBRecord[], config: Config, deps: PublisherDeps): Promise<StreamPublishResult> {
  const { claims, skipped, failed: unreadable } = claimsOf(records, claimOf);
  let failed = unreadable;
  const stored = await readAll(
    deps.readRequests,
    claims.map(({ claim }) => claim),
  );
  const confirmed: (RecordIds & { event: RequestEvent })[] = [];
  const unconfirmed: UnconfirmedRecord[] = [];
  for (const { sequenceNumber, eventId, claim } of claims) {
    const read = storedItemOf(stored, claim.request);
    if ('unread' in read) {
      failed = { sequenceNumber, reason: read.unread };
      break;
    }
    const { item } = read;
    let truth;
    try {
      truth = truthOf(claim, item === undefined ? undefined : requestHistoryOf(item));
    } catch (error) {
      if (!(error instanceof MalformedItemError)) throw error;
      failed = { sequenceNumber, reason: `the stored request cannot be published: ${error.message}` };
      break;
    }
    const fields = typeof truth === 'string' ? [] : differences(claim.event, truth);
    if (typeof truth === 'string' || fields.length > 0) {
      unconfirmed.push({
        sequenceNumber,
        ...claim.request,
        detailType: claim.event.detailType,
        status: claim.event.detail.status,
        why: typeof truth === 'string' ? truth : 'other-content',
        fields,
      });
      continue;
    }
    confirmed.push({ sequenceNumber, eventId, event: truth });
  }
  const reads = 'error' in stored ? 1 : stored.calls;
  return { ...(await sendConfirmed(confirmed, config, deps, failed)), skipped, unconfirmed, reads };
}

/**
 * What `npm run republish` hands the publisher (docs/operations.md): a request, by its ids, and
 * optionally the one status whose event is wanted. The publisher reads the request and sends its
 * events as the table records them; nothing in the command is published.
 */
export interface RepublishCommand {
  republish: RequestIds & { status?: Status };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isRepublishCommand(value: unknown): value is RepublishCommand {
  if (!isObject(value) || Object.keys(value).length !== 1 || !isObject(value['republish'])) return false;
  const { contractId, requestId, status, ...others } = value['republish'];
  return isUuid(contractId) && isUuid(requestId) && (status === undefined || isStatus(status)) && Object.keys(others).length === 0;
}

export interface RepublishResult {
  /** The events sent, in the order the request made them. */
  events: { detailType: string; status: string; eventId: string }[];
  reads: number;
  calls: number;
}

/** The command cannot be carried out: nothing, or not all, was published. */
export class RepublishError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RepublishError';
  }
}

/** Sends again the events of one request, or of one of its statuses, as rebuilt from its item. */
export async function republishRequest(command: RepublishCommand, config: Config, deps: PublisherDeps): Promise<RepublishResult> {
  const { status, ...ids } = command.republish;
  const stored = await deps.readRequests([ids]);
  const item = stored.itemOf(ids);
  if (item === 'unread') throw new RepublishError(`The requests table left request ${ids.requestId} unread: try again`);
  const request = item === undefined ? undefined : requestHistoryOf(item);
  if (request === undefined) throw new RepublishError(`No request ${ids.requestId} on contract ${ids.contractId}`);
  const events = eventsOf(request).filter((event) => status === undefined || event.detail.status === status);
  if (events.length === 0) throw new RepublishError(`Request ${ids.requestId} never reached ${String(status)}`);
  const signing = await signedEntries(
    events.map((event) => ({ sequenceNumber: event.detail.eventId, event })),
    config,
    deps,
  );
  const result = await publishInOrder(signing.pending, deps);
  if (signing.failed !== undefined && result.failed === undefined)
    throw new RepublishError(`${result.published} of ${events.length} published, then: ${signing.failed.reason}`);
  if (result.failed !== undefined)
    throw new RepublishError(`${result.published} of ${events.length} published, then: ${result.failed.reason}`);
  return {
    events: events.map((event) => ({ detailType: event.detailType, status: event.detail.status, eventId: event.detail.eventId })),
    reads: stored.calls,
    calls: result.calls,
  };
}
