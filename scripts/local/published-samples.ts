import { readFileSync, writeFileSync } from 'node:fs';
import { EVENT_TYPES } from '../../lib/api-model/event-schemas';
import { signedDetail } from '../../lib/events/event-signature';
import { erasureClaimOf } from '../../lib/events/erasure-events';
import { streamOf } from '../../lib/events/publish-stream-records';
import { claimOf } from '../../lib/events/request-events';
import type { OutgoingEvent } from '../../lib/events/signed-entries';
import { jwksOf, keySigner, makeEventSigningKey } from './kms-stand-in';
import { LOCAL_ACCOUNT_ID } from './template-patterns';
import { streamEvent } from '../../tests/support/stream-events';

/*
 * The samples of the events the service publishes (events/published-*.json), as the back office
 * receives them from EventBridge: the envelope and the signed detail. Each is the event the
 * publisher makes from a stream sample of events/ (a test replays them through the real
 * publisher: tests/integration/lifecycle-samples.test.ts), signed with a key made for the run and
 * thrown away: its public half is events/published-samples-jwks.json. docs/asyncapi.yaml shows
 * them as its examples. npx tsx scripts/local/published-samples.ts writes them again.
 */

export const SAMPLES_JWKS = 'events/published-samples-jwks.json';
export const EVENT_SOURCE = 'bank.contract-termination';

/** Each sample: its file, the stream sample it comes from, and which of that sample's records. */
export const PUBLISHED_SAMPLES = [
  {
    file: 'events/published-submitted.json',
    detailType: EVENT_TYPES.submitted,
    stream: 'events/stream-request-created.json',
    record: 3,
    id: '8e3f1c2a-4b5d-4e6f-8a7b-9c0d1e2f3a4b',
  },
  {
    file: 'events/published-rejected.json',
    detailType: EVENT_TYPES.statusChanged,
    stream: 'events/stream-status-changed.json',
    record: 1,
    id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  },
  {
    file: 'events/published-withdrawn.json',
    detailType: EVENT_TYPES.statusChanged,
    stream: 'events/stream-withdrawn.json',
    record: 0,
    id: '6d7e8f90-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
  },
  {
    file: 'events/published-erased.json',
    detailType: EVENT_TYPES.erased,
    stream: 'events/stream-erasure-recorded.json',
    record: 0,
    id: '2c4e6a8b-0d1f-4e3a-8c5b-7d9e1f3a5b7c',
  },
] as const;

/** The event the publisher makes from the sample's stream record (the tables confirm it: the integration tests). */
export function sampleEvent(sample: (typeof PUBLISHED_SAMPLES)[number]): OutgoingEvent {
  const record = streamEvent(JSON.parse(readFileSync(sample.stream, 'utf8'))).Records[sample.record];
  const claim = record && (streamOf(record) === 'erasures' ? erasureClaimOf(record) : claimOf(record));
  if (claim === undefined) throw new Error(`${sample.stream} record ${sample.record} makes no event`);
  return claim.event;
}

/** EventBridge's envelope, as a rule's target receives it (time in whole seconds). */
export const envelopeOf = (id: string, event: OutgoingEvent, detail: Record<string, unknown>) => ({
  version: '0',
  id,
  'detail-type': event.detailType,
  source: EVENT_SOURCE,
  account: LOCAL_ACCOUNT_ID,
  time: new Date(event.time).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  region: 'eu-central-1',
  resources: [],
  detail,
});

if (import.meta.url === `file://${process.argv[1]}`) {
  const key = makeEventSigningKey();
  for (const sample of PUBLISHED_SAMPLES) {
    const event = sampleEvent(sample);
    const detail = await signedDetail(
      { source: EVENT_SOURCE, detailType: event.detailType, detail: event.detail },
      keySigner(key),
      new Date(event.time),
    );
    writeFileSync(sample.file, `${JSON.stringify(envelopeOf(sample.id, event, detail), null, 2)}\n`);
    console.log(`${sample.file} written (${event.detailType})`);
  }
  writeFileSync(SAMPLES_JWKS, `${JSON.stringify(jwksOf(key), null, 2)}\n`);
  console.log(`${SAMPLES_JWKS} written`);
}
