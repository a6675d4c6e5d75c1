import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { signToken } from '../../scripts/local/signing-key';
import { offlineInvoker } from '../../scripts/operations/lambda-invoke';
import { runSmoke } from '../../scripts/smoke/checks';
import { newContract } from '../support/contracts';
import { at } from '../support/json';
import { startHttpStackWithFaults, type HttpStack } from '../support/http-stack';
import type { TestTables } from '../support/local-tables';

/*
 * npm run smoke, run against the local stack over HTTP, gateway included: it passes
 * on a healthy stage, and each of its checks can fail. And the operator tools' Lambda calls.
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
