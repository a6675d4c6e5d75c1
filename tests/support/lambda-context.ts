import type { Context } from 'aws-lambda';

/** A Lambda context as the runtime hands it to a function, with `remainingMs` left of its invocation (a fixed figure: no clock moves it). */
export function lambdaContext(functionName: string, remainingMs = 5000): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-central-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/11/24/[$LATEST]abc',
    getRemainingTimeInMillis: () => remainingMs,
    // The Context type still requires its deprecated callbacks.
    /* eslint-disable @typescript-eslint/no-deprecated */
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    /* eslint-enable @typescript-eslint/no-deprecated */
  };
}
