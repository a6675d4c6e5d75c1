import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at } from '../support/json';
import { resource, resources, templatePackager, type Json } from '../support/packaged-template';

/*
 * What on-call depends on, read from the CloudFormation `serverless package` makes for prod
 * (offline, no AWS credentials), as tests/deploy/template.test.ts reads it: the alarm on the
 * publisher's on-failure destination, and a runbook section (docs/operations.md) for every
 * alarm, so that a new alarm without one fails here.
 */

const { packageStage, cleanUp } = templatePackager();

let prod: Json;

beforeAll(async () => {
  prod = await packageStage('prod', { CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere' });
}, 120_000);

afterAll(() => cleanUp());

const alarms = () => resources(prod).filter(([, r]) => at(r, 'Type') === 'AWS::CloudWatch::Alarm');

describe("the decision consumer's on-failure destination", () => {
  it("DecisionDestinationFailuresAlarm watches the consumer's DestinationDeliveryFailures and tells the alarm topic", () => {
    expect(at(resource(prod, 'DecisionDestinationFailuresAlarm'), 'Properties')).toMatchObject({
      AlarmName: 'contract-termination-prod-decision-destination-failures',
      Namespace: 'AWS/Lambda',
      MetricName: 'DestinationDeliveryFailures',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'ApplyStatusDecisionLambdaFunction' } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
    // The destination it watches is the consumer's asynchronous invocation config.
    expect(at(resource(prod, 'ApplyStatusDecisionInvokeConfig'), 'Properties', 'DestinationConfig', 'OnFailure', 'Destination')).toEqual({
      'Fn::GetAtt': ['DecisionDeadLetterQueue', 'Arn'],
    });
  });
});

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
