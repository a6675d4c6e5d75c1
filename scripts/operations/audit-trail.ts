import {
  CloudTrailClient,
  GetEventSelectorsCommand,
  GetTrailCommand,
  GetTrailStatusCommand,
  type AdvancedEventSelector,
  type AdvancedFieldSelector,
  type EventSelector,
} from '@aws-sdk/client-cloudtrail';

/*
 * The bank's organisation trail, named by AUDIT_TRAIL_ARN instead of a trail of the stack's own
 * (resources/audit.yml): npm run deploy asks CloudTrail whether that trail logs every read and
 * write of the requests table's items, and refuses to deploy unless it does (docs/deploy.md).
 * It reads the trail's event selectors, basic or advanced, as CloudTrail applies them:
 * https://docs.aws.amazon.com/awscloudtrail/latest/userguide/logging-data-events-with-cloudtrail.html
 */

/** Whether a field selector lets `value` through: any of its positive conditions, and none of its negative ones. */
function fieldMatches(field: AdvancedFieldSelector, value: string): boolean {
  const positive = [
    ...(field.Equals ?? []).map((v) => value === v),
    ...(field.StartsWith ?? []).map((v) => value.startsWith(v)),
    ...(field.EndsWith ?? []).map((v) => value.endsWith(v)),
  ];
  const negative = [
    ...(field.NotEquals ?? []).map((v) => value === v),
    ...(field.NotStartsWith ?? []).map((v) => value.startsWith(v)),
    ...(field.NotEndsWith ?? []).map((v) => value.endsWith(v)),
  ];
  return (positive.length === 0 || positive.some(Boolean)) && !negative.some(Boolean);
}

/** The fields an advanced selector may test and still log every call on the table: anything else narrows it. */
const DATA_EVENT_OF_THE_TABLE = (tableArn: string, readOnly: 'true' | 'false'): Record<string, string> => ({
  eventCategory: 'Data',
  'resources.type': 'AWS::DynamoDB::Table',
  'resources.ARN': tableArn,
  eventSource: 'dynamodb.amazonaws.com',
  readOnly,
});

function advancedLogs(selector: AdvancedEventSelector, tableArn: string, readOnly: 'true' | 'false'): boolean {
  const event = DATA_EVENT_OF_THE_TABLE(tableArn, readOnly);
  const fields = selector.FieldSelectors ?? [];
  // Without eventCategory Data and the table's resource type, a selector logs no data event of DynamoDB.
  if (!fields.some((f) => f.Field === 'eventCategory') || !fields.some((f) => f.Field === 'resources.type')) return false;
  return fields.every((field) => {
    const value = event[field.Field ?? ''];
    return value !== undefined && fieldMatches(field, value);
  });
}

function basicLogs(selector: EventSelector, tableArn: string, readOnly: 'true' | 'false'): boolean {
  const type = selector.ReadWriteType ?? 'All';
  if (type !== 'All' && type !== (readOnly === 'true' ? 'ReadOnly' : 'WriteOnly')) return false;
  return (selector.DataResources ?? []).some(
    (resource) =>
      resource.Type === 'AWS::DynamoDB::Table' &&
      // The table's ARN, or every table of the account: `arn:<partition>:dynamodb`.
      (resource.Values ?? []).some((value) => value === tableArn || /^arn:[a-z-]+:dynamodb$/.test(value)),
  );
}

/** What the selectors leave unlogged of the table's item reads and writes, in words; empty when they log both. */
export function unloggedDataEvents(
  selectors: { EventSelectors?: EventSelector[] | undefined; AdvancedEventSelectors?: AdvancedEventSelector[] | undefined },
  tableArn: string,
): string[] {
  const logs = (readOnly: 'true' | 'false') =>
    (selectors.AdvancedEventSelectors ?? []).some((selector) => advancedLogs(selector, tableArn, readOnly)) ||
    (selectors.EventSelectors ?? []).some((selector) => basicLogs(selector, tableArn, readOnly));
  return [...(logs('true') ? [] : ['reads']), ...(logs('false') ? [] : ['writes'])];
}

/** Why the trail does not do for this table, or undefined when it does: it exists, logs, covers the region and logs reads and writes. */
export async function auditTrailProblem(
  trailArn: string,
  tableArn: string,
  client: CloudTrailClient = new CloudTrailClient({ region: trailArn.split(':')[3] }),
): Promise<string | undefined> {
  const tableRegion = tableArn.split(':')[3] ?? '';
  let trail;
  try {
    trail = (await client.send(new GetTrailCommand({ Name: trailArn }))).Trail;
  } catch (error) {
    return `CloudTrail does not show the trail ${trailArn} to this account (${error instanceof Error ? error.name : String(error)})`;
  }
  if (trail === undefined) return `CloudTrail does not show the trail ${trailArn} to this account`;
  if (trail.IsMultiRegionTrail !== true && trail.HomeRegion !== tableRegion)
    return `the trail ${trailArn} logs ${String(trail.HomeRegion)} only, and the table is in ${tableRegion}`;
  const status = await client.send(new GetTrailStatusCommand({ Name: trailArn }));
  if (status.IsLogging !== true) return `the trail ${trailArn} is not logging`;
  const selectors = await client.send(new GetEventSelectorsCommand({ TrailName: trailArn }));
  const unlogged = unloggedDataEvents(selectors, tableArn);
  if (unlogged.length > 0)
    return `the trail ${trailArn} does not log the ${unlogged.join(' or ')} of ${tableArn}'s items (its event selectors, basic or advanced, must select the table's data events)`;
  return undefined;
}
