import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { loadDecisionConfig, loadPublisherConfig } from '../lib/config';
import {
  EVENT_SIGNING_KEYS_CACHE_CONTROL,
  EVENT_SIGNING_KEYS_CONTENT_TYPE,
  EVENT_SIGNING_KEYS_OBJECT_KEY,
} from '../lib/events/event-signing-keys';
import { EVENT_SIGNATURE_ALGORITHM } from '../lib/events/event-signature';
import { EVENT_TYPES, PUBLISHED_EVENT_SCHEMAS, statusDecisionSchema } from '../lib/api-model/event-schemas';
import { PUBLISHED_SAMPLES } from './local/published-samples';

/*
 * The AsyncAPI 3.0 description of the events (docs/asyncapi.yaml), built from the very JSON
 * Schemas the publisher and the consumer validate with (lib/api-model/event-schemas.ts) and the
 * sample events of events/ as its examples. The bus is the channel; the service sends
 * TerminationRequestSubmitted and TerminationRequestStatusChanged, and receives the back office's
 * signed decision. npm run asyncapi writes it; a test fails when the file and this builder
 * disagree, npm run lint:api validates it with @asyncapi/parser, and docs/events.md is generated
 * from it (scripts/events-doc.ts). Written for generators (tests/generators/event-models.test.ts):
 * `const` is a one-value enum, as in docs/openapi.yaml.
 */

export const ASYNCAPI_PATH = 'docs/asyncapi.yaml';

/** The sources the code defaults to (EVENT_SOURCE, DECISION_SOURCE): what the description names. */
export function eventSources(): { service: string; backOffice: string } {
  const service = loadPublisherConfig({
    REQUESTS_TABLE_NAME: 'x',
    ERASURE_LEDGER_TABLE_NAME: 'x',
    EVENT_BUS_NAME: 'x',
    EVENT_SIGNING_KEY_ID: 'x',
  }).eventSource;
  const backOffice = loadDecisionConfig({
    REQUESTS_TABLE_NAME: 'x',
    DECISION_ACCOUNT_ID: '123456789012',
    DECISION_DEAD_LETTER_QUEUE_URL: 'https://x.example',
    DECISION_JWKS_URI: 'https://x.example',
  }).decisionSource;
  return { service, backOffice };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema of the code as the description publishes it: `$id` dropped, `const` a one-value enum. */
function publish(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(publish);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    if (key === 'const') out['enum'] = [value];
    else out[key] = publish(value);
  }
  return out;
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/** EventBridge's envelope around a detail, as a rule's target receives it. */
function envelope(source: string, detailType: string, detail: string, description: string) {
  return {
    type: 'object',
    description,
    required: ['version', 'id', 'detail-type', 'source', 'account', 'time', 'region', 'resources', 'detail'],
    properties: {
      version: { type: 'string', enum: ['0'] },
      id: {
        type: 'string',
        format: 'uuid',
        description: "EventBridge's id of this delivery: new on every delivery. De-duplicate on the detail's eventId instead.",
      },
      'detail-type': { type: 'string', enum: [detailType] },
      source: { type: 'string', enum: [source] },
      account: { type: 'string', pattern: '^[0-9]{12}$', description: 'The AWS account that put the event on the bus.' },
      time: { type: 'string', format: 'date-time', description: 'When the event happened, in whole seconds (UTC).' },
      region: { type: 'string', minLength: 1, maxLength: 64 },
      resources: { type: 'array', maxItems: 0, items: { type: 'string' } },
      detail: { $ref: `#/components/schemas/${detail}` },
    },
  };
}

const SERVICE_SIGNATURE = `Every event the service sends carries \`detail.signature\`: a compact JWS (${EVENT_SIGNATURE_ALGORITHM}) made by the stage's asymmetric KMS key (ECC_NIST_P256), whose claims are \`iss\` (the source), \`iat\`, \`detailType\` and \`detailSha256\`, the base64url SHA-256 of the detail's RFC 8785 canonical form without \`signature\`. Check it with the stage's public keys before acting on the event: a back office that does needs to trust nothing between the service and itself (docs/events.md, Verifying an event; docs/examples/verify-event.mjs). The public keys are one JWKS (\`${EVENT_SIGNING_KEYS_CONTENT_TYPE}\`, \`Cache-Control: ${EVENT_SIGNING_KEYS_CACHE_CONTROL}\`), the key that signs first and each earlier key for the events' retention, at \`s3://<EventSigningKeysBucket>/${EVENT_SIGNING_KEYS_OBJECT_KEY}\` (a stack output), readable by the back office's role; a \`kid\` the document lacks verifies nothing.`;

const BACK_OFFICE_SIGNATURE =
  "The back office signs each decision: `detail.signature` is a compact JWS (RS256, ES256 or EdDSA families; never HMAC, never `none`) by a key of the back office's JWKS, whose claims repeat every other field of the detail exactly, plus `iss` and `iat` and never `exp` (docs/events.md, Signing a decision; docs/examples/sign-decision.mjs). The service applies no decision it cannot verify itself.";

export function buildAsyncApi(): Record<string, unknown> {
  const sources = eventSources();
  const sample = (file: string, name: string, summary: string) => ({ name, summary, payload: readJson(file) });
  const [submitted, rejected, withdrawn, erased] = PUBLISHED_SAMPLES;
  const message = (name: string, title: string, summary: string, description: string, examples: unknown[]) => ({
    name,
    title,
    summary,
    description,
    contentType: 'application/json',
    payload: { $ref: `#/components/schemas/${name}Event` },
    examples,
  });
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Contract termination: events',
      version: '1.0.0',
      description: [
        "The events of the early-termination service on the stage's EventBridge bus: what the service tells the bank's back office (a request was created; a request's status changed) and the decision the back office sends in. Every payload is the EventBridge event as a rule's target receives it: the envelope, and the `detail` this service defines.",
        '',
        "Delivery is at least once and in no order: de-duplicate on `detail.eventId`, never on the envelope `id`; order a request's events by its statuses (docs/events.md, Delivery).",
        '',
        `**Signed both ways.** ${SERVICE_SIGNATURE} ${BACK_OFFICE_SIGNATURE}`,
        '',
        'Fields marked `x-personal-data: true` identify a customer or hold what a person wrote (docs/data-protection.md). Text fields are plain text passed on as written: escape them wherever they are shown.',
      ].join('\n'),
      contact: { name: 'Contract termination service team' },
      license: { name: 'Proprietary' },
    },
    defaultContentType: 'application/json',
    servers: {
      eventbridge: {
        host: 'events.{region}.amazonaws.com',
        protocol: 'https',
        title: 'Amazon EventBridge',
        description:
          "The stage's event bus, reached through EventBridge's API (PutEvents to send) and its rules (to receive). Access is by IAM: the bus policy lets the service's publisher alone send with the service's source, and the back office's account send decisions.",
        variables: { region: { default: 'eu-central-1', description: "The stage's AWS region." } },
      },
    },
    channels: {
      eventBus: {
        address: 'contract-termination-{stage}-events',
        title: 'The event bus',
        description:
          "One bus per stage carries both directions (EVENT_BUS_NAME; the stack makes this one unless CREATE_EVENT_BUS=false names a bus that exists). A rule selects by `source` and `detail-type`: the service's events have source `" +
          sources.service +
          "`, the back office's decisions `" +
          sources.backOffice +
          '`.',
        servers: [{ $ref: '#/servers/eventbridge' }],
        parameters: { stage: { description: 'The deployed stage (dev, test, prod).' } },
        messages: {
          [EVENT_TYPES.submitted]: { $ref: `#/components/messages/${EVENT_TYPES.submitted}` },
          [EVENT_TYPES.statusChanged]: { $ref: `#/components/messages/${EVENT_TYPES.statusChanged}` },
          [EVENT_TYPES.erased]: { $ref: `#/components/messages/${EVENT_TYPES.erased}` },
          StatusDecision: { $ref: '#/components/messages/StatusDecision' },
        },
      },
    },
    operations: {
      sendTerminationRequestSubmitted: {
        action: 'send',
        title: 'A request was created',
        summary: 'Published once per created request, with what the back office needs to act on it.',
        channel: { $ref: '#/channels/eventBus' },
        messages: [{ $ref: `#/channels/eventBus/messages/${EVENT_TYPES.submitted}` }],
      },
      sendTerminationRequestStatusChanged: {
        action: 'send',
        title: "A request's status changed",
        summary: 'Published once per applied status change: a decision of the back office, or the customer withdrawing the request.',
        channel: { $ref: '#/channels/eventBus' },
        messages: [{ $ref: `#/channels/eventBus/messages/${EVENT_TYPES.statusChanged}` }],
      },
      sendTerminationRequestErased: {
        action: 'send',
        title: 'A request was erased',
        summary:
          "Published once per request erased at the customer's request (npm run erase, by the data-protection officer's operator): ids and a time only. Erase your copy of the request.",
        channel: { $ref: '#/channels/eventBus' },
        messages: [{ $ref: `#/channels/eventBus/messages/${EVENT_TYPES.erased}` }],
      },
      receiveStatusDecision: {
        action: 'receive',
        title: 'The back office decides',
        summary: "The back office's signed decision on a request: the service applies it if the request may move to that status.",
        channel: { $ref: '#/channels/eventBus' },
        messages: [{ $ref: '#/channels/eventBus/messages/StatusDecision' }],
      },
    },
    components: {
      messages: {
        [EVENT_TYPES.submitted]: message(
          EVENT_TYPES.submitted,
          'Termination request submitted',
          'A customer created a termination request.',
          SERVICE_SIGNATURE,
          [sample(submitted.file, 'submitted', `${submitted.file}: the request of the samples, as created`)],
        ),
        [EVENT_TYPES.statusChanged]: message(
          EVENT_TYPES.statusChanged,
          'Termination request status changed',
          "A request's status changed.",
          SERVICE_SIGNATURE,
          [
            sample(rejected.file, 'rejected', `${rejected.file}: the back office rejected it, with its reason`),
            sample(withdrawn.file, 'withdrawn', `${withdrawn.file}: the customer withdrew it`),
          ],
        ),
        [EVENT_TYPES.erased]: message(
          EVENT_TYPES.erased,
          'Termination request erased',
          'The service erased a final request and everything that named it, at the customer’s request.',
          SERVICE_SIGNATURE,
          [sample(erased.file, 'erased', `${erased.file}: the withdrawn request of the samples, erased`)],
        ),
        StatusDecision: message(
          'StatusDecision',
          "The back office's decision",
          'The back office moves a request to a status (detail-type TerminationRequestStatusChanged, its own source).',
          BACK_OFFICE_SIGNATURE,
          [sample('events/decision-rejected.json', 'rejected', 'events/decision-rejected.json: a rejection with its reason')],
        ),
      },
      schemas: {
        [`${EVENT_TYPES.submitted}Event`]: envelope(
          sources.service,
          EVENT_TYPES.submitted,
          EVENT_TYPES.submitted,
          'A TerminationRequestSubmitted event as the back office receives it.',
        ),
        [`${EVENT_TYPES.statusChanged}Event`]: envelope(
          sources.service,
          EVENT_TYPES.statusChanged,
          EVENT_TYPES.statusChanged,
          "The service's TerminationRequestStatusChanged event as the back office receives it.",
        ),
        [`${EVENT_TYPES.erased}Event`]: envelope(
          sources.service,
          EVENT_TYPES.erased,
          EVENT_TYPES.erased,
          'A TerminationRequestErased event as the back office receives it.',
        ),
        StatusDecisionEvent: envelope(
          sources.backOffice,
          EVENT_TYPES.statusChanged,
          'StatusDecision',
          "The back office's decision as the service receives it.",
        ),
        [EVENT_TYPES.submitted]: publish(PUBLISHED_EVENT_SCHEMAS[EVENT_TYPES.submitted]),
        [EVENT_TYPES.statusChanged]: publish(PUBLISHED_EVENT_SCHEMAS[EVENT_TYPES.statusChanged]),
        [EVENT_TYPES.erased]: publish(PUBLISHED_EVENT_SCHEMAS[EVENT_TYPES.erased]),
        StatusDecision: publish(statusDecisionSchema),
      },
    },
  };
}

export function asyncApiYaml(): string {
  return stringify(buildAsyncApi(), { lineWidth: 0, aliasDuplicateObjects: false });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(ASYNCAPI_PATH, asyncApiYaml());
  console.log(`${ASYNCAPI_PATH} written`);
}
