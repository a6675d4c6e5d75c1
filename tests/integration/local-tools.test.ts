import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsStandIn, type AwsStandIn } from '../../scripts/local/aws-stand-in';
import { startJwksServer } from '../../scripts/local/jwks-server';
import { DEMO_CONTRACTS } from '../../scripts/local/demo-data';
import { defaultStack, runningStack, writeRunningStack } from '../../scripts/local/running-stack';
import { decisionRulePattern } from '../../scripts/local/template-patterns';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { callHandler } from '../support/handler';
import { useLifecycleStack, type LifecycleStack } from '../support/lifecycle-stack';

/*
 * npm run backoffice and npm run invoke find the stack where npm start really put it: here a
 * stack of the test's own, on ports none of the defaults name, described in a
 * stack file as npm start writes one. The tools run as the child processes npm runs.
 */

const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const dir = mkdtempSync(join(tmpdir(), 'stack-'));
const stackFile = join(dir, 'stack.json');
let stack: LifecycleStack;
let bus: AwsStandIn;
let jwks: Awaited<ReturnType<typeof startJwksServer>>;

beforeAll(async () => {
  stack = await useLifecycleStack();
  await stack.tables.addContracts(DEMO_CONTRACTS);
  // The service's events, signed by the stack's KMS stand-in, whose public key npm start's JWKS server serves.
  jwks = await startJwksServer({ keys: [] }, 0, undefined, stack.standIn.kms.key);
  await stack.startPublishing();
  bus = await startAwsStandIn({
    rules: [
      {
        name: 'DecisionRule',
        pattern: decisionRulePattern(),
        deliver: (e) => stack.decide(e),
      },
    ],
  });
  writeRunningStack(
    {
      pid: process.pid,
      apiUrl: 'http://127.0.0.1:1',
      dynamoDbEndpoint: stack.tables.endpoint,
      jwksUri: jwks.uri,
      lambdaPort: 1,
      awsStandIn: bus.endpoint,
      pageUrl: 'http://127.0.0.1:1',
      tables: stack.tables.names,
    },
    stackFile,
  );
});
afterAll(async () => {
  await jwks.stop();
  await bus.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function runTool(script: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [tsx, script, ...args], {
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      LOCAL_STACK_FILE: stackFile,
      LOCAL_DIR: dir,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
    timeout: 30_000,
  });
  return stdout;
}

describe('the stack file', () => {
  it('names the running stack while its process lives, and falls back to the defaults after', () => {
    expect(runningStack(stackFile).dynamoDbEndpoint).toBe(stack.tables.endpoint);
    const dead = join(dir, 'dead.json');
    writeRunningStack({ ...runningStack(stackFile), pid: 2 ** 22 + 12_345 }, dead);
    expect(runningStack(dead)).toEqual(defaultStack());
    expect(runningStack(join(dir, 'missing.json'))).toEqual(defaultStack());
  });
});

describe('tools reach a stack on other ports', () => {
  it('npm run invoke reads from that stack’s DynamoDB Local and tables', async () => {
    const out = await runTool('scripts/invoke.ts', ['get-termination-request', 'events/get-unknown-request.json']);
    // The contract is found there, the request is not: the stack's own tables answered (no stack would be a 503).
    expect(out).toContain('"statusCode": 404');
    expect(out).toContain('TERMINATION_REQUEST_NOT_FOUND');
  }, 40_000);

  it('npm run backoffice puts a signed decision on that stack’s bus, and the rule applies it', async () => {
    const contractId = await newContract(stack.tables);
    const created = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    expect(created.status).toBe(201);
    // What npm start does with each event the publisher sends: one line of .local/events.jsonl.
    const recording = setInterval(() => {
      writeFileSync(join(dir, 'events.jsonl'), stack.standIn.events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    }, 50);
    const out = await runTool('scripts/backoffice.ts', [
      '--request',
      String(created.body['requestNumber']),
      '--status',
      'IN_REVIEW',
    ]).finally(() => clearInterval(recording));
    expect(out).toContain(`Applied. The request is now IN_REVIEW (${String(created.body['requestNumber'])}, was SUBMITTED)`);
    const kid = stack.standIn.kms.key.keyId;
    expect(out).toMatch(
      new RegExp(`Event TerminationRequestSubmitted SUBMITTED \\(eventId [\\w-]+\\): signature verified \\(ES256, key ${kid}\\)`),
    );
    expect(out).toMatch(
      new RegExp(`Event TerminationRequestStatusChanged IN_REVIEW \\(eventId [\\w-]+\\): signature verified \\(ES256, key ${kid}\\)`),
    );
    expect(bus.events.map((e) => e.source)).toContain('bank.back-office');
    // Signed with the local back office's key: the consumer applies nothing unsigned.
    expect(bus.events.at(-1)?.detail).toMatchObject({
      status: 'IN_REVIEW',
      signature: expect.stringMatching(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/),
    });
  }, 40_000);
});
