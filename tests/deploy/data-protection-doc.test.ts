import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as eventSchemas from '../../lib/api-model/event-schemas';
import * as apiSchemas from '../../lib/api-model/schemas';
import {
  buildDataProtectionDoc,
  defaultRegion,
  DATA_PROTECTION_DOC,
  FIELDS,
  personalPaths,
  placesOf,
  recordOfProcessing,
  PLACES,
  SCHEMAS,
  settingOf,
} from '../../scripts/data-protection-doc';
import { PLACEHOLDER_SETTINGS } from '../../scripts/inventory-doc';
import { at, jsonObject } from '../support/json';
import { templatePackager, type Json } from '../support/packaged-template';

/*
 * docs/data-protection.md, the record of processing, is generated from the schemas' personal-data
 * marks and the prod template (retention, keys): this fails when the file and they disagree, and
 * shows that a change of either changes the record. What the code does with each field is held
 * to the record by tests/integration/data-protection.test.ts.
 */

const { packageStage, cleanUp } = templatePackager();
let prod: Json;

beforeAll(async () => {
  prod = await packageStage('prod', PLACEHOLDER_SETTINGS);
}, 120_000);
afterAll(() => cleanUp());

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every schema the two schema modules export, with its $id. */
const exportedSchemas = (): { id: string; schema: unknown }[] =>
  [...Object.values(apiSchemas), ...Object.values(eventSchemas)].flatMap((value: unknown) =>
    isRecord(value) && typeof value['$id'] === 'string' ? [{ id: value['$id'], schema: value }] : [],
  );

/** The object itself at a path of a template (not a copy), to change it. */
function objectAt(value: unknown, ...path: string[]): Record<string, unknown> {
  const found = path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);
  if (!isRecord(found)) throw new Error(`No object at ${path.join('.')}`);
  return found;
}

/** The prod template with one change made to a copy. */
const changed = (change: (resources: Record<string, unknown>) => void): Json => {
  const copy = structuredClone(prod);
  change(objectAt(copy, 'Resources'));
  return copy;
};
const properties = (resources: Record<string, unknown>, id: string) => objectAt(resources, id, 'Properties');

describe('docs/data-protection.md', () => {
  it('is what npm run docs:data-protection makes from the schemas and the prod template today', () => {
    expect(readFileSync(DATA_PROTECTION_DOC, 'utf8')).toBe(buildDataProtectionDoc(prod));
  });

  it('reads every schema that marks a field personal, and each mark is a field of the record', () => {
    const marking = exportedSchemas().filter(({ schema }) => personalPaths(schema).length > 0);
    expect(marking.map(({ id }) => id).sort()).toEqual(Object.keys(SCHEMAS).sort());
    for (const { id, schema } of marking) {
      for (const path of personalPaths(schema))
        expect([id, path, FIELDS.some((field) => field.paths.includes(path))]).toEqual([id, path, true]);
    }
    // The API's own schemas carry the marks, not the events' alone.
    expect(personalPaths(apiSchemas.terminationRequestInputSchema)).toEqual([
      'reasonCode',
      'desiredTerminationDate',
      'bankDetails.accountNumber',
      'bankDetails.recipientName',
      'comment',
      'documentIds',
    ]);
    expect(personalPaths(apiSchemas.terminationRequestSchema)).toEqual(['statusReason']);
    // Each field the record names is marked somewhere, or is the access log's own.
    for (const field of FIELDS)
      expect([field.id, field.paths.length > 0 || ['sourceIp', 'userAgent'].includes(field.id)]).toEqual([field.id, true]);
  });

  it('says for every field every place it goes, how long and under which key: nothing is left without a row', () => {
    for (const field of FIELDS) {
      const places = placesOf(prod, field.id);
      expect([field.id, places.length > 0]).toEqual([field.id, true]);
      for (const { place } of places) {
        expect(place.kept(prod), place.id).toMatch(/\S/);
        expect(place.key(prod), place.id).toMatch(/\S/);
      }
    }
    // Every store of the stack that holds personal data is under the stage's key; AWS's own stores
    // that only a setting makes (the authorizer's cache, Logs Insights' results, X-Ray) say whose key they are under.
    const notTheStacks = ['contracts', 'documents', 'answers', 'page', 'authorizer-cache', 'insights-results', 'xray'];
    const stores = PLACES.filter((place) => place.fields(prod).length > 0 && !notTheStacks.includes(place.id));
    expect(stores.length).toBeGreaterThanOrEqual(12);
    for (const place of stores)
      expect([place.id, place.key(prod)]).toEqual([place.id, "the stage's key, `alias/contract-termination-<stage>`"]);
  });

  it('takes how long and under which key from the template: a shorter log retention, or a log group without the key, shows in the record', () => {
    const shorter = buildDataProtectionDoc(
      changed((resources) => {
        properties(resources, 'CreateTerminationRequestLogGroup')['RetentionInDays'] = 7;
        delete properties(resources, 'ApiAccessLogGroup')['KmsKeyId'];
        properties(resources, 'DecisionDeadLetterQueue')['MessageRetentionPeriod'] = 345600;
      }),
    );
    expect(shorter).toMatch(/\| the functions' logs \| `accountNumber` \| 7 days on prod/);
    expect(shorter).toMatch(
      /\| the API's access log \| `sourceIp`, `userAgent` \| 90 days on prod \(`LOG_RETENTION_DAYS`\) \| an AWS-owned or AWS-managed key \|/,
    );
    expect(shorter).toMatch(/\| the decision dead-letter queue [^|]*\| `reason` \| 4 days/);
  });

  it("names the stack's one rule that delivers the service's events, and the audit trail of the table's items, as the template makes them", () => {
    const doc = buildDataProtectionDoc(prod);
    const rule = String(at(prod, 'Resources', 'BackOfficeEventsRule', 'Properties', 'Name')).replace('-prod-', '-<stage>-');
    expect(doc).toContain(`| the bus: \`TerminationRequestSubmitted\`, to the back office through the stack's rule \`${rule}\``);
    expect(doc).toMatch(
      /\| the audit trail of the requests table's items [^|]*\| `customerId` \| 1827 days \(`AUDIT_LOG_RETENTION_DAYS`\)/,
    );
  });

  it('gives a row to the stores only some settings make: X-Ray when traced, the authorizer cache while it is on, Logs Insights results', () => {
    const doc = buildDataProtectionDoc(prod);
    expect(doc).toMatch(/\| X-Ray's traces [^|]*\| none \| none on this template: tracing is off/);
    expect(doc).toMatch(/\| API Gateway's cache of the authorizer's answers [^|]*\| `customerId` \| 60 seconds per token/);
    expect(doc).toMatch(
      /\| CloudWatch Logs Insights' query results [^|]*\| `accountNumber`, `sourceIp`, `userAgent` \| 7 days after the query/,
    );
    const tracedProd = structuredClone(prod);
    objectAt(tracedProd, 'Parameters', 'TracingSetting')['Default'] = 'true';
    expect(placesOf(tracedProd, 'sourceIp').map(({ place }) => place.id)).toContain('xray');
    expect(buildDataProtectionDoc(tracedProd)).toMatch(/\| X-Ray's traces [^|]*\| `sourceIp`, `userAgent` \| 30 days/);
    const uncached = changed((resources) => {
      for (const resource of Object.values(resources))
        if (at(resource, 'Type') === 'AWS::ApiGateway::Authorizer') objectAt(resource, 'Properties')['AuthorizerResultTtlInSeconds'] = 0;
    });
    expect(placesOf(uncached, 'customerId').map(({ place }) => place.id)).not.toContain('authorizer-cache');
    expect(buildDataProtectionDoc(uncached)).toMatch(
      /\| API Gateway's cache of the authorizer's answers [^|]*\| none \| not kept: the cache is off/,
    );
  });

  it("reads the access log's fields from its format: no customer id today, and one put back would show", () => {
    expect(placesOf(prod, 'customerId').map(({ place }) => place.id)).not.toContain('access-log');
    expect(placesOf(prod, 'sourceIp').map(({ place }) => place.id)).toEqual(['access-log', 'waf-log', 'insights-results']);
    const withCustomer = changed((resources) => {
      const setting = objectAt(resources, 'ApiGatewayStage', 'Properties', 'AccessLogSetting');
      const format = jsonObject(JSON.parse(String(at(setting, 'Format'))));
      setting['Format'] = JSON.stringify({ ...format, customerId: '$context.authorizer.customerId' });
    });
    expect(placesOf(withCustomer, 'customerId').map(({ place }) => place.id)).toContain('access-log');
  });

  it("takes each item's expiry from the setting the functions are given: a figure changed shows, and one given two ways is refused", () => {
    const today = buildDataProtectionDoc(prod);
    expect(settingOf(prod, 'REQUEST_RETENTION_YEARS')).toBe('5');
    expect(today).toContain(
      'once final (`COMPLETED`, `REJECTED`, `WITHDRAWN`), to the end of the calendar year it became final in (`Europe/Moscow`, `BUSINESS_TIME_ZONE`), then 5 whole years (`REQUEST_RETENTION_YEARS`)',
    );
    expect(today).toMatch(
      /`LIMIT#<customerId>`[^|]*\| `customerId` \| 30 days \(`REQUEST_LIMIT_DAYS`\) after the customer's latest request/,
    );
    const setEverywhere = (name: string, value: string) =>
      changed((resources) => {
        for (const resource of Object.values(resources)) {
          const variables = at(resource, 'Properties', 'Environment', 'Variables');
          if (isRecord(variables) && name in variables) variables[name] = value;
        }
      });
    expect(buildDataProtectionDoc(setEverywhere('REQUEST_RETENTION_YEARS', '10'))).toContain(
      'then 10 whole years (`REQUEST_RETENTION_YEARS`)',
    );
    expect(buildDataProtectionDoc(setEverywhere('REQUEST_RETENTION_DAYS', '2'))).toContain(
      "once final (`COMPLETED`, `REJECTED`, `WITHDRAWN`), 2 days (`REQUEST_RETENTION_DAYS`, a test stage's period) after it became final",
    );
    expect(buildDataProtectionDoc(setEverywhere('REQUEST_LIMIT_DAYS', '7'))).toMatch(
      /`LIMIT#<customerId>`[^|]*\| `customerId` \| 7 days \(`REQUEST_LIMIT_DAYS`\)/,
    );
    // The decision consumer and the withdrawal both make requests final: one figure for both, or no record.
    const twoWays = changed((resources) => {
      objectAt(resources, 'WithdrawTerminationRequestLambdaFunction', 'Properties', 'Environment', 'Variables')['REQUEST_RETENTION_YEARS'] =
        '6';
    });
    expect(() => buildDataProtectionDoc(twoWays)).toThrow(/given REQUEST_RETENTION_YEARS as (5 and 6|6 and 5)$/);
    // Every place that says it expires names a setting the functions are given.
    for (const place of PLACES.filter((p) => p.expiresBy !== undefined))
      expect([place.id, place.kept(prod)]).toEqual([place.id, expect.stringContaining(`\`${place.expiresBy ?? ''}\``)]);
  });

  it("says the tables other systems own are theirs, and a stage's own stand-in table is under the key the template gives it", () => {
    for (const id of ['contracts', 'documents']) {
      const place = PLACES.find((p) => p.id === id);
      expect([id, place?.kept(prod), place?.key(prod)]).toEqual([id, "its owner's rule", "its owner's"]);
    }
    const withStandIn = changed(() => undefined);
    objectAt(withStandIn, 'Parameters', 'CreateDocumentsTableSetting')['Default'] = 'true';
    expect(buildDataProtectionDoc(withStandIn)).toMatch(
      /\| the documents table, which the documents service owns \| `customerId`, `documentIds` \| the stage's own stand-in \(`CREATE_DOCUMENTS_TABLE`\), demo data only, until the stack is removed \| an AWS-owned or AWS-managed key \|/,
    );
  });

  it('links the runbook where it speaks of erasure and of lifting the limit', () => {
    const doc = buildDataProtectionDoc(prod);
    expect(doc.match(/\(operations\.md#a-customer-asks-to-be-erased\)/g)?.length).toBeGreaterThanOrEqual(2);
    expect(doc).toContain('(operations.md#a-customer-refused-by-the-limit)');
  });
});

describe('docs/record-of-processing.yml: what the code cannot know', () => {
  it('gives every processing a purpose and a legal basis, names both kinds of data subject, the recipients and who reads, and the record shows each', () => {
    const record = recordOfProcessing();
    const doc = buildDataProtectionDoc(prod);
    for (const [processing, purpose, basis] of record.purposes) {
      expect([processing, purpose, basis].every((text) => text !== undefined && text.length > 0)).toBe(true);
      expect(doc).toContain(`| ${processing ?? ''} | ${purpose ?? ''} | ${basis ?? ''} |`);
    }
    expect(record.subjects).toHaveLength(2);
    for (const rows of [record.subjects, record.recipients, record.readers])
      for (const [who = ''] of rows) expect(doc).toContain(`| ${who} |`);
    // Every id that points to a person, classed and placed.
    expect(record.pseudonymousIds.map(([id]) => id)).toEqual(['contractId', 'requestId', 'requestNumber']);
  });

  it('refuses a row without its legal basis: the record never goes out with a gap', () => {
    expect(() => recordOfProcessing('purposes:\n  - processing: x\n    purpose: y\n')).toThrow(/a row of purposes lacks legalBasis/);
  });

  it('takes the region from serverless.yml: another default shows', () => {
    expect(buildDataProtectionDoc(prod, recordOfProcessing(), defaultRegion())).toContain(`deployed to, \`${defaultRegion()}\` unless`);
    expect(defaultRegion("  region: ${opt:region, env:AWS_REGION, 'ru-central-1'}\n")).toBe('ru-central-1');
  });

  it("names the bus owner's key when the stack is given another team's bus, and the ledger under the stage's key", () => {
    const givenBus = changed(() => undefined);
    objectAt(givenBus, 'Parameters', 'CreateEventBusSetting')['Default'] = 'false';
    expect(buildDataProtectionDoc(givenBus)).toMatch(
      /\| the bus: `TerminationRequestSubmitted`[^|]*\|[^|]*\|[^|]*\| its owner's: the stack was given a bus it did not make/,
    );
    expect(buildDataProtectionDoc(prod)).toMatch(
      /\| the erasure ledger [^|]*\| `customerId` \| 90 days after the erasure[^|]*\| the stage's key, `alias\/contract-termination-<stage>` \|/,
    );
  });
});
