import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { collectOutput, stopChild } from '../../scripts/local/child-process';
import { freePort } from '../../scripts/local/free-port';

/*
 * moto_server, the AWS emulator of Python's moto package, on a free loopback port: the
 * CloudFormation engine the deploy is rehearsed on (tests/deploy/rehearsal.test.ts). It is a
 * Python tool (pip install 'moto[server]'); where it is missing the rehearsal says so and is skipped.
 */

export const MOTO_ACCOUNT_ID = '123456789012';
export const MOTO_REGION = 'eu-central-1';

export const motoInstalled = (): boolean => spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status === 0;

export interface Moto {
  endpoint: string;
  /** What every AWS SDK (the framework's and the functions') needs to talk to moto instead of AWS. */
  env: Record<string, string>;
  /** The resource types moto's CloudFormation skipped so far: it warns once per type. */
  unsupportedTypes: () => string[];
  output: () => string;
  stop: () => Promise<void>;
}

export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONWARNINGS: 'default' },
  });
  const output = collectOutput(child);
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited: ${output()}`);
    const ready = await fetch(`${endpoint}/moto-api/`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`moto_server did not answer on ${endpoint} within 60 s: ${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    endpoint,
    env: {
      AWS_ENDPOINT_URL: endpoint,
      // Without it the S3 client addresses bucket.localhost, which does not resolve.
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: 'rehearsal',
      AWS_SECRET_ACCESS_KEY: 'rehearsal',
      AWS_REGION: MOTO_REGION,
      AWS_DEFAULT_REGION: MOTO_REGION,
    },
    unsupportedTypes: () =>
      [...new Set([...output().matchAll(/Tried to parse (AWS::[\w:]+) but it's not supported/g)].map((match) => match[1] ?? ''))].sort(),
    output,
    stop: () => stopChild(child),
  };
}
