import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EVENT_TYPES, PUBLISHED_EVENT_SCHEMAS, statusDecisionSchema } from '../../lib/api-model/event-schemas';
import { detailDigest, verifyEvent, type ReceivedEvent } from '../../lib/events/event-signature';
import { ASYNCAPI_PATH, buildAsyncApi } from '../../scripts/asyncapi';
import { exampleProblems } from '../../scripts/lint-asyncapi';
import { envelopeOf, PUBLISHED_SAMPLES, SAMPLES_JWKS, sampleEvent } from '../../scripts/local/published-samples';
import { at, jsonObject } from '../support/json';

const document: unknown = parse(readFileSync(ASYNCAPI_PATH, 'utf8'));
const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/** What a schema of the code says, as the description must say it: no $id, const as a one-value enum. */
const asPublished = (schema: object): unknown =>
  JSON.parse(
    JSON.stringify(schema, (key: string, value: unknown) => (key === '$id' ? undefined : value)).replace(
      /"const":("[^"]*")/g,
      '"enum":[$1]',
    ),
  );

describe('docs/asyncapi.yaml', () => {
  it('is what the builder makes from the code and the samples today (run npm run asyncapi after changing either)', () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(buildAsyncApi())));
  });

  it('describes each detail with the very schema the publisher and the consumer validate with, the signature included', () => {
    const schemas = at(document, 'components', 'schemas');
    expect(at(schemas, EVENT_TYPES.submitted)).toEqual(asPublished(PUBLISHED_EVENT_SCHEMAS[EVENT_TYPES.submitted]));
    expect(at(schemas, EVENT_TYPES.statusChanged)).toEqual(asPublished(PUBLISHED_EVENT_SCHEMAS[EVENT_TYPES.statusChanged]));
    expect(at(schemas, 'StatusDecision')).toEqual(asPublished(statusDecisionSchema));
    for (const name of [EVENT_TYPES.submitted, EVENT_TYPES.statusChanged]) expect(at(schemas, name, 'required')).toContain('signature');
  });

  it('sends the service events and receives the decision, on one channel', () => {
    const operations = jsonObject(at(document, 'operations'));
    expect(Object.values(operations).map((operation) => [at(operation, 'action'), at(operation, 'messages', 0, '$ref')])).toEqual([
      ['send', `#/channels/eventBus/messages/${EVENT_TYPES.submitted}`],
      ['send', `#/channels/eventBus/messages/${EVENT_TYPES.statusChanged}`],
      ['send', `#/channels/eventBus/messages/${EVENT_TYPES.erased}`],
      ['receive', '#/channels/eventBus/messages/StatusDecision'],
    ]);
  });

  it("has examples that validate against their message's payload, and would say so of one that does not", () => {
    expect(exampleProblems(document)).toEqual([]);
    const broken = JSON.parse(JSON.stringify(document).replace('"changedBy":"CUSTOMER"', '"changedBy":"SOMEONE"'));
    expect(exampleProblems(broken)).toEqual([expect.stringMatching(/^TerminationRequestStatusChanged example 1: .*changedBy/)]);
  });
});

describe('the published samples of events/', () => {
  const jwks = jsonObject(readJson(SAMPLES_JWKS));
  const keys = Array.isArray(jwks['keys']) ? jwks['keys'].map(jsonObject) : [];

  it.each(PUBLISHED_SAMPLES.map((sample) => [sample.file, sample] as const))(
    '%s is the event the publisher makes from its stream record, and its signature verifies',
    (file, sample) => {
      const received = jsonObject(readJson(file));
      const detail = jsonObject(received['detail']);
      const event = sampleEvent(sample);
      expect(received).toEqual(envelopeOf(sample.id, event, { ...event.detail, signature: detail['signature'] }));
      const asReceived: ReceivedEvent = { source: String(received['source']), 'detail-type': event.detailType, detail };
      expect(verifyEvent(asReceived, { keys })).toMatchObject({ ok: true, claims: { detailSha256: detailDigest(event.detail) } });
      expect(verifyEvent({ ...asReceived, detail: { ...detail, customerId: 'someone-else' } }, { keys }).ok).toBe(false);
    },
  );
});
