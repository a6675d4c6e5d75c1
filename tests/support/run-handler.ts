// node run-handler.ts <handler file> <export> <event file>: calls a Lambda bundle's handler once,
// as the Node.js runtime would, and prints its result on a line of its own after the function's
// logs (tests/support/deployed-functions.ts). Run by Node itself (type stripping), not bundled.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [file = '', exportName = 'handler', eventFile = ''] = process.argv.slice(2);
const loaded: unknown = await import(pathToFileURL(file).href);
const handler: unknown = typeof loaded === 'object' && loaded !== null ? Reflect.get(loaded, exportName) : undefined;
if (typeof handler !== 'function') throw new Error(`${file} exports no function ${exportName}`);
const name = process.env['AWS_LAMBDA_FUNCTION_NAME'] ?? '';
const region = process.env['AWS_REGION'] ?? '';
const deadline = Date.now() + 30_000;
const context = {
  functionName: name,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:${region}:123456789012:function:${name}`,
  memoryLimitInMB: process.env['AWS_LAMBDA_FUNCTION_MEMORY_SIZE'] ?? '512',
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${name}`,
  logStreamName: 'rehearsal',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
};
const result: unknown = await Reflect.apply(handler, undefined, [JSON.parse(readFileSync(eventFile, 'utf8')), context]);
process.stdout.write(`\nHANDLER-RESULT ${JSON.stringify({ result: result ?? null })}\n`);
