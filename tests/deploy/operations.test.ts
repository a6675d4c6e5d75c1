import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, jsonObject } from '../support/json';

/*
 * What on-call depends on, read from the CloudFormation `serverless package` makes for prod
 * (offline, no AWS credentials), as tests/deploy/template.test.ts reads it: the alarm on the
 * publisher's on-failure destination, and a runbook section (docs/operations.md) for every
 * alarm, so that a new alarm without one fails here.
 */

type Json = Record<string, unknown>;
const serverlessBin = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
const dirs: string[] = [];

/**
 * Packages from a folder of links to this one, so that the framework's working files
 * (.serverless/) are this run's own, whatever template.test.ts packages beside it.
 */
async function packageStage(stage: string, env: Record<string, string> = {}): Promise<Json> {
  const service = mkdtempSync(join(tmpdir(), `service-${stage}-`));
  const out = mkdtempSync(join(tmpdir(), `package-${stage}-`));
  dirs.push(service, out);
  // The framework takes only a real file for its configuration; the rest may be links.
  copyFileSync('serverless.yml', join(service, 'serverless.yml'));
  for (const entry of readdirSync('.')) {
    if (!['.serverless', '.git', 'serverless.yml'].includes(entry)) symlinkSync(resolve(entry), join(service, entry));
  }
  await promisify(execFile)(process.execPath, [serverlessBin, 'package', '--stage', stage, '--package', out], {
    cwd: service,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      SLS_TELEMETRY_DISABLED: '1',
      JWT_ISSUER: 'https://issuer.example',
      JWT_AUDIENCE: 'termination-api',
      JWKS_URI: 'https://issuer.example/.well-known/jwks.json',
      ...env,
    },
  });
  return jsonObject(JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')));
}

const resources = (template: Json) => Object.entries(jsonObject(template['Resources']));
const resource = (template: Json, name: string) => jsonObject(jsonObject(template['Resources'])[name]);

let prod: Json;

beforeAll(async () => {
  prod = await packageStage('prod', { CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere' });
}, 120_000);

afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const alarms = () => resources(prod).filter(([, r]) => at(r, 'Type') === 'AWS::CloudWatch::Alarm');

describe("the publisher's on-failure destination", () => {
  it("PublisherDestinationFailuresAlarm watches the publisher's DestinationDeliveryFailures and tells the alarm topic", () => {
    const alarm = at(resource(prod, 'PublisherDestinationFailuresAlarm'), 'Properties');
    expect(alarm).toMatchObject({
      AlarmName: 'contract-termination-prod-publisher-destination-failures',
      Namespace: 'AWS/Lambda',
      MetricName: 'DestinationDeliveryFailures',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'PublishRequestEventsLambdaFunction' } }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
      OKActions: [{ Ref: 'AlarmTopic' }],
    });
    // The destination it watches is the stream mapping's, on that same function.
    expect(at(resource(prod, 'RequestEventsStreamMapping'), 'Properties', 'FunctionName')).toEqual({
      'Fn::GetAtt': ['PublishRequestEventsLambdaFunction', 'Arn'],
    });
    expect(at(resource(prod, 'RequestEventsStreamMapping'), 'Properties', 'DestinationConfig', 'OnFailure', 'Destination')).toEqual({
      'Fn::GetAtt': ['PublisherDeadLetterQueue', 'Arn'],
    });
  });
});

describe('the runbook (docs/operations.md)', () => {
  const headings = readFileSync('docs/operations.md', 'utf8')
    .split('\n')
    .filter((line) => /^#{2,4} /.test(line));
  /** The name on-call reads in the notification, with the stage as the runbook writes it. */
  const documentedName = (name: unknown) => String(name).replace(/^contract-termination-prod-/, 'contract-termination-<stage>-');

  it('has a section for every alarm of the prod template, by its name or logical id', () => {
    expect(alarms().length).toBeGreaterThanOrEqual(10);
    const missing = alarms()
      .filter(([id, alarm]) => {
        const name = documentedName(at(alarm, 'Properties', 'AlarmName'));
        return !headings.some((heading) => heading.includes(id) || heading.includes(name));
      })
      .map(([id]) => id);
    expect(missing).toEqual([]);
  });

  it('has no section for an alarm the template does not make', () => {
    const names = new Set(alarms().map(([, alarm]) => documentedName(at(alarm, 'Properties', 'AlarmName'))));
    const documented = headings.flatMap((heading) => heading.match(/contract-termination-<stage>-[a-z0-9-]+/g) ?? []);
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.filter((name) => !names.has(name))).toEqual([]);
  });
});
