import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { freePort } from '../../scripts/local/free-port';

/*
 * `npm start` (the script npm runs) in a child process, on ports none of the defaults name, for
 * the tests that start the whole stack as a person does (tests/http/first-run.test.ts,
 * tests/http/stack-crash.test.ts).
 */

export const tsx = createRequire(import.meta.url).resolve('tsx/cli');

/** Each port variable npm start reads, and what the one line calls it. */
export const PORTS = [
  ['API_PORT', 'the API'],
  ['PAGE_PORT', 'the demo page and the API reference'],
  ['DYNAMODB_PORT', 'DynamoDB Local'],
  ['JWKS_PORT', 'the JWKS'],
  ['LAMBDA_PORT', "serverless offline's Lambda API"],
  ['AWS_STAND_IN_PORT', 'the EventBridge and SQS stand-in'],
] as const;
export type PortVariable = (typeof PORTS)[number][0];

/** A free port for each variable, all different. */
export async function freePorts(): Promise<Record<PortVariable, number>> {
  const taken = new Set<number>();
  const next = async (): Promise<number> => {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    return port;
  };
  return {
    API_PORT: await next(),
    PAGE_PORT: await next(),
    DYNAMODB_PORT: await next(),
    JWKS_PORT: await next(),
    LAMBDA_PORT: await next(),
    AWS_STAND_IN_PORT: await next(),
  };
}

export const portEnv = (ports: Record<PortVariable, number>) =>
  Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)]));

export function startScript(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [tsx, 'scripts/start.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A listener that accepts connections and never says a word: not HTTP, as `nc -l` holds a port. */
export function holdPort(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.on('error', () => undefined));
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Whether something listens on the port (a listen there fails). */
export function taken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

export async function waitFor(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The child's exit code; a child still running after `ms` is stopped (Ctrl-C, then kill) and counts as 'still running'. */
export async function exitWithin(child: ChildProcess, ms: number): Promise<number | null | 'still running'> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const timer = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms));
  const first = await Promise.race([exited, timer]);
  if (first === 'still running') {
    child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killer);
  }
  return first;
}
