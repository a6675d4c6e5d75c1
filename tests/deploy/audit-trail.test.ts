import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import {
  CloudTrailClient,
  CreateTrailCommand,
  PutEventSelectorsCommand,
  StartLoggingCommand,
  type AdvancedEventSelector,
  type EventSelector,
} from '@aws-sdk/client-cloudtrail';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTrailProblem, unloggedDataEvents } from '../../scripts/operations/audit-trail';
import { MOTO_ACCOUNT_ID, MOTO_REGION, motoInstalled, startMoto, type Moto } from '../support/moto';

/*
 * AUDIT_TRAIL_ARN (resources/audit.yml, docs/deploy.md): the bank's organisation trail instead of
 * a trail of the stack's own. npm run deploy asks CloudTrail whether it logs the requests table's
 * item reads and writes, and deploys nothing otherwise: checked against moto's CloudTrail (its
 * trails, their status and their event selectors, basic and advanced), and the deploy run on it.
 */

const installed = motoInstalled();
const STAGE = 'audited';
const TABLE = `arn:aws:dynamodb:${MOTO_REGION}:${MOTO_ACCOUNT_ID}:table/contract-termination-${STAGE}-requests`;
const OTHER_TABLE = `arn:aws:dynamodb:${MOTO_REGION}:${MOTO_ACCOUNT_ID}:table/another-table`;

const advanced = (arn?: string, readOnly?: string): AdvancedEventSelector => ({
  Name: 'tables',
  FieldSelectors: [
    { Field: 'eventCategory', Equals: ['Data'] },
    { Field: 'resources.type', Equals: ['AWS::DynamoDB::Table'] },
    ...(arn === undefined ? [] : [{ Field: 'resources.ARN', Equals: [arn] }]),
    ...(readOnly === undefined ? [] : [{ Field: 'readOnly', Equals: [readOnly] }]),
  ],
});
const basic = (values: string[], readWrite: EventSelector['ReadWriteType'] = 'All'): EventSelector => ({
  ReadWriteType: readWrite,
  IncludeManagementEvents: true,
  DataResources: [{ Type: 'AWS::DynamoDB::Table', Values: values }],
});

describe("which event selectors log the table's item reads and writes", () => {
  it.each([
    ['advanced, the table by its ARN', { AdvancedEventSelectors: [advanced(TABLE)] }, []],
    ['advanced, every table', { AdvancedEventSelectors: [advanced()] }, []],
    ['advanced, reads and writes in two selectors', { AdvancedEventSelectors: [advanced(TABLE, 'true'), advanced(TABLE, 'false')] }, []],
    ['advanced, reads only', { AdvancedEventSelectors: [advanced(TABLE, 'true')] }, ['writes']],
    ['advanced, another table', { AdvancedEventSelectors: [advanced(OTHER_TABLE)] }, ['reads', 'writes']],
    [
      'advanced, every table but this one',
      {
        AdvancedEventSelectors: [
          { FieldSelectors: [...(advanced().FieldSelectors ?? []), { Field: 'resources.ARN', NotEquals: [TABLE] }] },
        ],
      },
      ['reads', 'writes'],
    ],
    [
      'advanced, one event name only',
      {
        AdvancedEventSelectors: [
          { FieldSelectors: [...(advanced(TABLE).FieldSelectors ?? []), { Field: 'eventName', Equals: ['GetItem'] }] },
        ],
      },
      ['reads', 'writes'],
    ],
    [
      'advanced, management events only',
      { AdvancedEventSelectors: [{ FieldSelectors: [{ Field: 'eventCategory', Equals: ['Management'] }] }] },
      ['reads', 'writes'],
    ],
    ['basic, the table by its ARN', { EventSelectors: [basic([TABLE])] }, []],
    ['basic, every table of the account', { EventSelectors: [basic(['arn:aws:dynamodb'])] }, []],
    ['basic, writes only', { EventSelectors: [basic([TABLE], 'WriteOnly')] }, ['reads']],
    ['basic, another table', { EventSelectors: [basic([OTHER_TABLE])] }, ['reads', 'writes']],
    ['no selectors (management events only)', {}, ['reads', 'writes']],
  ])('%s', (_, selectors, unlogged) => {
    expect(unloggedDataEvents(selectors, TABLE)).toEqual(unlogged);
  });
});

describe.runIf(installed)("the bank's trail, on moto's CloudTrail, and npm run deploy", () => {
  let moto: Moto;
  let cloudTrail: CloudTrailClient;
  const trails: Record<string, string> = {};

  beforeAll(async () => {
    moto = await startMoto();
    const client = { region: MOTO_REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'r', secretAccessKey: 'r' } };
    cloudTrail = new CloudTrailClient(client);
    const s3 = new S3Client({ ...client, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'org-trail-logs', CreateBucketConfiguration: { LocationConstraint: MOTO_REGION } }));
    const make = async (
      name: string,
      selectors: { EventSelectors?: EventSelector[]; AdvancedEventSelectors?: AdvancedEventSelector[] },
      logging = true,
    ) => {
      const { TrailARN } = await cloudTrail.send(
        new CreateTrailCommand({ Name: name, S3BucketName: 'org-trail-logs', IsMultiRegionTrail: true }),
      );
      if (TrailARN === undefined) throw new Error(`moto made no trail ${name}`);
      await cloudTrail.send(new PutEventSelectorsCommand({ TrailName: TrailARN, ...selectors }));
      // moto starts a trail by its name only (an ARN answers its HTML 404).
      if (logging) await cloudTrail.send(new StartLoggingCommand({ Name: name }));
      trails[name] = TrailARN;
    };
    await make('org-advanced', { AdvancedEventSelectors: [advanced(TABLE)] });
    await make('org-basic', { EventSelectors: [basic(['arn:aws:dynamodb'])] });
    await make('org-writes-only', { EventSelectors: [basic([TABLE], 'WriteOnly')] });
    await make('org-stopped', { AdvancedEventSelectors: [advanced(TABLE)] }, false);
    s3.destroy();
  }, 90_000);
  afterAll(async () => {
    cloudTrail.destroy();
    await moto.stop();
  });

  it('accepts a logging trail whose selectors, advanced or basic, take the table', async () => {
    expect(await auditTrailProblem(trails['org-advanced'] ?? '', TABLE, cloudTrail)).toBeUndefined();
    expect(await auditTrailProblem(trails['org-basic'] ?? '', TABLE, cloudTrail)).toBeUndefined();
  });

  it('says why it refuses a trail that misses reads, one that is not logging, and one it cannot see', async () => {
    expect(await auditTrailProblem(trails['org-writes-only'] ?? '', TABLE, cloudTrail)).toMatch(
      /does not log the reads of .*contract-termination-audited-requests/,
    );
    expect(await auditTrailProblem(trails['org-stopped'] ?? '', TABLE, cloudTrail)).toMatch(/is not logging$/);
    expect(await auditTrailProblem(`arn:aws:cloudtrail:${MOTO_REGION}:${MOTO_ACCOUNT_ID}:trail/nobody`, TABLE, cloudTrail)).toMatch(
      /^CloudTrail does not show the trail .*trail\/nobody to this account/,
    );
  });

  it('npm run deploy refuses, before it builds or deploys anything, a trail that does not log the table, and says why', async () => {
    const deploy = promisify(execFile)(
      process.execPath,
      [createRequire(import.meta.url).resolve('tsx/cli'), 'scripts/deploy.ts', '--stage', STAGE],
      {
        env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...moto.env, AUDIT_TRAIL_ARN: trails['org-writes-only'] },
        timeout: 60_000,
      },
    );
    await expect(deploy).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^Not deployed: AUDIT_TRAIL_ARN names a trail that will not hold this stage's audit log: the trail .*org-writes-only does not log the reads of arn:aws:dynamodb:eu-central-1:123456789012:table\/contract-termination-audited-requests's items/m,
      ),
    });
    const cloudFormation = new CloudFormationClient({
      region: MOTO_REGION,
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'r', secretAccessKey: 'r' },
    });
    await expect(cloudFormation.send(new DescribeStacksCommand({ StackName: `contract-termination-${STAGE}` }))).rejects.toThrow(
      /does not exist/,
    );
    cloudFormation.destroy();
  });
});
