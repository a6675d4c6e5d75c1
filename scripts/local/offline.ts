import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { collectOutput, stopChild } from './child-process';

export interface OfflineOptions {
  apiPort: number;
  lambdaPort: number;
  env: Record<string, string>;
  /** Where serverless offline's own output goes; the default keeps it for error reports. */
  output?: 'inherit' | 'pipe';
}

export interface RunningOffline {
  url: string;
  child: ChildProcess;
  /** Everything serverless offline (and the functions in it) printed so far, when piped. */
  output: () => string;
  stop: () => Promise<void>;
}

const serverlessBin = createRequire(import.meta.url).resolve('osls/bin/serverless.js');

/** Starts `serverless offline --stage local` and waits until its HTTP port answers. */
export async function startOffline(options: OfflineOptions): Promise<RunningOffline> {
  const child = spawn(process.execPath, [serverlessBin, 'offline', 'start', '--stage', 'local'], {
    env: {
      ...process.env,
      ...options.env,
      API_PORT: String(options.apiPort),
      LAMBDA_PORT: String(options.lambdaPort),
      SLS_TELEMETRY_DISABLED: '1',
    },
    stdio: ['ignore', options.output ?? 'pipe', options.output ?? 'pipe'],
  });
  const output = collectOutput(child);
  const url = `http://127.0.0.1:${options.apiPort}`;
  const stop = () => stopChild(child);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited with code ${child.exitCode}:\n${output()}`);
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
      return { url, child, output, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await stop();
  throw new Error(`serverless offline did not answer within 60 s:\n${output()}`);
}
