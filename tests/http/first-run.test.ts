import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { loadOrCreateSigningKey, signToken } from '../../scripts/local/signing-key';
import { parsedObject } from '../support/json';
import {
  closeServer,
  exitWithin,
  freePorts,
  holdPort,
  portEnv,
  PORTS,
  startScript,
  taken,
  tsx,
  waitFor,
  type PortVariable,
} from '../support/npm-start';

/*
 * The first run, as a new engineer meets it: `npm start` (the script npm runs)
 * in a child process, on ports none of the defaults name and with files of its own (LOCAL_DIR).
 * A port already taken stops it at once with one line; a stack that starts says so in one Ready
 * block, prints one line per call and keeps the full logs in the file it names; and every command
 * of docs/local-development.md runs as written against it, printing what the doc says.
 */

/** How long each start with a taken port took, to compare with a start that goes all the way. */
const refusedMs: number[] = [];

describe('npm start with a port already taken', () => {
  it.each(PORTS)(
    'stops at once with one line naming %s and what it is for (%s), having started nothing',
    async (variable, what) => {
      const ports = await freePorts();
      const port = ports[variable];
      const holder = await holdPort(port);
      const localDir = mkdtempSync(join(tmpdir(), 'start-'));
      try {
        const started = Date.now();
        const child = startScript({ ...portEnv(ports), LOCAL_DIR: localDir });
        let stdout = '';
        let stderr = '';
        child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const code = await exitWithin(child, 30_000);
        refusedMs.push(Date.now() - started);
        expect(code).toBe(1);
        expect(stderr.trim().split('\n')).toEqual([
          `Port ${port} (${what}) is already in use: stop what holds it, or move it with ${variable}, e.g. ${variable}=${port + 100} npm start`,
        ]);
        // Every step of a start announces itself ("Building functions...", "Starting DynamoDB Local..."): none began.
        expect(stdout).toBe('');
      } finally {
        await closeServer(holder);
        rmSync(localDir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe('npm start on ports of its own', () => {
  let ports: Record<PortVariable, number>;
  let dir: string;
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  let startMs = 0;
  let token: string;

  beforeAll(async () => {
    ports = await freePorts();
    dir = mkdtempSync(join(tmpdir(), 'first-run-'));
    const started = Date.now();
    child = startScript({ ...portEnv(ports), LOCAL_DIR: dir });
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(
      'the Ready block',
      () => {
        if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${stdout}\n${stderr}`);
        return /^={2,}$/m.test(stdout.slice(stdout.indexOf('== Ready')));
      },
      150_000,
    );
    startMs = Date.now() - started;
    token = `Bearer ${signToken(loadOrCreateSigningKey(join(dir, 'keys')), { customerId: DEMO_CUSTOMERS.anna.customerId })}`;
  }, 180_000);

  afterAll(async () => {
    // A stack a failed test left running is stopped as a person would, so its Java and offline go too.
    if (child.exitCode === null && child.signalCode === null) await exitWithin(child, 0);
    rmSync(dir, { recursive: true, force: true });
  });

  const api = () => `http://127.0.0.1:${ports.API_PORT}`;

  it('stopped the refused starts in a fraction of the time a start takes', () => {
    expect(refusedMs).toHaveLength(PORTS.length);
    expect(Math.max(...refusedMs)).toBeLessThan(startMs / 3);
  });

  it("says it is ready in one block, with the addresses a person uses, never serverless offline's own port", async () => {
    const block = stdout.slice(stdout.indexOf('== Ready'));
    expect(stdout.split('== Ready')).toHaveLength(2);
    expect(block).toContain(`API              ${api()}\n`);
    expect(block).toContain(`Demo page        http://127.0.0.1:${ports.PAGE_PORT}/\n`);
    expect(block).toContain(`API reference    http://127.0.0.1:${ports.PAGE_PORT}/docs/\n`);
    expect(block).toContain(`Full logs        ${join(dir, 'service.log')}`);
    // Only the stack's own ports are named anywhere in the window: offline's internal one is in the log file.
    const named = new Set([...stdout.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1])));
    expect([...named].filter((port) => !Object.values(ports).includes(port))).toEqual([]);
    expect(stdout).not.toContain('Server ready');
    expect(readFileSync(join(dir, 'service.log'), 'utf8')).toContain('Server ready');
    // The addresses answer.
    expect((await fetch(`http://127.0.0.1:${ports.PAGE_PORT}/`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.PAGE_PORT}/docs/`)).status).toBe(200);
  });

  it("prints one line per call (method, path, status, errorCode, correlation id) and keeps the functions' logs in the file", async () => {
    const calls = [
      { correlationId: randomUUID(), path: '/api/v1/termination-reasons', line: ' -> 200 (' },
      { correlationId: randomUUID(), path: `/api/v1/contracts/${randomUUID()}/termination-requests`, line: ' -> 404 CONTRACT_NOT_FOUND (' },
    ];
    for (const call of calls) {
      const response = await fetch(`${api()}${call.path}`, { headers: { Authorization: token, 'X-Correlation-Id': call.correlationId } });
      await response.text();
    }
    for (const call of calls) {
      await waitFor(`the line of ${call.correlationId}`, () => stdout.includes(call.correlationId));
      const lines = stdout.split('\n').filter((l) => l.includes(call.correlationId));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d GET ${call.path}${call.line.replace('(', '\\(')}\\d+ ms\\)  ${call.correlationId}$`),
      );
      // The full story, the function's own JSON log lines, is in the file the banner names.
      await waitFor(`the log of ${call.correlationId}`, () => readFileSync(join(dir, 'service.log'), 'utf8').includes(call.correlationId));
    }
    expect(stdout).not.toContain('"level":');
  });

  it("keeps routine traffic (a preflight, a page's own reads) to the log file, out of the window", async () => {
    const origin = `http://127.0.0.1:${ports.PAGE_PORT}`;
    const correlationId = randomUUID();
    const path = '/api/v1/termination-reasons';
    await (
      await fetch(`${api()}${path}`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' } })
    ).text();
    await (await fetch(`${api()}${path}`, { headers: { Authorization: token, Origin: origin, 'X-Correlation-Id': correlationId } })).text();
    const log = () => readFileSync(join(dir, 'service.log'), 'utf8');
    await waitFor(
      'the routine lines in the log file',
      () => log().includes(`GET ${path} -> 200`) && log().includes(`OPTIONS ${path} -> 200`),
    );
    expect(stdout).not.toContain('OPTIONS ');
    expect(stdout).not.toContain(correlationId);
  });

  it('runs every command of docs/local-development.md as written, each printing what the doc says', async () => {
    const commands = docCommands(readFileSync('docs/local-development.md', 'utf8'));
    expect(commands.length).toBeGreaterThanOrEqual(12);
    const script = commands.map((c, i) => `echo "@@start ${i}"\n${c.command}\necho "@@end ${i} $?"`).join('\n');
    const run = spawn('bash', ['-c', script], { env: { ...process.env, LOCAL_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    run.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    run.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    await new Promise((resolve) => run.once('exit', resolve));
    const failures = commands.flatMap((c, i) => {
      const section = new RegExp(`@@start ${i}\\n([\\s\\S]*?)@@end ${i} (\\d+)\\n`).exec(out);
      if (!section) return [`${c.command}\n  did not finish\n${err}`];
      const [, printed = '', code] = section;
      const problems = [];
      if (Number(code) !== c.exitCode) problems.push(`exit ${code}, the doc says ${c.exitCode}`);
      for (const expected of c.expected) if (!matchesInOrder(printed, expected)) problems.push(`printed no "${expected}"`);
      return problems.length === 0 ? [] : [`${c.command}\n  ${problems.join('; ')}\n  printed: ${printed}`];
    });
    expect(failures, err).toEqual([]);
  }, 240_000);

  it('stops everything on Ctrl-C: every port free again, the stack file gone', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const port of Object.values(ports)) expect(await taken(port), `port ${port}`).toBe(false);
    expect(existsSync(join(dir, 'stack.json'))).toBe(false);
  }, 60_000);
});

/** The curl line npm start printed for a demo customer, as a person would paste it. */
function curlLineOf(stdout: string, customer: string): string {
  const from = stdout.indexOf(`== ${customer}:`);
  const start = stdout.indexOf('curl -i -X POST', from);
  const end = stdout.indexOf('\n\n', start);
  if (from === -1 || start === -1 || end === -1) throw new Error(`no curl line for ${customer} in:\n${stdout}`);
  return stdout.slice(start, end);
}

/** The process ids of a process's children, with their command names (ps, by parent id: nothing else is touched). */
function childrenOf(pid: number): { pid: number; command: string }[] {
  const listed = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout;
  return listed
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .flatMap(([id, command]) => (id === undefined || command === undefined || id === '' ? [] : [{ pid: Number(id), command }]));
}

describe('npm start --persist, run twice on the same data', () => {
  it("answers each run's curl line 201 as its Ready block says, and stops with one line naming DynamoDB Local when it dies", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'persist-'));
    try {
      for (const run of [1, 2]) {
        // Ports of its own for each run: another test file may take the ports the first run gave back.
        const ports = await freePorts();
        const child = spawn(process.execPath, [tsx, 'scripts/start.ts', '--persist'], {
          env: { ...process.env, ...portEnv(ports), LOCAL_DIR: dir },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        try {
          await waitFor(
            `run ${run}'s Ready block`,
            () => {
              if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${stdout}\n${stderr}`);
              return /^={2,}$/m.test(stdout.slice(stdout.indexOf('== Ready')));
            },
            180_000,
          );
          expect(stdout).toContain('201 the first time');
          const pasted = spawnSync('bash', ['-c', curlLineOf(stdout, 'anna')], { encoding: 'utf8' });
          expect(pasted.stdout.split('\n')[0], `run ${run}`).toMatch(/^HTTP\/1\.1 201 /);
          if (run === 1) {
            expect(await exitWithin(child, 0)).toBe('still running');
            continue;
          }
          // DynamoDB Local dies under the running stack: one line names it, and everything stops.
          const stack = parsedObject(readFileSync(join(dir, 'stack.json'), 'utf8'));
          const java = childrenOf(Number(stack['pid'])).find((c) => c.command === 'java');
          expect(java).toBeDefined();
          process.kill(java?.pid ?? 0, 'SIGKILL');
          expect(await exitWithin(child, 60_000)).toBe(1);
          const lines = stderr.split('\n');
          expect(lines.filter((line) => line.includes('DynamoDB Local stopped'))).toHaveLength(1);
          expect(lines.filter((line) => line.includes('Reading the stream failed')).length).toBeLessThanOrEqual(1);
          for (const port of Object.values(ports)) expect(await taken(port), `port ${port}`).toBe(false);
        } finally {
          if (child.exitCode === null && child.signalCode === null) await exitWithin(child, 0);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});

interface DocCommand {
  command: string;
  /** What the `# ->` lines after it say it prints (`…` for anything). */
  expected: string[];
  exitCode: number;
}

/**
 * The commands of the doc's sh blocks, in order, each with the `# -> ...` lines that follow it.
 * The two commands that make a stack (npm ci, npm start, npm test) are what this test does itself.
 */
function docCommands(markdown: string): DocCommand[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const commands: DocCommand[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const expectation = /^# -> (.*)$/.exec(line);
      const last = commands[commands.length - 1];
      if (expectation && last) {
        const text = expectation[1] ?? '';
        const exit = /\s*\(exit (\d+)\)$/.exec(text);
        last.expected.push(exit ? text.slice(0, exit.index) : text);
        if (exit) last.exitCode = Number(exit[1]);
        continue;
      }
      if (line.trim() === '' || line.startsWith('#')) continue;
      let command = line;
      while (command.endsWith('\\') && i + 1 < lines.length) command = `${command}\n${lines[++i] ?? ''}`;
      if (/^npm (ci|start|test)\b/.test(command)) continue;
      commands.push({ command, expected: [], exitCode: 0 });
    }
  }
  return commands;
}

/** Whether `text` holds the parts of `expected` between its `…`, in that order. */
function matchesInOrder(text: string, expected: string): boolean {
  let from = 0;
  for (const part of expected.split('…')) {
    const at = text.indexOf(part, from);
    if (at === -1) return false;
    from = at + part.length;
  }
  return true;
}
