import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordedChildren, stillRunning, type StackChild } from '../../scripts/local/stack-children';
import { parsedObject } from '../support/json';
import { exitWithin, freePorts, portEnv, startScript, taken, waitFor, type PortVariable } from '../support/npm-start';

/*
 * The local stack whatever stops it: a wrong URL does not, and each of its parts crashing once
 * (serverless offline, DynamoDB Local, npm start's own process killed outright) leaves nothing
 * it started running, at once or by the next start. Each run on ports and files of its own.
 */

interface Run {
  child: ChildProcess;
  ports: Record<PortVariable, number>;
  dir: string;
  out: () => string;
  err: () => string;
}

const dirs: string[] = [];
const runs: Run[] = [];

afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null && run.child.signalCode === null) await exitWithin(run.child, 0);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(reuse?: Pick<Run, 'ports' | 'dir'>): Promise<Run> {
  const ports = reuse?.ports ?? (await freePorts());
  const dir = reuse?.dir ?? mkdtempSync(join(tmpdir(), 'stack-crash-'));
  if (reuse === undefined) dirs.push(dir);
  const child = startScript({ ...portEnv(ports), LOCAL_DIR: dir });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const run = { child, ports, dir, out: () => stdout, err: () => stderr };
  runs.push(run);
  await waitFor(
    'the Ready block',
    () => {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${stdout}\n${stderr}`);
      return /^={2,}$/m.test(stdout.slice(stdout.indexOf('== Ready')));
    },
    180_000,
  );
  return run;
}

const childrenOf = (run: Run): StackChild[] => recordedChildren(join(run.dir, 'children.json'));

function childNamed(run: Run, name: string): StackChild {
  const found = childrenOf(run).find((child) => child.name === name);
  if (found === undefined) throw new Error(`npm start recorded no ${name}: ${JSON.stringify(childrenOf(run))}`);
  return found;
}

/** Nothing the run started is running, and every port it had is free. */
async function expectNothingLeft(run: Run, started: StackChild[]): Promise<void> {
  expect(started.filter(stillRunning)).toEqual([]);
  for (const port of Object.values(run.ports)) expect(await taken(port), `port ${port}`).toBe(false);
}

describe('npm start, whatever stops it', () => {
  it('answers a missing file under /docs/ with 404 and stays up; serverless offline crashing stops it all', async () => {
    const run = await start();
    const page = `http://127.0.0.1:${run.ports.PAGE_PORT}`;
    for (const missing of ['/docs/openapi.yaml', '/docs/no-such-file.js']) {
      expect((await fetch(`${page}${missing}`)).status, missing).toBe(404);
    }
    expect((await fetch(`${page}/docs/`)).status).toBe(200);
    expect((await fetch(`${page}/`)).status).toBe(200);
    expect(run.child.exitCode).toBeNull();

    const started = childrenOf(run);
    expect(started.map((child) => child.name).sort()).toEqual(['DynamoDB Local', 'serverless offline']);
    process.kill(childNamed(run, 'serverless offline').pid, 'SIGKILL');
    expect(await exitWithin(run.child, 60_000)).toBe(1);
    expect(run.err()).toContain('serverless offline stopped');
    await expectNothingLeft(run, started);
    expect(existsSync(join(run.dir, 'children.json'))).toBe(false);
  }, 300_000);

  it('DynamoDB Local dying stops it all, said in one true line', async () => {
    const run = await start();
    const started = childrenOf(run);
    process.kill(childNamed(run, 'DynamoDB Local').pid, 'SIGKILL');
    expect(await exitWithin(run.child, 60_000)).toBe(1);
    const lines = run
      .err()
      .split('\n')
      .filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('DynamoDB Local stopped');
    expect(run.err()).not.toContain('keeps trying');
    await expectNothingLeft(run, started);
  }, 300_000);

  it('its own process killed outright leaves its children, which the next start stops; Ctrl-C then stops everything and says so', async () => {
    const first = await start();
    const started = childrenOf(first);
    const pid = Number(parsedObject(readFileSync(join(first.dir, 'stack.json'), 'utf8'))['pid']);
    process.kill(pid, 'SIGKILL');
    await exitWithin(first.child, 30_000);
    // Nothing could stop them: they still run, holding their ports.
    expect(
      started
        .filter(stillRunning)
        .map((child) => child.name)
        .sort(),
    ).toEqual(['DynamoDB Local', 'serverless offline']);

    const second = await start(first);
    expect(second.out()).toContain('Stopped what an earlier npm start left running: ');
    expect(started.filter(stillRunning)).toEqual([]);
    const now = childrenOf(second);
    expect((await fetch(`http://127.0.0.1:${second.ports.PAGE_PORT}/`)).status).toBe(200);

    second.child.kill('SIGINT');
    expect(await exitWithin(second.child, 60_000)).toBe(0);
    expect(second.out().trim().split('\n').at(-1)).toBe('npm start stopped: everything it started has stopped.');
    await expectNothingLeft(second, now);
    expect(existsSync(join(second.dir, 'children.json'))).toBe(false);
  }, 400_000);
});
