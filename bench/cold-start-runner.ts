import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

/*
 * Runs in a fresh `node` process (bundled by the bench, no TypeScript loader): imports one Lambda
 * bundle, calls its handler once with the event from BENCH_EVENT and prints one JSON line with
 * the times since the process started (performance.now() counts from the process's time origin).
 */

const startedMs = performance.now();
const bundle = process.env['BENCH_BUNDLE'] ?? '';
const event: unknown = JSON.parse(process.env['BENCH_EVENT'] ?? 'null');
const context = {
  functionName: 'cold-start',
  awsRequestId: 'cold-start',
  getRemainingTimeInMillis: () => 10_000,
};

const mod: unknown = await import(pathToFileURL(bundle).href);
const importedMs = performance.now();
const handler: unknown = mod !== null && typeof mod === 'object' ? Reflect.get(mod, 'handler') : undefined;
if (typeof handler !== 'function') throw new Error(`${bundle} exports no handler`);
const result: unknown = await handler(event, context);
const answeredMs = performance.now();
const statusCode: unknown = result !== null && typeof result === 'object' ? Reflect.get(result, 'statusCode') : undefined;
const principal: unknown = result !== null && typeof result === 'object' ? Reflect.get(result, 'principalId') : undefined;
process.stdout.write(
  `${JSON.stringify({ startedMs, importMs: importedMs - startedMs, firstCallMs: answeredMs - importedMs, firstAnswerMs: answeredMs, statusCode, principal })}\n`,
);
process.exit(0);
