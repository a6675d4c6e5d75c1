import { localDefaults } from './service-env';

/** serverless offline's name for a function of the local stage. */
export const offlineFunctionName = (functionKey: string) => `contract-termination-local-${functionKey}`;

export class InvokeError extends Error {
  constructor(functionKey: string, detail: string) {
    super(`${functionKey} failed: ${detail}`);
    this.name = 'InvokeError';
  }
}

/**
 * Invokes a function of the running local stack through serverless offline's Lambda API, as
 * AWS would (RequestResponse): the bundle serverless offline serves, with its environment.
 */
export async function invokeOffline(functionKey: string, event: unknown, lambdaPort = localDefaults.lambdaPort): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${lambdaPort}/2015-03-31/functions/${offlineFunctionName(functionKey)}/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
  const text = await response.text();
  const payload: unknown = text === '' ? undefined : JSON.parse(text);
  const failed = response.headers.get('x-amz-function-error');
  if (!response.ok || failed) {
    const message = payload !== null && typeof payload === 'object' && 'errorMessage' in payload ? String(payload.errorMessage) : text;
    throw new InvokeError(functionKey, `${failed ?? response.status}: ${message}`);
  }
  return payload;
}
