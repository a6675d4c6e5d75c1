import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import streamRequestCreated from '../../events/stream-request-created.json' with { type: 'json' };
import { signedDetail } from '../../lib/events/event-signature';
import { EVENT_SIGNING_KEYS_PATH, eventSigningKeySet } from '../../lib/events/event-signing-keys';
import { localEndpoint } from '../../lib/aws/local-endpoint';
import { buildEventsDoc, VERIFYING_EXAMPLE } from '../../scripts/events-doc';
import type { PublishedEvent } from '../../scripts/local/aws-stand-in';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { keySigner, makeEventSigningKey } from '../../scripts/local/kms-stand-in';
import { LOCAL_ACCOUNT_ID } from '../../scripts/local/template-patterns';
import { jsonObject } from '../support/json';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';
import { writeSampleRequest } from '../support/sample-request';
import { streamEvent } from '../../scripts/local/stream-events';

/*
 * The events' signatures end to end: the real publisher signs through KMS (the stand-in's KMS
 * API, as the rehearsal does through moto's), never sends an event it could not sign, and the
 * verifier docs/examples/verify-event.mjs, which a back-office team copies, takes what it signed
 * and refuses a forged or altered event.
 */

let stack: LifecycleStack;
const work = mkdtempSync(join(tmpdir(), 'verify-event-'));
// The sample request's creation (four new items, one of them the request): what the table confirms.
const records = streamEvent(streamRequestCreated).Records;

beforeAll(async () => {
  stack = await useLifecycleStack();
  await writeSampleRequest(stack.tables.doc, stack.tables.names);
});
afterAll(async () => {
  await stack.stop();
  rmSync(work, { recursive: true, force: true });
});

async function publish() {
  stack.standIn.clear();
  const { handler } = await import('../../functions/publish-request-events');
  return handler({ Records: records });
}

/** The event as a rule's target receives it. */
const received = (event: PublishedEvent | undefined) => ({
  version: '0',
  id: '0d5c2b9a-1e3f-4a6b-8c7d-9e0f1a2b3c4d',
  'detail-type': event?.detailType,
  source: event?.source,
  account: LOCAL_ACCOUNT_ID,
  time: event?.time,
  region: 'eu-central-1',
  resources: [],
  detail: event?.detail,
});

/** The example's verdict on an event, with the keys at an address, else a copy of the stand-in's JWKS on disk. */
async function verdict(event: unknown, keys = join(work, 'jwks.json')): Promise<{ code: number; out: string }> {
  const file = join(work, `event-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(event));
  writeFileSync(join(work, 'jwks.json'), JSON.stringify(stack.standIn.kms.jwks));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [VERIFYING_EXAMPLE, 'verify', keys, file]);
    return { code: 0, out: stdout.trim() };
  } catch (error) {
    const failed = jsonObject(error);
    return { code: Number(failed['code']), out: String(failed['stdout']).trim() };
  }
}

describe('the published events, signed by KMS', () => {
  it('verify with the example a back office copies, one by one', async () => {
    expect(await publish()).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.events).toHaveLength(1);
    for (const event of stack.standIn.events) {
      expect(await verdict(received(event))).toEqual({
        code: 0,
        out: `verified: ${event.detailType} ${String(jsonObject(event.detail)['eventId'])}`,
      });
    }
  });

  it('a forged event (signed by another key under the same kid) and an altered one are refused', async () => {
    await publish();
    const [event] = stack.standIn.events;
    const detail = jsonObject(event?.detail);
    const { signature: _signature, ...fields } = detail;
    const impostor = { ...keySigner(makeEventSigningKey()), kid: stack.standIn.kms.key.keyId };
    const forged = await signedDetail({ source: String(event?.source), detailType: String(event?.detailType), detail: fields }, impostor);
    expect(await verdict({ ...received(event), detail: forged })).toEqual({ code: 1, out: 'REFUSED: the signature does not verify' });
    expect(await verdict({ ...received(event), detail: { ...detail, reason: 'Approved after all' } })).toEqual({
      code: 1,
      out: 'REFUSED: the detail is not the one signed',
    });
    expect(await verdict({ ...received(event), source: 'bank.back-office' })).toEqual({
      code: 1,
      out: 'REFUSED: signed for another source',
    });
  });

  it('KMS failing: retried, and when it keeps failing nothing goes out unsigned; the stream retries the batch', async () => {
    const calls = stack.standIn.kms.signCalls();
    // The event fails three times (PUBLISH_MAX_ATTEMPTS): the record goes back, nothing is sent.
    stack.standIn.kms.failNextSign(...Array<string>(3).fill('KMSInternalException'));
    const failed = await publish();
    expect(failed).toEqual({ batchItemFailures: [{ itemIdentifier: records[3]?.dynamodb?.SequenceNumber }] });
    expect(stack.standIn.events).toEqual([]);
    expect(stack.standIn.putEventsCalls).toEqual([]);
    expect(stack.standIn.kms.signCalls() - calls).toBe(3);
    // A refusal that will not pass is not retried; as the batch's first record, the invocation fails (the mapping bisects).
    stack.standIn.kms.failNextSign('AccessDeniedException');
    const { handler } = await import('../../functions/publish-request-events');
    await expect(handler({ Records: records.slice(3) })).rejects.toThrow(/could not be signed: AccessDeniedException/);
    expect(stack.standIn.kms.signCalls() - calls).toBe(4);
    // KMS back, the batch retried: the event, signed, after one throttled attempt.
    stack.standIn.kms.failNextSign('ThrottlingException');
    expect(await publish()).toEqual({ batchItemFailures: [] });
    expect(stack.standIn.kms.signCalls() - calls).toBe(6);
    expect(stack.standIn.events.map((event) => typeof jsonObject(event.detail)['signature'])).toEqual(['string']);
  });

  it("fetches the document of the keys from its address, npm start's as the deployed one: the JWKS of KMS's GetPublicKey, with its media type and cache rule", async () => {
    // npm start's JWKS server, serving the key the stand-in signs with.
    const server = await startJwksServer({ keys: [] }, 0, undefined, stack.standIn.kms.key);
    try {
      const address = `${server.origin}${EVENT_SIGNING_KEYS_PATH}`;
      const answer = await fetch(address);
      expect([answer.headers.get('content-type'), answer.headers.get('cache-control')]).toEqual([
        'application/jwk-set+json',
        'max-age=300',
      ]);
      // The same document the deploy writes: the JWK of the DER public key KMS's GetPublicKey gives.
      const kms = new KMSClient({ region: 'eu-central-1', ...localEndpoint(stack.standIn.endpoint) });
      const { PublicKey, KeySpec, KeyUsage } = await kms.send(new GetPublicKeyCommand({ KeyId: stack.standIn.kms.key.keyId }));
      expect([KeySpec, KeyUsage]).toEqual(['ECC_NIST_P256', 'SIGN_VERIFY']);
      expect(await answer.json()).toEqual(
        eventSigningKeySet([{ kid: stack.standIn.kms.key.keyId, publicKeyDer: PublicKey ?? new Uint8Array() }]),
      );
      await publish();
      const [event] = stack.standIn.events;
      expect(await verdict(received(event), address)).toEqual({
        code: 0,
        out: `verified: ${String(event?.detailType)} ${String(jsonObject(event?.detail)['eventId'])}`,
      });
    } finally {
      await server.stop();
    }
  });

  it('is shown in docs/events.md as it is in the repository', () => {
    expect(buildEventsDoc()).toContain(readFileSync(VERIFYING_EXAMPLE, 'utf8').trimEnd());
  });
});
