import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { localEndpoint } from '../../lib/aws/local-endpoint';
import { InvokeError, offlineFunctionName } from '../local/offline-lambda';

/*
 * How the operator tools (npm run redrive) call a function synchronously (RequestResponse) and
 * read its answer: one Lambda API call through the AWS SDK, to AWS with the operator's own
 * credentials, or to serverless offline's Lambda API on a laptop (the same API, the same code).
 * It throws when the function failed or could not be called, so a caller keeps what it was
 * redriving.
 */

/** Calls one function with an event; its answer, or a throw when it failed or could not be called. */
export type LambdaInvoke = (event: unknown) => Promise<unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parse(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

const refused = (error: unknown): boolean =>
  error instanceof Error &&
  (('code' in error && error.code === 'ECONNREFUSED') || (error instanceof AggregateError && error.errors.some(refused)));

/** A function through the Lambda API of `client`; `unreachable` says what to do when nothing answers. */
export function lambdaInvoker(functionName: string, client: LambdaClient, unreachable = 'the Lambda API does not answer'): LambdaInvoke {
  return async (event) => {
    let answer;
    try {
      answer = await client.send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'RequestResponse',
          Payload: new TextEncoder().encode(JSON.stringify(event)),
        }),
      );
    } catch (error) {
      throw new InvokeError(
        functionName,
        refused(error) ? unreachable : error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      );
    }
    const payload = parse(new TextDecoder().decode(answer.Payload ?? new Uint8Array()));
    if (answer.FunctionError !== undefined && answer.FunctionError !== '') {
      const detail = isObject(payload) && typeof payload['errorMessage'] === 'string' ? payload['errorMessage'] : JSON.stringify(payload);
      throw new InvokeError(functionName, `${answer.FunctionError}: ${detail}`);
    }
    return payload;
  };
}

/** A deployed function, with the operator's credentials and region. */
export function awsInvoker(functionName: string, region: string): LambdaInvoke {
  return lambdaInvoker(functionName, new LambdaClient({ region }));
}

/** A function of the local stack (its serverless key, e.g. applyStatusDecision) through serverless offline. */
export function offlineInvoker(functionKey: string, lambdaPort: number): LambdaInvoke {
  const client = new LambdaClient({ region: 'eu-central-1', maxAttempts: 1, ...localEndpoint(`http://127.0.0.1:${String(lambdaPort)}`) });
  return lambdaInvoker(
    offlineFunctionName(functionKey),
    client,
    `serverless offline does not answer on port ${String(lambdaPort)}: is npm start running?`,
  );
}
