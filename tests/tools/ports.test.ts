import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/local/free-port';
import { lateBindProblem, portProblems, stackPorts, type StackPort } from '../../scripts/local/ports';

/*
 * What npm start checks before it starts anything: each port it cannot have, one
 * line each, found by trying to listen there, so a listener that speaks no HTTP counts too.
 * tests/http/first-run.test.ts runs npm start itself with each port taken.
 */

let holder: Server;
let held: number;

beforeAll(async () => {
  held = await freePort();
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(held, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

const entry = (variable: string, what: string, port: number): StackPort => ({ variable, what, port, host: '127.0.0.1' });

describe('portProblems', () => {
  it('names every port it cannot have at once, one line each, and leaves the free ones free', async () => {
    const free = await freePort();
    const problems = await portProblems([
      entry('API_PORT', 'the API', held),
      entry('PAGE_PORT', 'the demo page', free),
      entry('LAMBDA_PORT', "serverless offline's Lambda API", free),
      entry('JWKS_PORT', 'the JWKS', 70_000),
    ]);
    expect(problems).toEqual([
      `Port ${held} (the API) is already in use: stop what holds it, or move it with API_PORT, e.g. API_PORT=${held + 100} npm start`,
      `Port ${free} is named twice, for the demo page (PAGE_PORT) and serverless offline's Lambda API (LAMBDA_PORT): move one of them`,
      'JWKS_PORT=70000 is not a port number (the JWKS); choose one from 1 to 65535',
    ]);
    expect(await portProblems([entry('PAGE_PORT', 'the demo page', free)])).toEqual([]);
  });

  it('counts a listener on every address as holding the loopback port too', async () => {
    const port = await freePort();
    const everywhere = createServer();
    await new Promise<void>((resolve) => everywhere.listen(port, '0.0.0.0', resolve));
    try {
      expect(await portProblems([entry('API_PORT', 'the API', port)])).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => everywhere.close(() => resolve()));
    }
  });
});

describe('lateBindProblem', () => {
  it('says the same one line for a listen that failed after the check, and nothing for other errors', async () => {
    const late = await new Promise<unknown>((resolve) => {
      const server = createServer();
      server.once('error', resolve);
      server.listen(held, '127.0.0.1');
    });
    const ports = [entry('API_PORT', 'the API', held)];
    expect(lateBindProblem(late, ports)).toBe(
      `Port ${held} (the API) is already in use: stop what holds it, or move it with API_PORT, e.g. API_PORT=${held + 100} npm start`,
    );
    expect(lateBindProblem(new Error('other'), ports)).toBeUndefined();
  });
});

describe('the ports in docs/local-development.md', () => {
  it("are npm start's: each variable's row names its default port", () => {
    const rows = readFileSync('docs/local-development.md', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('|'));
    const ports = stackPorts('127.0.0.1');
    expect(ports).toHaveLength(6);
    for (const { variable, port } of ports) {
      const row = rows.find((line) => line.includes(`\`${variable}\``));
      expect(row, variable).toContain(`http://127.0.0.1:${port}`);
    }
  });
});
