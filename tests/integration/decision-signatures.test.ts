import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECISION_SIGNED_FIELDS } from '../../lib/api-model/event-schemas';
import { createDecisionSignatureCheck } from '../../lib/auth/decision-signature';
import { loadDecisionConfig } from '../../lib/config';
import { storeFor } from '../../lib/dynamodb/termination-table';
import { applyStatusDecision } from '../../lib/termination/apply-status-decision';
import type { CheckSignature } from '../../lib/termination/ports/signature';
import { buildEventsDoc, SIGNING_EXAMPLE } from '../../scripts/events-doc';
import { decisionEvent, LOCAL_BACK_OFFICE_KEY, LOCAL_DECISION_SOURCE } from '../../scripts/local/decision-event';
import { freePort } from '../../scripts/local/free-port';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { makeSigningKey, type SigningKey } from '../../scripts/local/signing-key';
import { LOCAL_ACCOUNT_ID } from '../../scripts/local/template-patterns';
import { headersWithKey, validBody } from '../support/bodies';
import { signatureSpellings } from '../support/jwt-attacks';
import { callHandler } from '../support/handler';
import { ofKind } from '../support/local-tables';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';

/*
 * The back office's signature over a decision, over HTTP as deployed: the consumer fetches the
 * back office's JWKS (DECISION_JWKS_URI) with the cache the authorizer uses. An outage of it is
 * a retry, never a refusal; keys rotate as docs/events.md tells the back office; and the example
 * docs/events.md gives the back-office team signs what the consumer applies.
 */

let stack: LifecycleStack;
/** Where this file's consumer looks for the back office's keys; nothing listens there until a test starts it. */
let jwksPort: number;
let published: SigningKey[] = [LOCAL_BACK_OFFICE_KEY];
const servers: { stop: () => Promise<void> }[] = [];
const serveKeys = async (port = 0) => {
  const server = await startJwksServer(() => ({ keys: published.flatMap((key) => key.jwks.keys) }), port);
  servers.push(server);
  return server;
};

beforeAll(async () => {
  stack = await useLifecycleStack();
  jwksPort = await freePort();
  process.env['DECISION_JWKS_URI'] = `http://127.0.0.1:${jwksPort}/.well-known/jwks.json`;
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await stack.stop();
});

async function newRequest(): Promise<{ contractId: string; requestId: string }> {
  const contractId = randomUUID();
  await stack.tables.addContracts([{ contractId, customerId: 'customer-anna', status: 'ACTIVE' }]);
  const answer = await callHandler({ contractId, customerId: 'customer-anna', body: validBody(), headers: headersWithKey(randomUUID()) });
  expect(answer.status).toBe(201);
  return { contractId, requestId: String(answer.body['requestId']) };
}

const statusOf = async (contractId: string) => ofKind(await stack.tables.contractItems(contractId), 'REQUEST')[0]?.['status'];

describe('one spelling of a signature', () => {
  it('verifies only the canonical one of the 16 spellings of the same signature', async () => {
    const server = await serveKeys();
    const config = loadDecisionConfig({ ...process.env, DECISION_JWKS_URI: server.uri });
    const check = createDecisionSignatureCheck({ ...config.signatures, issuer: config.decisionSource });
    const { signature } = decisionEvent({ requestId: randomUUID(), contractId: randomUUID(), status: 'IN_REVIEW' }).detail;
    const spellings = signatureSpellings(signature);
    expect(new Set(spellings).size).toBe(16);
    const outcomes = await Promise.all(spellings.map(async (spelling) => (await check(spelling)).ok));
    expect(outcomes).toEqual([true, ...Array.from({ length: 15 }, () => false)]);
  });
});

describe("an outage of the back office's JWKS", () => {
  it('fails the invocation, so Lambda tries again: nothing refused, nothing moved; once the JWKS answers, the same decision applies', async () => {
    const { contractId, requestId } = await newRequest();
    const decision = decisionEvent({ requestId, contractId, status: 'IN_REVIEW' });

    const failure: unknown = await stack.decide(decision).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(stack.standIn.messages).toEqual([]);
    expect(await statusOf(contractId)).toBe('SUBMITTED');

    await serveKeys(jwksPort);
    expect((await stack.decide(decision)).outcome).toBe('applied');
    expect(await statusOf(contractId)).toBe('IN_REVIEW');
  });
});

describe('key rotation, as docs/events.md tells the back office to rotate', () => {
  const oldKey = makeSigningKey('back-office-2026-10');
  const newKey = makeSigningKey('back-office-2026-11');
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const settings = loadDecisionConfig({
    REQUESTS_TABLE_NAME: 'unused',
    DECISION_ACCOUNT_ID: LOCAL_ACCOUNT_ID,
    DECISION_DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1/queue',
    DECISION_JWKS_URI: 'http://127.0.0.1/unused',
  }).signatures;
  let check: CheckSignature;
  /** What the check says of a decision signed by `key` at `issuedAt` (the test's clock by default). */
  const verdict = async (key: SigningKey, issuedAt = new Date(now())) => {
    const { detail } = decisionEvent({
      requestId: randomUUID(),
      contractId: randomUUID(),
      status: 'APPROVED',
      signature: { key, issuedAt },
    });
    const answer = await check(detail.signature);
    return answer.ok ? 'verified' : answer.problem;
  };

  beforeAll(async () => {
    published = [oldKey];
    const server = await serveKeys();
    check = createDecisionSignatureCheck({ ...settings, jwksUri: server.uri, issuer: LOCAL_DECISION_SOURCE }, now);
  });

  it('takes a new key published at least the refetch bound before the back office signs with it', async () => {
    expect(await verdict(oldKey)).toBe('verified');
    published = [oldKey, newKey];
    // Signed the moment it was published: the JWKS in hand is younger than the bound, so no fetch yet.
    expect(await verdict(newKey)).toMatch(/not found/);
    offsetMs += settings.jwksMinRefetchSeconds * 1000;
    expect(await verdict(newKey)).toBe('verified');
  });

  it('keeps verifying a retired key while it is published, a decision it signed 14 days ago too; removed, its decisions are refused within the JWKS TTL', async () => {
    const fourteenDaysAgo = new Date(now() - 14 * 86_400_000);
    expect(await verdict(oldKey, fourteenDaysAgo)).toBe('verified');
    published = [newKey];
    offsetMs += settings.jwksTtlSeconds * 1000;
    expect(await verdict(oldKey, fourteenDaysAgo)).toMatch(/not found/);
    expect(await verdict(newKey)).toBe('verified');
  });
});

describe('the example docs/events.md gives the back-office team (docs/examples/sign-decision.mjs)', () => {
  const work = mkdtempSync(join(tmpdir(), 'sign-decision-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('is in docs/events.md as it is in the repository, with the signed fields and issuer the consumer checks', () => {
    const example = readFileSync(SIGNING_EXAMPLE, 'utf8');
    expect(buildEventsDoc()).toContain(example.trimEnd());
    expect(example).toContain(
      `const SIGNED_FIELDS = ${JSON.stringify(DECISION_SIGNED_FIELDS).replaceAll('"', "'").replaceAll(',', ', ')};`,
    );
    expect(example).toContain(`const ISSUER = '${LOCAL_DECISION_SOURCE}';`);
  });

  it('run as docs/events.md shows, makes a key, its JWKS and a signed decision that the consumer applies', async () => {
    const { contractId, requestId } = await newRequest();
    const commands = /## Signing a decision[\s\S]*?```sh\n([\s\S]*?)\n```/.exec(readFileSync('docs/events.md', 'utf8'))?.[1] ?? '';
    expect(commands).toContain('node sign-decision.mjs sign');
    copyFileSync(SIGNING_EXAMPLE, join(work, 'sign-decision.mjs'));
    // The doc's decision, about this test's request.
    const script = commands
      .replaceAll('0190f5a2-7c3e-7d4a-9b1e-5a6c7d8e9f01', requestId)
      .replaceAll('a1a1a1a1-0000-4000-8000-000000000001', contractId);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: work });
    const detail: unknown = JSON.parse(stdout);

    const jwks = JSON.parse(readFileSync(join(work, 'jwks.json'), 'utf8'));
    const server = await startJwksServer(jwks, 0);
    servers.push(server);
    const config = loadDecisionConfig({ ...process.env, DECISION_JWKS_URI: server.uri });
    const outcome = await applyStatusDecision(
      {
        store: storeFor(config),
        expected: { source: LOCAL_DECISION_SOURCE, detailType: 'TerminationRequestStatusChanged', account: LOCAL_ACCOUNT_ID },
        checkSignature: createDecisionSignatureCheck({ ...config.signatures, issuer: config.decisionSource }),
        now: () => new Date(),
        retentionSeconds: config.retentionSeconds,
      },
      { source: LOCAL_DECISION_SOURCE, detailType: 'TerminationRequestStatusChanged', account: LOCAL_ACCOUNT_ID, detail },
    );
    expect(outcome).toMatchObject({ kind: 'applied', decision: { requestId, status: 'REJECTED', reason: 'The contract is pledged' } });
    expect(await statusOf(contractId)).toBe('REJECTED');
  });
});
