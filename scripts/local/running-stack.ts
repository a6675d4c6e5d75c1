import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { localDefaults } from './service-env';

/*
 * Where the running local stack listens. npm start writes it once everything is up, so the
 * tools that talk to the stack (npm run backoffice, invoke, redrive, smoke) reach it on the ports
 * it was really started with, without exporting them again; it is removed on shutdown.
 */

export interface RunningStack {
  pid: number;
  apiUrl: string;
  dynamoDbEndpoint: string;
  jwksUri: string;
  lambdaPort: number;
  awsStandIn: string;
  pageUrl: string;
  tables: { requests: string; contracts: string; documents: string };
}

/** LOCAL_STACK_FILE moves it (tests point the tools at a stack of their own), as does LOCAL_DIR with the rest. */
export const STACK_FILE = process.env['LOCAL_STACK_FILE'] ?? `${localDefaults.localDir}/stack.json`;

export function writeRunningStack(stack: RunningStack, file = STACK_FILE): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(stack, null, 2)}\n`);
}

export function removeRunningStack(file = STACK_FILE): void {
  rmSync(file, { force: true });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isRunningStack(value: unknown): value is RunningStack {
  if (!isObject(value) || !isObject(value['tables'])) return false;
  const strings = ['apiUrl', 'dynamoDbEndpoint', 'jwksUri', 'awsStandIn', 'pageUrl'].every((k) => typeof value[k] === 'string');
  return (
    strings &&
    typeof value['pid'] === 'number' &&
    typeof value['lambdaPort'] === 'number' &&
    typeof value['tables']['requests'] === 'string' &&
    typeof value['tables']['contracts'] === 'string' &&
    typeof value['tables']['documents'] === 'string'
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is another user's.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/** The addresses npm start's defaults (and the environment's *_PORT) give: for a stack that wrote no file. */
export function defaultStack(): RunningStack {
  const { apiPort, dynamoDbPort, jwksPort, lambdaPort, awsStandInPort, pagePort, tables } = localDefaults;
  return {
    pid: 0,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    dynamoDbEndpoint: `http://127.0.0.1:${dynamoDbPort}`,
    jwksUri: `http://127.0.0.1:${jwksPort}/.well-known/jwks.json`,
    lambdaPort,
    awsStandIn: `http://127.0.0.1:${awsStandInPort}`,
    pageUrl: `http://127.0.0.1:${pagePort}`,
    tables,
  };
}

/** The stack npm start is running (its file, when its process lives), if any. */
export function liveStack(file = STACK_FILE): RunningStack | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  return isRunningStack(parsed) && isAlive(parsed.pid) ? parsed : undefined;
}

/** The stack npm start is running (its file, when its process lives), else the defaults. */
export const runningStack = (file = STACK_FILE): RunningStack => liveStack(file) ?? defaultStack();
