import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFunctions } from './build';

/*
 * npm run lint:cfn: packages the dev and prod templates (with placeholder identity settings, no
 * AWS needed) and runs cfn-lint, AWS's CloudFormation linter, on each. cfn-lint is a Python tool
 * (pipx install cfn-lint); without it this says so and fails.
 */

if (spawnSync('cfn-lint', ['--version'], { stdio: 'ignore' }).error) {
  console.error('cfn-lint is not installed (pipx install cfn-lint, or pip install cfn-lint).');
  process.exit(2);
}
const serverless = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
const placeholders = {
  JWT_ISSUER: 'https://issuer.example',
  JWT_AUDIENCE: 'termination-api',
  JWKS_URI: 'https://issuer.example/.well-known/jwks.json',
  DECISION_JWKS_URI: 'https://back-office.example/.well-known/jwks.json',
  BACK_OFFICE_EVENTS_TARGET_ARN: 'arn:aws:sqs:eu-central-1:123456789012:back-office-events',
  CONTRACTS_TABLE_NAME: 'contracts',
  DOCUMENTS_TABLE_NAME: 'documents',
  SLS_TELEMETRY_DISABLED: '1',
};
await buildFunctions();
let failed = false;
for (const stage of ['dev', 'prod']) {
  const dir = mkdtempSync(join(tmpdir(), `lint-${stage}-`));
  execFileSync(process.execPath, [serverless, 'package', '--stage', stage, '--package', dir], {
    env: { ...process.env, ...placeholders },
    stdio: 'ignore',
  });
  // Errors and warnings fail (a CloudFormation engine that validates with cfn-lint, moto, refuses
  // a template on a warning), and so does I3011: whatever holds data says what a deletion does to it.
  const lint = spawnSync(
    'cfn-lint',
    [join(dir, 'cloudformation-template-update-stack.json'), '--format', 'parseable', '--include-checks', 'I'],
    { encoding: 'utf8' },
  );
  const lines = lint.stdout.split('\n');
  const count = (kind: RegExp) => lines.filter((line) => kind.test(line)).length;
  const failing = lines.filter((line) => /:(E\d{4}|W\d{4}|I3011):/.test(line));
  console.log(
    `${stage}: ${count(/:E\d{4}:/)} errors, ${count(/:W\d{4}:/)} warnings, ${count(/:I\d{4}:/)} informational (${count(/:I3011:/)} I3011)`,
  );
  for (const line of failing) console.log(`  ${line}`);
  failed ||= failing.length > 0;
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
