import { parseArgs } from 'node:util';
import { runSmoke } from './smoke/checks';
import { runningStack } from './local/running-stack';

/*
 * npm run smoke -- --base <url> --token <jwt> --contract <id> [--date YYYY-MM-DD]: the
 * post-deploy check of a stage (scripts/smoke/checks.ts). Without --base it checks the local
 * stack npm start runs. Exit code 1 when a check fails.
 */

const usage = 'usage: npm run smoke -- --base <url> --token <jwt> --contract <contractId> [--date YYYY-MM-DD]';
const { values } = parseArgs({
  options: { base: { type: 'string' }, token: { type: 'string' }, contract: { type: 'string' }, date: { type: 'string' } },
});
if (values.token === undefined || values.contract === undefined) {
  console.error(`--token and --contract are required\n${usage}`);
  process.exit(2);
}
const base = values.base ?? runningStack().apiUrl;
console.log(`Smoke check of ${base}, contract ${values.contract}`);
const checks = await runSmoke({
  base,
  token: values.token,
  contractId: values.contract,
  ...(values.date === undefined ? {} : { desiredTerminationDate: values.date }),
}).catch((error: unknown) => {
  console.error(`Could not reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
for (const { name, ok, detail } of checks) console.log(`${ok ? 'ok  ' : 'FAIL'}  ${name}${ok ? '' : `: ${detail}`}`);
const failed = checks.filter((c) => !c.ok).length;
console.log(failed === 0 ? `All ${checks.length} checks passed.` : `${failed} of ${checks.length} checks failed.`);
process.exit(failed === 0 ? 0 : 1);
