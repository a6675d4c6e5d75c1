import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildInventoryDoc,
  deletionsTable,
  INVENTORY_DOC,
  OPERATIONS_DOC,
  PLACEHOLDER_SETTINGS,
  withDeletionsTable,
} from '../../scripts/inventory-doc';
import { jsonObject } from '../support/json';
import { loadDocument } from '../support/openapi-document';
import { ofType, templatePackager, type Json } from '../support/packaged-template';

/*
 * docs/inventory.md lists what the prod stack is made of (routes, functions, each role's grants,
 * alarms, error codes), generated from the packaged template: this fails when they disagree, so
 * the lists other docs link to cannot drift.
 */

const { packageStage, cleanUp } = templatePackager();
let prod: Json;

beforeAll(async () => {
  prod = await packageStage('prod', PLACEHOLDER_SETTINGS);
}, 120_000);
afterAll(() => cleanUp());

describe('docs/inventory.md', () => {
  it('is what npm run docs:inventory makes from the prod template today', () => {
    expect(readFileSync(INVENTORY_DOC, 'utf8')).toBe(buildInventoryDoc(prod));
  });

  it("docs/operations.md's table of who may delete what is what npm run docs:inventory makes from the prod template today", () => {
    const operations = readFileSync(OPERATIONS_DOC, 'utf8');
    expect(operations).toBe(withDeletionsTable(operations, prod));
    // The roles that delete: the two functions that release a slot, and the data-protection role; not on-call.
    const table = deletionsTable(prod);
    for (const role of ['WithdrawTerminationRequestRole', 'ApplyStatusDecisionRole', 'DataProtectionRole'])
      expect(table).toMatch(new RegExp(`^\\| \`${role}\` \\| \`dynamodb:DeleteItem\``, 'm'));
    expect(table).not.toMatch(/^\| `OnCallPolicy`/m);
    expect(table).toMatch(/^No other role or policy of the stack may delete an item: .*`OnCallPolicy` \(on-call\)/m);
  });

  it('names every route, function and alarm of the template', () => {
    const document = readFileSync(INVENTORY_DOC, 'utf8');
    for (const [, fn] of ofType(prod, 'AWS::Lambda::Function')) {
      const name = JSON.stringify(fn).match(/"FunctionName":"contract-termination-prod-(\w+)"/)?.[1] ?? '?';
      expect(document).toContain(`### \`${name}\``);
    }
    for (const [id] of ofType(prod, 'AWS::CloudWatch::Alarm')) expect(document).toContain(`| \`${id}\` |`);
    const routes = ofType(prod, 'AWS::ApiGateway::Method').filter(([, m]) => !JSON.stringify(m).includes('"HttpMethod":"OPTIONS"'));
    expect(document.match(/^\| (GET|POST) \| `\/api\/v1\//gm)).toHaveLength(routes.length);
  });

  it("says who may use the stage's key: each statement of its policy, and each role and policy whose own statements use it", () => {
    const document = readFileSync(INVENTORY_DOC, 'utf8');
    const section = document.slice(document.indexOf("## The stage's key"), document.indexOf('## Alarms'));
    const [[, key] = []] = ofType(prod, 'AWS::KMS::Key');
    const statements = jsonObject(jsonObject(jsonObject(key)['Properties'])['KeyPolicy'])['Statement'];
    expect(Array.isArray(statements) ? statements.length : 0).toBeGreaterThan(0);
    for (const statement of Array.isArray(statements) ? statements : [])
      expect(section).toContain(`| \`${String(jsonObject(statement)['Sid'])}\` |`);
    const users = [...ofType(prod, 'AWS::IAM::Role'), ...ofType(prod, 'AWS::IAM::ManagedPolicy')]
      .filter(([, r]) => JSON.stringify(r).includes('"Resource":{"Fn::GetAtt":["StageKey","Arn"]}'))
      .map(([id]) => id);
    expect(users.length).toBe(10);
    for (const id of users.filter((user) => user !== 'OnCallPolicy')) expect(section).toContain(`- \`${id}\`: `);
    expect(section).toContain('- the policy `contract-termination-prod-on-call` (on-call): `kms:Decrypt`');
  });

  it('lists exactly the routes of docs/openapi.yaml: the stack serves what the API description promises', () => {
    const listed = [...readFileSync(INVENTORY_DOC, 'utf8').matchAll(/^\| ([A-Z]+) \| `(\/api\/v1\/[^`]+)` \|/gm)].map(
      ([, method = '', path = '']) => `${method} ${path}`,
    );
    const described = Object.entries(jsonObject(loadDocument()['paths'])).flatMap(([path, item]) =>
      Object.keys(jsonObject(item)).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.sort()).toEqual(described.sort());
  });
});
