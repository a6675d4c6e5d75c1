import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry, type PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import type { PublisherConfig } from '../config';
import { localEndpoint } from './local-endpoint';

/** One PutEvents call: its result entries, in the order of the entries sent. */
export type PutEvents = (entries: PutEventsRequestEntry[]) => Promise<PutEventsResultEntry[]>;

/** PutEvents through one EventBridge client per function: call it once, at module load. */
export function putEventsFor(config: PublisherConfig): PutEvents {
  const client = new EventBridgeClient({
    region: config.eventBridge.region,
    // Retries are publishInOrder's, entry by entry; the SDK would resend the whole call.
    maxAttempts: 1,
    // A call that hangs must not eat the function's 60 s: it fails and is retried.
    requestHandler: { requestTimeout: 5000, connectionTimeout: 1000, throwOnRequestTimeout: true },
    ...localEndpoint(config.eventBridge.endpoint),
  });
  return async (entries) => (await client.send(new PutEventsCommand({ Entries: entries }))).Entries ?? [];
}
