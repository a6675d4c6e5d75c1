import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { CloudFormationClient, paginateListStackResources } from '@aws-sdk/client-cloudformation';
import { KMSClient } from '@aws-sdk/client-kms';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { buildFunctions } from './build';
import { keyIdsOf, publishEventSigningKeys } from './operations/event-signing-keys';
import { auditTrailProblem } from './operations/audit-trail';

/*
 * npm run deploy -- --stage <stage> [--region <region>]: builds, then runs one serverless deploy,
 * which packages and deploys that package in the same run, with one set of settings
 * (docs/deploy.md), then, the stack up, writes the document of the events' public keys to the
 * stack's bucket (scripts/operations/event-signing-keys.ts). The identity settings, the back
 * office's keys and events target, the contracts and documents tables, the bank's organisation
 * trail and the events' previous signing keys come from the environment, or else from SSM
 * Parameter Store under /contract-termination/<stage>/ (names below). With AUDIT_TRAIL_ARN it
 * first checks that the trail it names logs the requests table's item reads and writes, and
 * deploys nothing otherwise.
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
  EVENT_SIGNING_PREVIOUS_KEY_IDS: 'event-signing-previous-key-ids',
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

/** A resource of the stack by its logical id: its physical id (the stack's outputs say the same, but moto's change sets leave them as first made). */
async function stackResource(logicalId: string): Promise<string> {
  const client = new CloudFormationClient({ region });
  try {
    for await (const page of paginateListStackResources({ client }, { StackName: `contract-termination-${stage}` })) {
      const found = page.StackResourceSummaries?.find((resource) => resource.LogicalResourceId === logicalId)?.PhysicalResourceId;
      if (found) return found;
    }
  } catch (error) {
    throw new Error(`CloudFormation did not list the stack's resources: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  throw new Error(`the stack has no ${logicalId}`);
}

/** The key the deployed publisher signs with: whatever the template calls it, what the document must list first. */
async function signingKeyOfPublisher(): Promise<string> {
  const { Environment } = await new LambdaClient({ region }).send(
    new GetFunctionConfigurationCommand({ FunctionName: await stackResource('PublishRequestEventsLambdaFunction') }),
  );
  const keyId = Environment?.Variables?.['EVENT_SIGNING_KEY_ID'];
  if (!keyId) throw new Error('the deployed publisher names no EVENT_SIGNING_KEY_ID');
  return keyId;
}

/** The events' public keys, from KMS, into the stack's bucket: the current key and the previous ones still in their window. */
async function publishKeys(): Promise<void> {
  try {
    const published = await publishEventSigningKeys(
      {
        kms: new KMSClient({ region }),
        // An S3 endpoint of one's own (an emulator on an IP address) is addressed by path; AWS's by the bucket's host name.
        s3: new S3Client({ region, forcePathStyle: Boolean(env['AWS_ENDPOINT_URL_S3'] ?? env['AWS_ENDPOINT_URL']) }),
      },
      {
        bucket: await stackResource('EventSigningKeysBucket'),
        currentKeyId: await signingKeyOfPublisher(),
        previousKeyIds: keyIdsOf(env['EVENT_SIGNING_PREVIOUS_KEY_IDS']),
      },
    );
    console.log(
      `The events' public keys: ${published.uri}, kid ${published.keys.map((key) => String(key.kid)).join(', ')} (the first signs).`,
    );
  } catch (error) {
    console.error(
      `The stack is up, but the events' public keys were not published (${error instanceof Error ? error.message : String(error)}); ` +
        "the document is as it was. Fix the cause and run the deploy again (docs/operations.md, Rotating the events' signing key).",
    );
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
await publishKeys();
