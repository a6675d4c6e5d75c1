import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { signatureOver } from './decision-event';

/*
 * npx tsx scripts/local/sign-samples.ts: signs the decisions of events/ (decision-*.json) again
 * with the local back office's key, after one of them was edited, as docs/events.md tells the
 * back office to sign: every signed field exactly as the detail has it, malformed ones too (so
 * the malformed sample is refused for its detail, not its signature). iat is the event's time,
 * or, where that is no time, the moment the samples were first signed: the output is the same on
 * every run. tests/integration/lifecycle-samples.test.ts replays them.
 */

const FIRST_SIGNED_AT = Date.parse('2026-11-24T00:00:00Z');
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const dir = new URL('../../events/', import.meta.url);
for (const file of readdirSync(dir).filter((name) => /^decision-.*\.json$/.test(name))) {
  const url = new URL(file, dir);
  const event: unknown = JSON.parse(readFileSync(url, 'utf8'));
  if (!isRecord(event) || !isRecord(event['detail'])) throw new Error(`${file}: not an EventBridge event with a detail`);
  const { detail } = event;
  const time = Date.parse(String(event['time']));
  detail['signature'] = signatureOver(detail, { issuedAt: new Date(Number.isNaN(time) ? FIRST_SIGNED_AT : time) }, String(event['source']));
  writeFileSync(url, `${JSON.stringify(event, null, 2)}\n`);
  console.log(`signed ${file}`);
}
