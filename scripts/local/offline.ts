import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { collectOutput, stopChild } from './child-process';
import { randomUUID } from 'node:crypto';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { startLocalGateway, type AnsweredCall } from './gateway';
import { startLambdaGuard } from './lambda-guard';
import { InvokeError, invokeOffline } from './offline-lambda';
import { LOCAL_ALLOWED_ORIGINS } from './service-env';

export interface OfflineOptions {
  /** Where clients call the API: the local gateway in front of serverless offline. */
  apiPort: number;
  /** The address it listens on: loopback unless told otherwise (a phone on the LAN: 0.0.0.0). */
  host?: string;
  /** Where the tools call the Lambda API: the guard (lambda-guard.ts), on loopback, in front of serverless offline's. */
  lambdaPort: number;
  env: Record<string, string>;
  /**
   * Where serverless offline's own output (its banner, the functions' log lines) goes: kept for
   * error reports (the default), shown, or written to a file (npm start), of which the last lines
   * are kept for error reports.
   */
  output?: 'inherit' | 'pipe' | { file: string };
  /** Each call the local gateway answered, once answered. */
  onCall?: (call: AnsweredCall) => void;
}

export interface RunningOffline {
  url: string;
  child: ChildProcess;
  /** Everything serverless offline (and the functions in it) printed so far, when piped. */
  output: () => string;
  stop: () => Promise<void>;
}

const serverlessBin = createRequire(import.meta.url).resolve('osls/bin/serverless.js');

/** The authorizer's own time-out (serverless.yml) and a little more: an answer later than that is a failure. */
const AUTHORIZER_WAIT_MS = 6_000;

/**
 * Whether the authorizer refuses the call's token: asked through the Lambda API with the event API
 * Gateway gives a REQUEST authorizer. Only its "Unauthorized" is a refusal; any other error, or no
 * answer in time, is a failure (false).
 */
async function authorizerRefuses(
  lambdaPort: number,
  call: { method: string; path: string; headers: IncomingHttpHeaders },
): Promise<boolean> {
  const headers = Object.fromEntries(
    Object.entries(call.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );
  const event = {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:eu-central-1:000000000000:local/local/${call.method}${call.path}`,
    headers,
    requestContext: { requestId: randomUUID() },
  };
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), AUTHORIZER_WAIT_MS).unref());
  try {
    // An Allow, or no answer in time: either way not a refusal.
    await Promise.race([invokeOffline('authorizeCustomer', event, lambdaPort), timeout]);
    return false;
  } catch (error) {
    return error instanceof InvokeError && /: Unauthorized$/.test(error.message);
  }
}

/**
 * Starts `serverless offline --stage local` on a Unix socket of its own, waits until it
 * answers, and puts the local gateway (gateway.ts) in front of it on apiPort. Its Lambda API
 * listens on a Unix socket in a private folder, which no browser can reach, and the guard
 * (lambda-guard.ts) answers on lambdaPort.
 */
export async function startOffline(options: OfflineOptions): Promise<RunningOffline> {
  const socketDir = mkdtempSync(join(tmpdir(), 'contract-termination-lambda-'));
  const lambdaSocket = join(socketDir, 'lambda.sock');
  // Its HTTP API too: only the local gateway, which checks the Host, reaches it.
  const apiSocket = join(socketDir, 'api.sock');
  const guard = await startLambdaGuard({ port: options.lambdaPort, socketPath: lambdaSocket }).catch((error: unknown) => {
    rmSync(socketDir, { recursive: true, force: true });
    throw error;
  });
  const allowedOrigins = options.env['ALLOWED_ORIGINS'] ?? LOCAL_ALLOWED_ORIGINS.join(',');
  const child = spawn(process.execPath, [serverlessBin, 'offline', 'start', '--stage', 'local'], {
    env: {
      ...process.env,
      ...options.env,
      ALLOWED_ORIGINS: allowedOrigins,
      API_HOST: '127.0.0.1',
      API_PORT: apiSocket,
      // A path: hapi, under serverless offline's Lambda API, listens on a Unix socket.
      LAMBDA_PORT: lambdaSocket,
      SLS_TELEMETRY_DISABLED: '1',
    },
    stdio: ['ignore', options.output === 'inherit' ? 'inherit' : 'pipe', options.output === 'inherit' ? 'inherit' : 'pipe'],
  });
  const toFile = typeof options.output === 'object' ? options.output.file : undefined;
  if (toFile !== undefined) {
    mkdirSync(dirname(toFile), { recursive: true });
    const log = createWriteStream(toFile);
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('exit', () => log.end());
  }
  const output = collectOutput(child, toFile === undefined ? Infinity : 20_000);
  const upstream = 'http://127.0.0.1';
  const stopOffline = async () => {
    await stopChild(child);
    await guard.stop();
    rmSync(socketDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await stopOffline();
      throw new Error(`serverless offline exited with code ${child.exitCode}:\n${output()}`);
    }
    const up = await new Promise<boolean>((resolve) => {
      const probe = httpGet({ socketPath: apiSocket, path: '/', timeout: 1000 }, (answer) => {
        answer.resume();
        resolve(true);
      });
      probe.on('timeout', () => probe.destroy());
      probe.on('error', () => resolve(false));
    });
    if (up) {
      const gateway = await startLocalGateway({
        port: options.apiPort,
        host: options.host ?? '127.0.0.1',
        upstream,
        upstreamSocketPath: apiSocket,
        allowedOrigins: allowedOrigins
          .split(',')
          .map((o) => o.trim())
          .filter((o) => o !== ''),
        ...(options.onCall ? { onCall: options.onCall } : {}),
        refusesToken: (call) => authorizerRefuses(options.lambdaPort, call),
      }).catch(async (error: unknown) => {
        await stopOffline();
        throw error;
      });
      return {
        url: gateway.url,
        child,
        output,
        stop: async () => {
          await gateway.stop();
          await stopOffline();
        },
      };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stopOffline();
  throw new Error(`serverless offline did not answer within 60 s:\n${output()}`);
}
