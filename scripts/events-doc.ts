import { readFileSync, writeFileSync } from 'node:fs';
import { supportedSignatureAlgorithms } from 'aws-jwt-verify/jwt-verifier';
import { MAX_SIGNATURE_BYTES } from '../lib/auth/decision-signature';
import { loadDecisionConfig } from '../lib/config';
import { at, templateFile } from './local/template-file';
import { FINAL_STATUSES, mayMove } from '../lib/termination/lifecycle';
import { DECISION_SIGNED_FIELDS, ESCAPE_ON_OUTPUT, EVENT_TYPES } from '../lib/api-model/event-schemas';
import { STATUSES } from '../lib/api-model/schemas';
import { EVENT_SIGNATURE_ALGORITHM } from '../lib/events/event-signature';
import { buildAsyncApi } from './asyncapi';
import { EVENT_MODELS_PACKAGE } from './event-models';
import {
  EVENT_SIGNING_KEYS_CACHE_CONTROL,
  EVENT_SIGNING_KEYS_CONTENT_TYPE,
  EVENT_SIGNING_KEYS_MAX_AGE_SECONDS,
  EVENT_SIGNING_KEYS_OBJECT_KEY,
  EVENT_SIGNING_KEYS_PATH,
} from '../lib/events/event-signing-keys';
import { PUBLISHED_SAMPLES } from './local/published-samples';

/*
 * npm run docs:events: writes docs/events.md from docs/asyncapi.yaml's builder (scripts/asyncapi.ts),
 * whose schemas are those the consumer and the publisher validate with: the field tables are
 * read from the description, which holds the schemas themselves. A unit test fails when the file
 * and the description disagree.
 */

export const EVENTS_DOC = 'docs/events.md';

interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  personal: boolean;
  /** Text passed on as written, which whoever shows it must escape. */
  escape: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function typeOf(schema: Record<string, unknown>): string {
  if (Array.isArray(schema['enum'])) return schema['enum'].map(String).join(' \\| ');
  if (schema['const'] !== undefined) return JSON.stringify(schema['const']);
  const format = typeof schema['format'] === 'string' ? ` (${schema['format']})` : '';
  if (schema['type'] === 'array' && isObject(schema['items'])) return `array of ${typeOf(schema['items'])}`;
  return `${String(schema['type'])}${format}`;
}

/** Every field of a schema, nested objects flattened to dotted paths. */
function fieldRows(schema: unknown, prefix = ''): FieldRow[] {
  if (!isObject(schema) || !isObject(schema['properties'])) return [];
  const required = Array.isArray(schema['required']) ? schema['required'].map(String) : [];
  return Object.entries(schema['properties']).flatMap(([name, property]) => {
    if (!isObject(property)) return [];
    const path = `${prefix}${name}`;
    const description = typeof property['description'] === 'string' ? property['description'] : '';
    const row = {
      path,
      type: typeOf(property),
      required: required.includes(name),
      personal: property['x-personal-data'] === true,
      escape: description.includes(ESCAPE_ON_OUTPUT),
    };
    return property['type'] === 'object' ? [row, ...fieldRows(property, `${path}.`)] : [row];
  });
}

function fieldTable(schema: unknown): string {
  const rows = fieldRows(schema).map(
    (row) => `| \`${row.path}\` | ${row.type} | ${row.required ? 'yes' : 'no'} | ${row.personal ? '**personal data**' : ''} |`,
  );
  return ['| field | type | required | personal data |', '|---|---|---|---|', ...rows].join('\n');
}

/** The fields whose description says they are text to escape where shown. */
export function textFields(schema: unknown): string[] {
  return fieldRows(schema)
    .filter((row) => row.escape)
    .map((row) => row.path);
}

const codeList = (paths: string[]) => paths.map((path) => `\`${path}\``).join(', ');

/** A detail's schema as docs/asyncapi.yaml describes it, by its name there. */
export function describedSchema(name: string): unknown {
  const components = buildAsyncApi()['components'];
  const schemas = isObject(components) ? components['schemas'] : undefined;
  return isObject(schemas) ? schemas[name] : undefined;
}

/** Where the description holds a detail's schema, and its samples. */
const schemaLink = (name: string, samples: string[]) =>
  `The schema: [\`asyncapi.yaml\`](asyncapi.yaml), \`components.schemas.${name}\` (the envelope around it: \`${name}Event\`). ${samples.length === 1 ? 'Sample' : 'Samples'}: ${samples.map((file) => `[\`${file}\`](../${file})`).join(', ')}.`;

function transitionTable(): string {
  const header = `| from \\ to | ${STATUSES.join(' | ')} |`;
  const rows = STATUSES.map((from) => `| ${from} | ${STATUSES.map((to) => (mayMove(from, to) ? 'yes' : '')).join(' | ')} |`);
  return [header, `|---|${STATUSES.map(() => '---').join('|')}|`, ...rows].join('\n');
}

/** The example the back-office team runs, shown as it is in the repository (a test runs it). */
export const SIGNING_EXAMPLE = 'docs/examples/sign-decision.mjs';

/** How the back office signs a decision: algorithm, claims, lifetime, rotation, from the code and the template. */
function signingSection(): string {
  const { signatures } = loadDecisionConfig({
    REQUESTS_TABLE_NAME: 'x',
    DECISION_ACCOUNT_ID: '123456789012',
    DECISION_DEAD_LETTER_QUEUE_URL: 'https://x.example',
    DECISION_JWKS_URI: 'https://x.example',
  });
  const events = templateFile('events.yml');
  const retentionDays = Number(at(events, 'Resources', 'DecisionDeadLetterQueue', 'Properties', 'MessageRetentionPeriod')) / 86_400;
  const ruleHours =
    Number(at(events, 'Resources', 'DecisionRule', 'Properties', 'Targets', 0, 'RetryPolicy', 'MaximumEventAgeInSeconds')) / 3600;
  const keepDays = retentionDays + Math.ceil(ruleHours / 24);
  const fields = DECISION_SIGNED_FIELDS.map((field) => `\`${field}\``).join(', ');
  return `## Signing a decision

The consumer applies a decision only when the back office signed it, and checks that itself
whatever path brought the decision (the rule, a redrive of the dead-letter queue, a direct
invoke): the bus, rule and queue policies keep others out, the signature proves the author. A
decision without a valid signature is refused to the dead-letter queue (\`unauthenticated\`), and
nothing moves. There is no setting that turns this off, on any stage.

**The signature** is the detail's \`signature\` field: a compact JWS (RFC 7515), what JWT
libraries call a signed JWT, at most ${MAX_SIGNATURE_BYTES} bytes.

- Header: \`alg\` one of ${supportedSignatureAlgorithms.map((alg) => `\`${alg}\``).join(', ')} (never \`none\`, never HMAC);
  \`kid\` the id of the signing key in the back office's JWKS (1 to 128 printable ASCII characters,
  no space); no \`crit\`. \`typ\` may be \`JWT\` or absent.
- Claims: \`iss\`, the decisions' source (\`bank.back-office\`, \`DECISION_SOURCE\`); \`iat\`, when it
  was signed, in seconds, at most ${signatures.clockSkewSeconds} s (\`JWT_CLOCK_SKEW_SECONDS\`) ahead of the consumer's clock;
  and ${fields}, each exactly as the detail carries it (the same string, the same case; a
  \`reason\` the detail lacks is absent from the claims too). \`nbf\` may be set; other claims are
  ignored. A claim that differs from the detail's field refuses the decision, naming the field:
  a signature covers one decision of one request, never another's, and no field can be changed
  after signing.
- **No \`exp\`**: a signature with \`exp\` is refused. A decision may wait in the dead-letter queue
  (${retentionDays} days) and must still apply when it is redriven, so its lifetime is its key's life in
  the JWKS, not a time in the token. Sending a signed decision again is harmless: its \`eventId\`
  applies once, and no status moves back.

**The keys** are the back office's own: an RSA (or EC, or Ed25519) key pair per signing key, the
public keys published as a JWKS on an HTTPS URL that the service's team sets as
\`DECISION_JWKS_URI\` for each stage (a deployed stage cannot be packaged without it). The consumer
fetches the JWKS again when its copy is ${signatures.jwksTtlSeconds} s old (\`JWKS_TTL_SECONDS\`), and for a \`kid\` it does not
know at most every ${signatures.jwksMinRefetchSeconds} s (\`JWKS_MIN_REFETCH_SECONDS\`), the same rules as for customer tokens
([0003-authentication.md](decisions/0003-authentication.md)).

- Rotation: publish the new key at least ${signatures.jwksMinRefetchSeconds} s before signing with it (a decision signed with
  a key the consumer has not fetched yet is refused to the dead-letter queue; a redrive applies
  it once the key is fetched). Keep a retired key published for at least ${keepDays} days after its last
  signature (the dead-letter queue keeps a decision ${retentionDays} days, and EventBridge retries a
  delivery for up to ${ruleHours} hours before that), then remove it: its signatures stop verifying within
  ${signatures.jwksTtlSeconds} s.
- A leaked key: remove it from the JWKS at once. Decisions it signed that were not applied yet are
  then refused; sign them again with a new key and send them again (same \`eventId\`).
- An outage of the JWKS is no refusal: the consumer fails the invocation, Lambda retries it twice,
  then the decision waits in the dead-letter queue for a redrive ([operations.md](operations.md)).
- The key of the local stack and the tests (\`scripts/local/back-office-test-key.json\`, which
  signs \`npm run backoffice\`'s decisions and the samples of \`events/\`) is committed, and no
  deployed stage trusts it.

**An example to run** (\`${SIGNING_EXAMPLE}\`; Node 18 or later, nothing to install):

\`\`\`sh
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out back-office-key.pem
node sign-decision.mjs jwks back-office-key.pem back-office-2026-11 > jwks.json    # publish at DECISION_JWKS_URI
echo '{"eventId":"bo-2026-11-24-000342","requestId":"0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01","contractId":"a1a1a1a1-0000-4000-8000-000000000001","status":"REJECTED","reason":"The contract is pledged","occurredAt":"2026-11-24T08:40:00Z"}' > detail.json
node sign-decision.mjs sign back-office-key.pem back-office-2026-11 detail.json   # the Detail to put on the bus
\`\`\`

\`\`\`js
${readFileSync(SIGNING_EXAMPLE, 'utf8').trimEnd()}
\`\`\``;
}

/** The samples of events/ of one detail-type. */
const samplesOf = (detailType: string) =>
  PUBLISHED_SAMPLES.filter((sample) => sample.detailType === detailType).map((sample) => sample.file);

/** The verifier a back-office team copies, shown as it is in the repository (a test runs it). */
export const VERIFYING_EXAMPLE = 'docs/examples/verify-event.mjs';

/** How the back office checks the service's signature on each event it receives. */
function verifyingSection(): string {
  return `## Verifying an event

Every event the service sends is signed, so that a back office that checks the signature trusts
nothing between the service and itself: not the bus's policy, not the roles with rights over the
bus and its rules, not the path the event took. \`detail.signature\` is a compact JWS (RFC 7515):

- Header: \`alg\` \`${EVENT_SIGNATURE_ALGORITHM}\` (ECDSA P-256, SHA-256; the signature is JOSE's 64-byte r||s); \`kid\`
  the id of the stage's KMS key that signed it.
- Claims, and nothing of the event's fields: \`iss\` the event's \`source\`, \`iat\` when it was
  signed (seconds), \`detailType\` the event's \`detail-type\`, and \`detailSha256\`, the base64url
  SHA-256 of the detail's canonical form (RFC 8785, the JSON Canonicalization Scheme) with
  \`signature\` left out. EventBridge re-serialises \`detail\` (key order, escapes), so the
  signature covers its canonical form, never its bytes; and a digest rather than a copy of the
  fields keeps the event small (PutEvents takes 256 KiB a call) and carries no personal data.
- Check, in this order: the header's \`alg\` is \`${EVENT_SIGNATURE_ALGORITHM}\` and its \`kid\` is a key of the stage's
  JWKS; the signature verifies with that key; \`iss\` and \`detailType\` are the envelope's
  \`source\` and \`detail-type\`; \`detailSha256\` is the digest of the detail as received. Refuse
  the event otherwise: it is forged or altered. There is no \`exp\`: an event is as valid as the
  key that signed it.
- A republished event (a stream retry, \`npm run republish\`) has the same \`eventId\` and a new
  signature: ECDSA signatures differ on every signing. De-duplicate on \`eventId\`, never on the
  signature.

**The keys.** Each deployed stage signs with its own asymmetric KMS key (\`ECC_NIST_P256\`,
\`SIGN_VERIFY\`; the stack's \`EventSigningKey\`, its id the \`kid\`), and nobody but the
publisher's role signs with it ([0017-lifecycle.md](decisions/0017-lifecycle.md)). Its public
half, and that of every earlier key whose signatures may still arrive, are published as **one
document, a JWKS** (RFC 7517), which \`npm run deploy\` writes once the stack is up, from KMS's
\`GetPublicKey\` of each key:

- Where: \`s3://<EventSigningKeysBucket>/${EVENT_SIGNING_KEYS_OBJECT_KEY}\`, in the stage's region; the stack
  outputs \`EventSigningKeysBucket\` and \`EventSigningKeysUrl\` name it. The bucket is the stack's own and
  not public (Block Public Access on, TLS only); its policy lets the back office's role (the one
  that puts decisions on the bus, \`BACK_OFFICE_ROLE_NAME\` in the decisions' account) read this one
  object (\`s3:GetObject\`). From another account, the role's own IAM policy must allow that too.
  Read it with the role's credentials: \`aws s3 cp s3://<bucket>/${EVENT_SIGNING_KEYS_OBJECT_KEY} jwks.json\`,
  or an HTTPS address \`aws s3 presign\` makes of it.
- What: \`{"keys": [...]}\`, the key that signs now first, each an EC P-256 JWK with \`kid\`,
  \`alg\` \`${EVENT_SIGNATURE_ALGORITHM}\` and \`use\` \`sig\`; \`Content-Type: ${EVENT_SIGNING_KEYS_CONTENT_TYPE}\`.
- Caching: \`Cache-Control: ${EVENT_SIGNING_KEYS_CACHE_CONTROL}\`. Keep a copy at most ${EVENT_SIGNING_KEYS_MAX_AGE_SECONDS / 60} minutes, so that a
  key taken out (a leak) stops verifying within ${EVENT_SIGNING_KEYS_MAX_AGE_SECONDS / 60} minutes. An event whose \`kid\` your copy
  lacks is a reason to read the document again at once (at most once a minute), not to refuse
  the event: a rotation's new key appears in the document seconds after the publisher starts
  signing with it (the deploy writes it when the stack is up), so if the \`kid\` is still missing,
  hold the event and read again for up to 15 minutes before refusing it.
- Rotation: a new key, so a new \`kid\`. The old key stays in the document, enabled in KMS and
  unable to sign, for the events' retention (30 days after its last signature: EventBridge retries
  a delivery for 24 hours and a dead-letter queue keeps a message at most 14 days), then leaves
  the document and is disabled ([operations.md](operations.md#rotating-the-events-signing-key)).
  A key that is not in the document verifies nothing.
- Locally, \`npm start\` signs with a key it makes on first run (\`.local/keys/event-signing-key.json\`,
  never committed) and serves the same document, with the same headers, at
  \`http://127.0.0.1:<JWKS_PORT>${EVENT_SIGNING_KEYS_PATH}\`; \`npm run backoffice\` verifies every event it
  reads with it. The samples of \`events/\` are signed with a key thrown away after signing them,
  whose public half is \`events/published-samples-jwks.json\`.

**An example to run** (\`${VERIFYING_EXAMPLE}\`; Node 18 or later, nothing to install):

\`\`\`sh
# in AWS, as the back office's role: the stage's document, by an address valid 5 minutes
node verify-event.mjs verify "$(aws s3 presign s3://<bucket>/${EVENT_SIGNING_KEYS_OBJECT_KEY} --expires-in 300)" event.json
# locally, npm start's (JWKS_PORT, 3005 unless moved)
node verify-event.mjs verify http://127.0.0.1:3005${EVENT_SIGNING_KEYS_PATH} event.json
\`\`\`

\`\`\`js
${readFileSync(VERIFYING_EXAMPLE, 'utf8').trimEnd()}
\`\`\``;
}

/** How a back-office team gets models of the events in its language, and what it writes itself. */
function modelsSection(): string {
  return `## Models for the back office

\`docs/asyncapi.yaml\` is the contract to generate from. \`npm run events:models -- --out <dir>\`
makes Java and Kotlin models of every message with [@asyncapi/modelina](https://github.com/asyncapi/modelina)
(\`scripts/event-models.ts\`), in the package \`${EVENT_MODELS_PACKAGE}\`: for each message the
EventBridge event (\`TerminationRequestSubmittedEvent\`, \`TerminationRequestStatusChangedEvent\`,
\`StatusDecisionEvent\`), its detail, and one enum per list of values. A test compiles both and
reads every sample event of \`events/\` into the Java ones
([tests/generators/event-models.test.ts](../tests/generators/event-models.test.ts)).

- **Java** (11 or later): Jackson's annotations; the envelope's \`detail-type\` is \`detailType\`.
  Needs \`jackson-databind\` and \`jackson-datatype-jsr310\` (\`time\` is an \`OffsetDateTime\`).
- **Kotlin**: plain data classes that any Kotlin compiler takes; no serialization library is
  assumed, so add your own (kotlinx.serialization's \`@Serializable\`, or Jackson's Kotlin module,
  which reads them as they are).
- **What you write yourself**: register \`JavaTimeModule\` on your \`ObjectMapper\`; choose the
  model by \`source\` and \`detail-type\`, as your rule does (the service's
  \`TerminationRequestStatusChanged\` and the back office's decision share a detail-type);
  verify the signature on the event as received, before reading it into a model
  ([Verifying an event](#verifying-an-event)): a model re-serialised is not the event signed;
  de-duplicate on \`detail.eventId\`. The enums refuse a value they do not know: a status added
  later is a new version of this description, generate again.

**Not in an EventBridge schema registry.** The stack registers no schemas
(\`AWS::EventSchemas::Registry\`): the contract is \`docs/asyncapi.yaml\`, versioned with the
code that validates with it and checked by the tests, and a registry would be a second copy that
every deployment must keep equal to it, in draft-4 JSON Schema (or OpenAPI 3), which has no
\`const\` and reads \`format\` otherwise; moto, on which the deployment is rehearsed, has no
EventSchemas at all ([deploy.md](deploy.md)). A team that wants the events in the console's schema
browser can register \`components.schemas\` of the description itself; turning on schema
discovery on the bus is not the answer: it infers schemas from live events, signed fields and
personal data passing through it.`;
}

export function buildEventsDoc(): string {
  return `# Events: the back office's decisions in, the request's life out

<!-- Generated by npm run docs:events from lib/api-model/event-schemas.ts; do not edit by hand. -->

A termination request is created \`SUBMITTED\` by the API. From then on the bank's back office
decides, and tells this service through EventBridge; the service tells the back office (and
anyone else on the bus) what happened, through the same bus. Both directions use one bus, whose
name comes from configuration (\`EVENT_BUS_NAME\`; the stack makes \`contract-termination-<stage>-events\`
unless \`CREATE_EVENT_BUS=false\` names a bus that exists). Why it is built this way:
[decisions/0017-lifecycle.md](decisions/0017-lifecycle.md).

| direction | source | detail-type | schema |
|---|---|---|---|
| in: the back office decides | \`bank.back-office\` (\`DECISION_SOURCE\`) | \`TerminationRequestStatusChanged\` (\`DECISION_DETAIL_TYPE\`) | [StatusDecision](#in-terminationrequeststatuschanged-from-the-back-office) |
| out: a request was created | \`bank.contract-termination\` (\`EVENT_SOURCE\`) | \`${EVENT_TYPES.submitted}\` | [${EVENT_TYPES.submitted}](#out-terminationrequestsubmitted) |
| out: a request's status changed | \`bank.contract-termination\` (\`EVENT_SOURCE\`) | \`${EVENT_TYPES.statusChanged}\` | [${EVENT_TYPES.statusChanged}](#out-terminationrequeststatuschanged) |
| out: a request was erased at the customer's request | \`bank.contract-termination\` (\`EVENT_SOURCE\`) | \`${EVENT_TYPES.erased}\` | [${EVENT_TYPES.erased}](#out-terminationrequesterased) |

The service's own \`TerminationRequestStatusChanged\` events never reach its consumer: the rule
matches the back office's source only, and the publisher refuses to start with \`EVENT_SOURCE\`
equal to \`DECISION_SOURCE\`.

## A request's life

Statuses: ${STATUSES.map((s) => `\`${s}\``).join(', ')}. ${FINAL_STATUSES.map((s) => `\`${s}\``).join(' and ')} are final; the others
are active and hold the contract's one active-request slot. Which status may follow which ("yes"):

${transitionTable()}

\`\`\`mermaid
sequenceDiagram
    autonumber
    participant App as Mobile app / web
    participant API as API Gateway + create function
    participant DB as DynamoDB (requests table)
    participant Pub as publishRequestEvents (stream)
    participant Bus as EventBridge bus
    participant BO as Back office
    participant Dec as applyStatusDecision
    App->>API: POST /contracts/{contractId}/termination-requests
    API->>DB: TransactWriteItems: key, contract check, slot, number, request (SUBMITTED)
    API-->>App: 201 SUBMITTED, requestNumber
    DB-->>Pub: stream: INSERT of the request
    Pub->>Bus: PutEvents TerminationRequestSubmitted
    Bus-->>BO: TerminationRequestSubmitted
    BO->>Bus: TerminationRequestStatusChanged IN_REVIEW (then APPROVED)
    Bus->>Dec: rule: source bank.back-office
    Dec->>DB: UpdateItem status, if the request may move there
    DB-->>Pub: stream: MODIFY (status changed)
    Pub->>Bus: PutEvents TerminationRequestStatusChanged
    App->>API: GET .../termination-requests/{requestId}
    API-->>App: 200 IN_REVIEW, message
    BO->>Bus: TerminationRequestStatusChanged COMPLETED or REJECTED (+ reason)
    Bus->>Dec: rule
    Dec->>DB: TransactWriteItems: status + delete the slot naming this request
    DB-->>Pub: stream: MODIFY
    Pub->>Bus: PutEvents TerminationRequestStatusChanged
    App->>API: GET: 200 REJECTED, message with the reason
    App->>API: POST with a new Idempotency-Key
    API-->>App: 201: a new request on the same contract
\`\`\`

## In: \`TerminationRequestStatusChanged\` from the back office

The back office puts this on the bus with source \`bank.back-office\`. The detail:

${fieldTable(describedSchema('StatusDecision'))}

- \`contractId\` is required as well as \`requestId\` (the back office has both from
  \`TerminationRequestSubmitted\`): the request is stored under its contract, so the decision is
  applied in one DynamoDB call.
- \`eventId\` is the back office's id of the decision. Send a decision again with the same id
  (a retry) and nothing changes. A decision for the status the request already has, with the
  same \`reason\` (or none on both), is a duplicate too, whatever its id; with another reason it
  is refused: a decision is never changed after the fact.
- \`reason\` is shown to the customer with the status (GET), as written: the comment's
  character rules, up to 1000 characters.
- Unknown fields are ignored.

What the consumer does with each event:

| the event | outcome | what happens |
|---|---|---|
| an allowed move | \`applied\` | one write: the status, \`statusReason\`, the history; on COMPLETED or REJECTED also the release of the contract's slot and the request's expiry (\`expiresAt\`, the end of the retention period: 0024-retention-by-calendar-year.md). One \`TerminationRequestStatusChanged\` is published. |
| this \`eventId\` was applied, or the request already has that status and that reason | \`duplicate\` | nothing; INFO log |
| a move the table above forbids (back, out of a final status, or the same status with another reason) | \`forbidden-transition\` | nothing changes; ERROR log; the event goes to the dead-letter queue with the reason |
| no such request on that contract | \`unknown-request\` | the same |
| another source, detail-type or sender's account (a decision planted past the rule, e.g. in the dead-letter queue, is refused by the consumer too) | \`unexpected-event\` | the same |
| no signature, one the back office's keys do not verify, or one whose claims are not exactly this decision's fields ([Signing a decision](#signing-a-decision)), whatever path brought it: the rule, a redrive, a direct invoke | \`unauthenticated\` | the same, naming what failed (fields by name, never their values) |
| a signed detail that breaks the schema (\`occurredAt\` outside the years 2000-2999 included) | \`malformed-detail\` | the same, with every problem named |
| a final status whose contract slot does not name the request (broken data) | \`slot-mismatch\` | the same |
| DynamoDB throttled or unreachable, or the back office's JWKS out of reach | (throws) | Lambda retries the event twice, then sends it to the same dead-letter queue |

A refused event is never retried and never holds back the events behind it. A decision that
arrives after a later one (IN_REVIEW after APPROVED) would move the request back: it is refused
and lands in the dead-letter queue, unless it is the very event that was applied before.

${schemaLink('StatusDecision', ['events/decision-rejected.json'])}

${signingSection()}

## Out: \`${EVENT_TYPES.submitted}\`

Published once per created request, with what the back office needs to act on it.

${fieldTable(describedSchema(EVENT_TYPES.submitted))}

${schemaLink(EVENT_TYPES.submitted, samplesOf(EVENT_TYPES.submitted))}

## Out: \`${EVENT_TYPES.statusChanged}\`

Published once per applied status change.

${fieldTable(describedSchema(EVENT_TYPES.statusChanged))}

${schemaLink(EVENT_TYPES.statusChanged, samplesOf(EVENT_TYPES.statusChanged))}

## Out: \`${EVENT_TYPES.erased}\`

Published once per request erased at the customer's request (\`npm run erase\`, run for the
data-protection officer: [decisions/0025-erasure.md](decisions/0025-erasure.md)): the service
holds nothing of the request any more, and the back office erases its own copy by \`requestId\`.
Ids and a time only, and no \`customerId\`: the back office knows whose request it was from its
\`${EVENT_TYPES.submitted}\`. It is made from the erasure ledger's stream, and published only when
the ledger holds the entry and the request item is gone from the table. A request that expires at the end of its
retention (DynamoDB's TTL) makes no event: the back office keeps its copy by its own retention.

${fieldTable(describedSchema(EVENT_TYPES.erased))}

${schemaLink(EVENT_TYPES.erased, samplesOf(EVENT_TYPES.erased))}

${verifyingSection()}

${modelsSection()}

## Delivery: what a consumer of these events can rely on

- **An event exists if and only if its write committed.** The events are made from the requests
  table's DynamoDB stream, never sent by the API next to its write, and each is rebuilt from the
  request as the table holds it before it goes out: a record the table does not confirm publishes
  nothing. A request's events can be sent again from the table (\`npm run republish\`), with the
  same \`eventId\`s. An erasure's event is made from the erasure ledger's stream the same way:
  rebuilt from the ledger's entry, and only once the request item is gone.
- **At least once, with a stable \`eventId\`.** \`eventId\` is a UUID (v5) of the request and the status it
  reached (for an erasure, of the request and \`ERASED\`): every delivery of one event, from any retry, carries the same id. Drop an id you have
  seen. EventBridge's own envelope \`id\` changes on every delivery: do not use it for that.
- **No order guaranteed.** Records are sent in stream order, but EventBridge delivers in no order,
  and when one entry of a call fails the entries after it in that call are already out (the
  failed one follows on the retry). Order a request's events by the table above, or by
  \`previousStatus\`; a \`StatusChanged\` may arrive before its \`Submitted\`.
- **Batches.** One \`PutEvents\` call carries at most 10 entries and 256 KiB. Entries that fail
  are tried again (\`PUBLISH_MAX_ATTEMPTS\`, default 3, while the publisher's invocation has
  time left); a call refused as a whole is split in halves until the entry at fault stands alone.
  A record that still fails is handed back to the stream (partial batch response) and the stream
  retries from it; when it is the first record of its batch the invocation fails instead, so the
  event source mapping bisects the batch until the record stands alone (up to
  \`PUBLISH_MAX_RETRY_ATTEMPTS\`, default 10, within 24 hours). Then the mapping sends a
  description of that record's range (shard, sequence numbers; not the record) to the
  publisher's dead-letter queue and moves on.

## Personal data

Fields marked **personal data** above identify a customer or hold what a person wrote:
\`customerId\`, the account number, the recipient's name, the comment, the document ids, the back
office's reason (and the decision's \`signature\`, whose claims repeat that reason). They travel
on the bus (the back office needs them) and rest in the dead-letter queues (encrypted with the
stage's key, 14 days), and never reach a log: the functions log ids, statuses and outcomes only.
A consumer that keeps these events keeps personal data. Where each field goes, for how long and
under which key: [\`data-protection.md\`](data-protection.md).

**The comment is free text.** The customer writes what they like in it, and it may carry special
categories of personal data (their health, their family: 152-FZ art. 10), although the page asks
them not to write such details. Treat every comment as if it did: show it only to those who decide
the request, keep it only where the request is kept, and never copy it into a report, a ticket or
an analytics store.

The customer's id travels once per request, in its \`TerminationRequestSubmitted\`. A
\`TerminationRequestStatusChanged\` names the request (\`requestId\`, \`requestNumber\`, \`contractId\`), which
the back office knows from that event: it carries no \`customerId\`.

## Changes to these events

Each change to a published event's fields is listed here, newest first, with what a consumer must
do. The service's owners tell the back office's owners of a change that removes or narrows a field
before it is deployed (the back office is the one recipient of these events: the delivery rule
of [\`data-protection.md\`](data-protection.md)), and deploy it only once they confirm their
consumer does without it; a field added is announced the same way, and a consumer must accept
fields it does not know.

| Event | Change | What a consumer does |
|---|---|---|
| \`${EVENT_TYPES.erased}\` | added: a request erased at the customer's request | erase your copy of the request (by \`requestId\`); drop a repeated \`eventId\`. A consumer that refuses unknown detail-types ignores it until it knows it, and the delivery rule sends it from this version on |
| \`TerminationRequestStatusChanged\` | \`customerId\` removed: the customer is named once, in the request's \`TerminationRequestSubmitted\` (data minimisation, 152-FZ art. 5 part 5) | find the customer by \`requestId\` (or \`requestNumber\`) in what it kept of the \`Submitted\` event; a consumer that required \`customerId\` stops requiring it before this version is deployed |

## Text: plain text, escaped where it is shown

The service takes what a customer writes as long as it keeps the API's rules
([decisions/0009-input-validation.md](decisions/0009-input-validation.md)): a name may begin with
\`=\`, a comment may hold \`<img src=x onerror=...>\`. Such text is stored and published exactly as
written, never escaped, stripped or rewritten, because only the place that shows it knows how it
must be escaped there. So every text field of these events is plain text, and a consumer escapes
it where it shows it:

- in HTML (a back-office page, an e-mail): escape \`&\`, \`<\`, \`>\` and quotes, or set it as text
  (\`textContent\`), never as markup;
- in a spreadsheet or a CSV file: a cell that begins with \`=\`, \`+\`, \`-\` or \`@\` (or a line break,
  which a comment or a reason may hold) is read as a formula, and \`=HYPERLINK(...)\` makes a link
  of it: put an apostrophe before such a first character, and quote every cell.

The text fields, each of which says so in its description:

| event | text fields |
|---|---|
| in: \`TerminationRequestStatusChanged\` from the back office | ${codeList(textFields(describedSchema('StatusDecision')))} |
| out: \`${EVENT_TYPES.submitted}\` | ${codeList(textFields(describedSchema(EVENT_TYPES.submitted)))} |
| out: \`${EVENT_TYPES.statusChanged}\` | ${codeList(textFields(describedSchema(EVENT_TYPES.statusChanged)))} |

The other fields are ids, codes, dates and digits of a fixed shape (see the schemas), and the
request number, which the service makes.

## Operating

Each alarm of the lifecycle (decision dead letters, publisher dead letters, stream iterator age,
decision rule failures, publisher destination failures, unconfirmed records), what it means and
what to do, how to redrive both dead-letter queues with \`npm run redrive\`, and how to republish
a request's events from the table with \`npm run republish\`: [docs/operations.md](operations.md).

The decision dead-letter queue holds three kinds of message: the consumer's own refusals
(\`{"reason", "problems", "event"}\`: the refusal, what is wrong, the whole EventBridge event);
Lambda's record of an invocation that failed after its retries (\`requestContext\` with the
condition, \`requestPayload\` the event, \`responsePayload\` the error); and EventBridge's own
for an event it could not deliver to the function (the event itself, the error in the message's
attributes).

Locally (\`npm start\`), the stand-in for EventBridge prints each published event and appends it to
\`.local/events.jsonl\`; dead letters go to \`.local/dead-letters.jsonl\`.
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(EVENTS_DOC, buildEventsDoc());
  console.log(`${EVENTS_DOC} written`);
}
