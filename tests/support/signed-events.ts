import { verifyEvent } from '../../lib/events/event-signature';
import type { AwsStandIn, PublishedEvent } from '../../scripts/local/aws-stand-in';
import { jsonObject } from './json';

/**
 * The events the stand-in's bus took, each after its signature verified with the stand-in's KMS
 * key as the back office verifies it, and with the signature left out: what was signed. An event
 * that does not verify fails the test, naming why.
 */
export function verifiedEvents(standIn: AwsStandIn): PublishedEvent[] {
  return standIn.events.map((event) => {
    const detail = jsonObject(event.detail);
    const verdict = verifyEvent({ source: event.source, 'detail-type': event.detailType, detail }, standIn.kms.jwks);
    if (!verdict.ok) throw new Error(`${event.detailType} ${String(detail['eventId'])}: ${verdict.why}`);
    const { signature: _signature, ...signed } = detail;
    return { ...event, detail: signed };
  });
}
