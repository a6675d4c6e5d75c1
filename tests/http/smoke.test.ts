import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { signToken } from '../../scripts/local/signing-key';
import { request as httpRequest } from 'node:http';
import { decisionEvent } from '../../scripts/local/decision-event';
import { offlineInvoker } from '../../scripts/operations/lambda-invoke';
import { invokeOffline, offlineFunctionName } from '../../scripts/local/offline-lambda';
import { headersWithKey, validBody } from '../support/bodies';
import { callHandler } from '../support/handler';
import { ofKind, type TestTables } from '../support/local-tables';
import { runSmoke } from '../../scripts/smoke/checks';
import { newContract } from '../support/contracts';
import { at } from '../support/json';
import { startHttpStackWithFaults, type HttpStack } from '../support/http-stack';

/*
 * npm run smoke, run against the local stack over HTTP, gateway included: it passes
 * on a healthy stage, and each of its checks can fail. And the local Lambda API: the operator
 * tools' calls pass, a web page's do not.
 */

let stack: HttpStack;
let tables: TestTables;
let stop: () => Promise<void>;
const anna = DEMO_CUSTOMERS.anna;

beforeAll(async () => {
  ({ stack, tables, stop } = await startHttpStackWithFaults());
});
afterAll(() => stop());

const token = () => signToken(stack.key, { customerId: anna.customerId });

describe("the operator tools' Lambda calls (npm run redrive), locally", () => {
  it("invoke a function of the local stack through serverless offline's Lambda API with the AWS SDK, as in AWS", async () => {
    const event: unknown = JSON.parse(readFileSync('events/get-unknown-request.json', 'utf8'));
    const answer = await offlineInvoker('getTerminationRequest', stack.lambdaPort)(event);
    // The sample's request is not in this stack's tables: the function ran on them and answered 404.
    expect(at(answer, 'statusCode')).toBe(404);
    expect(String(at(answer, 'body'))).toContain('TERMINATION_REQUEST_NOT_FOUND');
  });
});

describe('the local Lambda API takes calls from tools on this machine only: no web page drives the local stack', () => {
  /** A request of Anna's, SUBMITTED (written by the create handler in this process, on the stack's tables), and a decision that would reject it. */
  async function pendingDecision() {
    const contractId = await newContract(tables);
    const created = await callHandler({ contractId, customerId: anna.customerId, body: validBody(), headers: headersWithKey() });
    expect(created.status).toBe(201);
    const requestId = String(created.body['requestId']);
    const read = async () => ofKind(await tables.contractItems(contractId), 'REQUEST')[0]?.['status'];
    return { event: decisionEvent({ requestId, contractId, status: 'REJECTED', reason: 'Pledged' }), read };
  }
  const invocations = () => `/2015-03-31/functions/${offlineFunctionName('applyStatusDecision')}/invocations`;
  /** A raw HTTP call to the Lambda API, with exactly the headers given (Host included). */
  const rawCall = (method: string, headers: Record<string, string>, body = '') =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const call = httpRequest({ host: '127.0.0.1', port: stack.lambdaPort, method, path: invocations(), headers }, (answer) => {
        let text = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: text }));
      });
      call.on('error', reject);
      call.end(body);
    });

  it("refuses a web page's call (a text/plain POST with an Origin, as any page may send without a preflight) before the consumer runs", async () => {
    const { event, read } = await pendingDecision();
    const host = `127.0.0.1:${stack.lambdaPort}`;
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:3006']) {
      const answer = await rawCall('POST', { Host: host, Origin: origin, 'Content-Type': 'text/plain' }, JSON.stringify(event));
      expect([answer.status, answer.headers['access-control-allow-origin']]).toEqual([403, undefined]);
      expect(answer.body).toContain('Origin');
    }
    const preflight = await rawCall('OPTIONS', { Host: host, Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' });
    expect([preflight.status, preflight.headers['access-control-allow-origin']]).toEqual([403, undefined]);
    expect(await read()).toBe('SUBMITTED');
  });

  it('refuses a call whose Host is not loopback (a page on a domain that resolves to 127.0.0.1) before the consumer runs', async () => {
    const { event, read } = await pendingDecision();
    for (const host of [`evil.example:${stack.lambdaPort}`, `localhost.evil.example:${stack.lambdaPort}`, 'evil.example']) {
      const answer = await rawCall('POST', { Host: host, 'Content-Type': 'application/json' }, JSON.stringify(event));
      expect(answer.status, host).toBe(403);
    }
    expect(await read()).toBe('SUBMITTED');
  });

  it('passes the same decision from a tool on this machine (the AWS SDK, as npm run redrive calls it; plain fetch, as npm start does)', async () => {
    const { event, read } = await pendingDecision();
    expect(await offlineInvoker('applyStatusDecision', stack.lambdaPort)(event)).toEqual({ outcome: 'applied' });
    expect(await read()).toBe('REJECTED');
    expect(await invokeOffline('applyStatusDecision', event, stack.lambdaPort)).toEqual({ outcome: 'duplicate' });
  });
});

describe('npm run smoke', () => {
  it('passes every check on a healthy stage: create, replay, GET, list, 401, 404 route', async () => {
    const checks = await runSmoke({ base: stack.offline.url, token: token(), contractId: await newContract(tables) });
    expect(checks.map((c) => c.name)).toHaveLength(6);
    expect(checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('fails the create, saying why, when the contract already has an active request', async () => {
    const contractId = await newContract(tables);
    expect((await runSmoke({ base: stack.offline.url, token: token(), contractId })).every((c) => c.ok)).toBe(true);
    const again = await runSmoke({ base: stack.offline.url, token: token(), contractId });
    expect(again).toEqual([expect.objectContaining({ ok: false, detail: expect.stringContaining('409') })]);
  });

  it('fails with a token of another customer: the contract is not theirs', async () => {
    const other = signToken(stack.key, { customerId: DEMO_CUSTOMERS.boris.customerId });
    const checks = await runSmoke({ base: stack.offline.url, token: other, contractId: await newContract(tables) });
    expect(checks).toEqual([expect.objectContaining({ ok: false, detail: expect.stringContaining('403') })]);
  });

  it('runs as the npm script: exit code 0 and a line per check', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const contractId = await newContract(tables);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [tsx, 'scripts/smoke.ts', '--base', stack.offline.url, '--token', token(), '--contract', contractId],
      { timeout: 30_000 },
    );
    expect(stdout).toContain('All 6 checks passed.');
  }, 40_000);
});
