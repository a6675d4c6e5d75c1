import { createServer } from 'node:net';
import { localDefaults } from './service-env';

/*
 * npm start checks every port it will listen on before it starts anything, and stops at once
 * with one line per port it cannot use: which port, what it is for, and the variable that moves
 * it. A listen that still fails later (something took the port meanwhile) says the same line.
 */

/** A port the local stack listens on. */
export interface StackPort {
  /** The environment variable that moves it. */
  variable: string;
  /** What listens there, for a person: "the API", "DynamoDB Local". */
  what: string;
  port: number;
  /** The address it binds: loopback unless npm start is told otherwise. */
  host: string;
}

/** Every port npm start listens on, what for, and the variable that moves it (docs/local-development.md lists them). */
export function stackPorts(host: string): StackPort[] {
  const { apiPort, pagePort, dynamoDbPort, jwksPort, lambdaPort, awsStandInPort } = localDefaults;
  return [
    { variable: 'API_PORT', what: 'the API', port: apiPort, host },
    { variable: 'PAGE_PORT', what: 'the demo page and the API reference', port: pagePort, host },
    { variable: 'DYNAMODB_PORT', what: 'DynamoDB Local', port: dynamoDbPort, host: process.env['DYNAMODB_HOST'] ?? '127.0.0.1' },
    { variable: 'JWKS_PORT', what: 'the JWKS', port: jwksPort, host: '127.0.0.1' },
    { variable: 'LAMBDA_PORT', what: "serverless offline's Lambda API", port: lambdaPort, host: '127.0.0.1' },
    { variable: 'AWS_STAND_IN_PORT', what: 'the EventBridge and SQS stand-in', port: awsStandInPort, host: '127.0.0.1' },
  ];
}

export class PortsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'PortsError';
  }
}

/** The one line for a port another program holds. */
export const inUseLine = ({ variable, what, port }: StackPort): string =>
  `Port ${port} (${what}) is already in use: stop what holds it, or move it with ${variable}, e.g. ${variable}=${port + 100} npm start`;

/** 'free', or why a listener on host:port cannot be had (EADDRINUSE, EACCES, ...). */
function bindable(port: number, host: string): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve('free')));
  });
}

/** Whether Node's fetch refuses the port outright (the WHATWG "bad ports", e.g. 6000): the stack could not call itself there. */
async function fetchRefuses(port: number): Promise<boolean> {
  const cause = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) }).then(
    () => '',
    (error: unknown) => (error instanceof Error && error.cause instanceof Error ? error.cause.message : ''),
  );
  return cause === 'bad port';
}

/**
 * Every problem with the ports at once, one line each; nothing is listening on any of them
 * afterwards. A port is taken when another program listens on it, on this address or on every
 * address, whether or not it speaks HTTP.
 */
export async function portProblems(ports: StackPort[]): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Map<number, StackPort>();
  for (const entry of ports) {
    const { variable, what, port, host } = entry;
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      problems.push(`${variable}=${port} is not a port number (${what}); choose one from 1 to 65535`);
      continue;
    }
    const other = seen.get(port);
    if (other !== undefined) {
      problems.push(`Port ${port} is named twice, for ${other.what} (${other.variable}) and ${what} (${variable}): move one of them`);
      continue;
    }
    seen.set(port, entry);
    const state = await bindable(port, host);
    if (state === 'EADDRINUSE') problems.push(inUseLine(entry));
    else if (state === 'EACCES')
      problems.push(
        `Port ${port} (${what}) needs privileges this user lacks: move it with ${variable}, e.g. ${variable}=${port + 3000} npm start`,
      );
    else if (state !== 'free')
      problems.push(`Port ${port} (${what}) on ${host} cannot be listened on (${state}): move it with ${variable}`);
    else if (await fetchRefuses(port))
      problems.push(`Port ${port} (${what}) is one Node's fetch refuses (a WHATWG "bad port"): move it with ${variable}`);
  }
  return problems;
}

export async function assertUsablePorts(ports: StackPort[]): Promise<void> {
  const problems = await portProblems(ports);
  if (problems.length > 0) throw new PortsError(problems);
}

/** The one line for a listen that failed after the check (EADDRINUSE on one of `ports`), if it is one. */
export function lateBindProblem(error: unknown, ports: StackPort[]): string | undefined {
  if (!(error instanceof Error) || !('code' in error) || error.code !== 'EADDRINUSE' || !('port' in error)) return undefined;
  const entry = ports.find((p) => p.port === error.port);
  return entry === undefined ? undefined : inUseLine(entry);
}
