import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { buildFunctions } from './build';
import { auditTrailProblem } from './operations/audit-trail';

/*
 * npm run deploy -- --stage <stage> [--region <region>]: builds, then runs one serverless deploy,
 * which packages and deploys that package in the same run, with one set of settings
 * (docs/deploy.md). The identity settings, the back office's keys and events target, the contracts and documents tables and the
 * bank's organisation trail come from the environment, or else from SSM Parameter Store under
 * /contract-termination/<stage>/ (names below). With AUDIT_TRAIL_ARN it first checks that the
 * trail it names logs the requests table's item reads and writes, and deploys nothing otherwise.
 */

const SETTINGS = {
  JWT_ISSUER: 'jwt-issuer',
  JWT_AUDIENCE: 'jwt-audience',
  JWKS_URI: 'jwks-uri',
  DECISION_JWKS_URI: 'decision-jwks-uri',
  BACK_OFFICE_EVENTS_TARGET_ARN: 'back-office-events-target-arn',
  CONTRACTS_TABLE_NAME: 'contracts-table-name',
  DOCUMENTS_TABLE_NAME: 'documents-table-name',
  AUDIT_TRAIL_ARN: 'audit-trail-arn',
} as const;

const { values } = parseArgs({ options: { stage: { type: 'string' }, region: { type: 'string' } } });
const stage = values.stage ?? '';
if (stage === '' || stage === 'local') {
  console.error('usage: npm run deploy -- --stage <stage> [--region <region>]   (not "local": that is npm start)');
  process.exit(2);
}
const region = values.region ?? process.env['AWS_REGION'] ?? 'eu-central-1';

/** What the environment does not say, read from SSM; parameters that do not exist are left out. */
async function fromSsm(): Promise<Record<string, string>> {
  const wanted = Object.entries(SETTINGS).filter(([name]) => !process.env[name]);
  if (wanted.length === 0) return {};
  const names = wanted.map(([, parameter]) => `/contract-termination/${stage}/${parameter}`);
  const ssm = new SSMClient({ region });
  const { Parameters = [] } = await ssm.send(new GetParametersCommand({ Names: names, WithDecryption: true }));
  const found = new Map(Parameters.map((p) => [p.Name, p.Value]));
  return Object.fromEntries(
    wanted.flatMap(([name, parameter]) => {
      const value = found.get(`/contract-termination/${stage}/${parameter}`);
      return value ? [[name, value]] : [];
    }),
  );
}

const serverless = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
const fromParameterStore: Record<string, string> = await fromSsm().catch((error: unknown) => {
  console.error(
    `Could not read SSM Parameter Store (${error instanceof Error ? error.message : String(error)}); using the environment only.`,
  );
  return {};
});
const env: Record<string, string | undefined> = { ...process.env, ...fromParameterStore, SLS_TELEMETRY_DISABLED: '1' };
function run(command: string): void {
  try {
    execFileSync(process.execPath, [serverless, command, '--stage', stage, '--region', region], {
      env,
      stdio: 'inherit',
    });
  } catch {
    // serverless has printed why; its exit code is ours.
    process.exit(1);
  }
}

/** The bank's trail, when named, must log this stage's requests table's data events (resources/audit.yml). */
async function checkAuditTrail(trailArn: string): Promise<void> {
  const identity = await new STSClient({ region }).send(new GetCallerIdentityCommand({}));
  const partition = identity.Arn?.split(':')[1] ?? 'aws';
  const tableArn = `arn:${partition}:dynamodb:${region}:${String(identity.Account)}:table/contract-termination-${stage}-requests`;
  const problem = await auditTrailProblem(trailArn, tableArn);
  if (problem === undefined) {
    console.log(`The audit trail ${trailArn} logs the reads and writes of ${tableArn}'s items.`);
    return;
  }
  console.error(
    `Not deployed: AUDIT_TRAIL_ARN names a trail that will not hold this stage's audit log: ${problem}. Name a trail that logs this table's data events, or leave AUDIT_TRAIL_ARN empty for a trail of the stack's own (docs/deploy.md).`,
  );
  process.exit(1);
}

const trailArn = env['AUDIT_TRAIL_ARN'];
if (trailArn !== undefined && trailArn !== '') await checkAuditTrail(trailArn);
await buildFunctions();
run('deploy');
