import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { localDefaults } from './service-env';

/*
 * The processes npm start runs beside itself (DynamoDB Local's Java, serverless offline), kept by
 * id in a file as each is spawned. A stack that stops stops them and removes the file; a stack
 * that could not (its own process killed outright) leaves the file, and the next npm start stops
 * what it names before it checks the ports. An id is acted on only while the process holding it
 * runs the very command line recorded for it, so an id the system gave to another program since
 * is left alone.
 */

export interface StackChild {
  /** What it is, for a person: "DynamoDB Local", "serverless offline". */
  name: string;
  pid: number;
  /** Its command line as the system showed it when it started. */
  command: string;
}

/** LOCAL_DIR moves it with the rest of the stack's files. */
export const CHILDREN_FILE = `${localDefaults.localDir}/children.json`;

/** A process's command line as `ps` shows it; undefined once it has gone. */
function commandOf(pid: number): string | undefined {
  const shown = spawnSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  const command = shown.status === 0 ? shown.stdout.trim() : '';
  return command === '' ? undefined : command;
}

/**
 * Whether a process has exited: gone, or a zombie. A process killed is still closing its files
 * (and the ports they hold) for a while after its command line has gone from `ps`.
 */
function hasExited(pid: number): boolean {
  const shown = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return shown.status !== 0 || shown.stdout.trim() === '' || shown.stdout.trim().startsWith('Z');
}

function isStackChild(value: unknown): value is StackChild {
  return (
    typeof value === 'object' &&
    value !== null &&
    'name' in value &&
    typeof value.name === 'string' &&
    'pid' in value &&
    typeof value.pid === 'number' &&
    'command' in value &&
    typeof value.command === 'string'
  );
}

/** The children the file names (none when there is no file, or one that is not ours). */
export function recordedChildren(file = CHILDREN_FILE): StackChild[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter(isStackChild) : [];
  } catch {
    return [];
  }
}

/** Notes a child as soon as it is spawned. */
export function recordChild(name: string, pid: number | undefined, file = CHILDREN_FILE): void {
  if (pid === undefined) return;
  const command = commandOf(pid);
  if (command === undefined) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify([...recordedChildren(file), { name, pid, command }], null, 2)}\n`);
}

/** After a stop that stopped them all. */
export function forgetChildren(file = CHILDREN_FILE): void {
  rmSync(file, { force: true });
}

/** Whether the process is still the child recorded. */
export const stillRunning = (child: StackChild): boolean => commandOf(child.pid) === child.command;

/**
 * Stops what an earlier stack left running (the file's children still running their recorded
 * command), waiting up to 15 s for each to have exited, its ports closed; returns what it stopped.
 */
export async function stopLeftovers(file = CHILDREN_FILE): Promise<StackChild[]> {
  const left = recordedChildren(file).filter(stillRunning);
  for (const child of left) process.kill(child.pid, 'SIGKILL');
  const deadline = Date.now() + 15_000;
  while (left.some((child) => !hasExited(child.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  forgetChildren(file);
  return left;
}
