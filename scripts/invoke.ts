import { readdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runningStack } from './local/running-stack';
import { localServiceEnv } from './local/service-env';

/*
 * npm run invoke -- <function> <event file>: runs one Lambda entry point of functions/ with an
 * event (e.g. from events/) against the local stack that npm start runs (its DynamoDB Local and
 * JWKS), and prints what the handler returned. `serverless invoke local` cannot load the ESM
 * bundles, so this runs the source, with the same settings serverless offline gives it.
 */

const names = readdirSync('functions').map((file) => basename(file, '.ts'));
const { positionals } = parseArgs({ allowPositionals: true });
const [name, eventFile] = positionals;
if (name === undefined || eventFile === undefined || !names.includes(name)) {
  console.error(
    `usage: npm run invoke -- <function> <event file>\n  functions: ${names.join(', ')}\n  e.g. npm run invoke -- create-termination-request events/create-request.json`,
  );
  process.exit(2);
}

// The stack npm start runs, on the ports it really uses (.local/stack.json).
const stack = runningStack();
Object.assign(process.env, {
  ...localServiceEnv({
    dynamoDbEndpoint: stack.dynamoDbEndpoint,
    jwksUri: stack.jwksUri,
    awsStandIn: stack.awsStandIn,
    tables: stack.tables,
  }),
  POWERTOOLS_METRICS_DISABLED: 'true',
  ...process.env,
});
const event: unknown = JSON.parse(readFileSync(eventFile, 'utf8'));
// stdout is the handler's answer alone, so that it can be piped: whatever else writes there
// (the function's JSON log lines) goes to stderr.
const answer = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const loaded: unknown = await import(pathToFileURL(resolve('functions', `${name}.ts`)).href);
if (loaded === null || typeof loaded !== 'object' || !('handler' in loaded) || typeof loaded.handler !== 'function') {
  throw new Error(`functions/${name}.ts exports no handler`);
}
// No Lambda context: the handler runs with no time limit, as under any tool (lib/observability/lambda-context.ts).
const result: unknown = await Reflect.apply(loaded.handler, undefined, [event]);
answer(`${JSON.stringify(result, null, 2)}\n`);
