import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { onCleanup } from './cleanup';

/* Child `node` processes of the bench: tracked so that an error or Ctrl-C never leaves one behind. */

const running = new Set<ChildProcess>();
onCleanup('child processes', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface NodeRun {
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Environment for a child: ours without any loader hooks (tsx runs the bench; the children run plain node). */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_OPTIONS'];
  return env;
}

export function runNode(args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    // Only the tail is kept: a memory run's 10,000 log and metrics lines are of no use here.
    child.stdout.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-65_536)));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      const wallMs = performance.now() - started;
      clearTimeout(timer);
      running.delete(child);
      if (code === 0) resolve({ stdout, stderr, wallMs });
      else reject(new Error(`node ${args.join(' ')} ended with ${signal ?? `code ${code}`}:\n${stderr.slice(-2000)}`));
    });
  });
}

/** The last line of a child's stdout that parses as a JSON object. */
export function lastJsonLine(stdout: string): Record<string, unknown> {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return Object.fromEntries(Object.entries(value));
    } catch {
      // a log line
    }
  }
  throw new Error(`no JSON line in output:\n${stdout.slice(-1000)}`);
}
