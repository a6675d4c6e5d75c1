import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { invokeOffline, InvokeError } from './offline-lambda';

/*
 * How the operator tools (npm run redrive) call a function synchronously (RequestResponse) and
 * read its answer: serverless offline's Lambda API on a laptop, the AWS CLI in AWS (the project
 * has no Lambda SDK; the CLI signs with the operator's own credentials). Both throw when the
 * function failed, so a caller keeps what it was redriving.
 */

/** Calls one function with an event; its answer, or a throw when it failed or could not be called. */
export type LambdaInvoke = (event: unknown) => Promise<unknown>;

/** A function of the local stack (its serverless key, e.g. applyStatusDecision) through serverless offline. */
export function offlineInvoker(functionKey: string, lambdaPort: number): LambdaInvoke {
  return async (event) => {
    try {
      return await invokeOffline(functionKey, event, lambdaPort);
    } catch (error) {
      // fetch's own failure: nothing listens on the port.
      if (error instanceof TypeError)
        throw new InvokeError(functionKey, `serverless offline does not answer on port ${lambdaPort}: is npm start running?`);
      throw error;
    }
  };
}

/** How `aws` is run: execFile's answer, or its error (ENOENT when there is no `aws`). */
export type RunCommand = (file: string, args: string[], options: { maxBuffer: number }) => Promise<{ stdout: string }>;

const runCommand: RunCommand = (file, args, options) => promisify(execFile)(file, args, options);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parse(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A deployed function through `aws lambda invoke`. The event goes by a file, never the command
 * line (events can exceed its length, and they hold personal data); the file is private to this
 * user and removed at once.
 */
export function awsCliInvoker(functionName: string, region: string, run: RunCommand = runCommand): LambdaInvoke {
  return async (event) => {
    const dir = mkdtempSync(join(tmpdir(), 'redrive-'));
    try {
      const input = join(dir, 'event.json');
      const output = join(dir, 'answer.json');
      writeFileSync(input, JSON.stringify(event), { mode: 0o600 });
      let stdout: string;
      try {
        ({ stdout } = await run(
          'aws',
          [
            'lambda',
            'invoke',
            '--function-name',
            functionName,
            '--region',
            region,
            '--payload',
            `fileb://${input}`,
            '--output',
            'json',
            output,
          ],
          { maxBuffer: 1024 * 1024 },
        ));
      } catch (error) {
        const missing = error instanceof Error && 'code' in error && error.code === 'ENOENT';
        throw new InvokeError(
          functionName,
          missing ? 'the AWS CLI (aws) is not on the PATH: it is needed to invoke functions in AWS' : String(error),
        );
      }
      const status = parse(stdout);
      const answer = parse(readFileSync(output, 'utf8'));
      const functionError = isObject(status) ? status['FunctionError'] : undefined;
      if (typeof functionError === 'string' && functionError !== '') {
        const detail = isObject(answer) && typeof answer['errorMessage'] === 'string' ? answer['errorMessage'] : JSON.stringify(answer);
        throw new InvokeError(functionName, `${functionError}: ${detail}`);
      }
      return answer;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
