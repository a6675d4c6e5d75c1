import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../support/lambda-context';

/*
 * Powertools wired the usual way: the Lambda context in every log line of the
 * invocation, even after the edge resets its keys, and one ColdStart metric per environment.
 */

const context = lambdaContext('contract-termination-prod-getTerminationRequest');

function captureStdout(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  });
  return lines;
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  vi.restoreAllMocks();
});

const noDependencies = () => undefined;

describe('withLambdaContext', () => {
  it('puts the Lambda context and the service name in every log line, also after the keys are reset', async () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    // What Lambda sets in an environment started for an invocation: Powertools knows a cold start by it.
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    vi.resetModules();
    const { logger } = await import('../../lib/observability/logger');
    const { withLambdaContext } = await import('../../lib/observability/lambda-context');
    const lines = captureStdout();
    const handler = withLambdaContext(noDependencies, async (event: { n: number }) => {
      logger.resetKeys();
      logger.appendKeys({ correlationId: 'x' });
      logger.info('answered', { n: event.n });
      return event.n;
    });
    expect(await handler({ n: 1 }, context)).toBe(1);
    const line: unknown = JSON.parse(lines.find((l) => l.includes('answered')) ?? '{}');
    expect(line).toMatchObject({
      service: 'contract-termination',
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
      cold_start: true,
      correlationId: 'x',
      n: 1,
    });
  });

  it('counts the cold start once per environment, with the function as dimension', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'TestNamespace');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    vi.resetModules();
    const { withLambdaContext } = await import('../../lib/observability/lambda-context');
    const lines = captureStdout();
    const handler = withLambdaContext(noDependencies, () => Promise.resolve('ok'));
    await handler({}, context);
    await handler({}, context);
    const coldStarts = lines.filter((l) => l.includes('"ColdStart"'));
    expect(coldStarts).toHaveLength(1);
    expect(JSON.parse(coldStarts[0] ?? '{}')).toMatchObject({ ColdStart: 1, function_name: context.functionName });
  });

  it('runs the handler with its event alone when there is no context (tools and tests)', async () => {
    const { withLambdaContext } = await import('../../lib/observability/lambda-context');
    expect(await withLambdaContext(noDependencies, (event: string) => Promise.resolve(event.length))('abc')).toBe(3);
  });

  it('builds the dependencies once, when the function is made, and hands the same to every invocation', async () => {
    const { withLambdaContext } = await import('../../lib/observability/lambda-context');
    let built = 0;
    const handler = withLambdaContext(
      () => ({ built: ++built }),
      (_event: unknown, deps) => Promise.resolve(deps),
    );
    expect(built).toBe(1);
    const [first, second] = [await handler({}, context), await handler({})];
    expect(first).toEqual({ built: 1 });
    expect(second).toBe(first);
    expect(built).toBe(1);
  });
});
