import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateResolver } from '../support/cfn-intrinsics';
import { jsonObject } from '../support/json';
import { checkoutOf, comparable, templatePackager, type Json } from '../support/packaged-template';

/*
 * The infrastructure was rewritten from hand-written JSON (seven files and six roles in
 * serverless.yml) into the YAML of resources/, in one commit that changed nothing
 * else. The templates it packages must be the ones the JSON packaged: this packages prod, dev and
 * a traced dev with WAF from the commit before the rewrite and from the rewrite's own commit, and
 * compares them resource by resource. The only differences allowed are listed below, each with
 * why it changes nothing deployed. Later changes of the stack are the other deploy tests' business.
 */

const BEFORE_REWRITE = 'a048114';
const REWRITE = '9710a3a';

/** Resources whose text changed while what CloudFormation makes of them did not. */
const SAME_ONCE_RESOLVED = {
  // Fn::Join of the role's ARN became Fn::Sub (cfn-lint I1022): the same ARN.
  DecisionSendersPolicy: 'Fn::Join -> Fn::Sub',
  BackOfficeAccountPolicy: 'Fn::Join -> Fn::Sub',
} as const;

const STAGES: [string, Record<string, string>][] = [
  ['prod', { CONTRACTS_TABLE_NAME: 'contracts-owned-elsewhere' }],
  ['prod', { CONTRACTS_TABLE_NAME: 'c', BACK_OFFICE_ACCOUNT_ID: '210987654321', CREATE_EVENT_BUS: 'false' }],
  ['dev', {}],
  ['dev', { TRACING: 'true', WAF_ENABLED: 'true' }],
];

const available = (() => {
  try {
    for (const commit of [BEFORE_REWRITE, REWRITE]) execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!available)
  console.log(`Commits ${BEFORE_REWRITE} and ${REWRITE} are not in this clone (shallow?): the rewrite comparison is skipped.`);

/** Keys sorted at every level: the order of a mapping's keys means nothing to CloudFormation. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

describe.runIf(available)('the YAML rewrite of the infrastructure', () => {
  const { packageStage, cleanUp } = templatePackager();
  const pairs: { name: string; before: Json; after: Json }[] = [];

  beforeAll(async () => {
    const [old, rewritten] = [checkoutOf(BEFORE_REWRITE), checkoutOf(REWRITE)];
    try {
      for (const [stage, env] of STAGES) {
        pairs.push({
          name: `${stage} ${JSON.stringify(env)}`,
          before: comparable(await packageStage(stage, env, { source: old.dir })),
          after: comparable(await packageStage(stage, env, { source: rewritten.dir })),
        });
      }
    } finally {
      old.remove();
      rewritten.remove();
    }
  }, 300_000);
  afterAll(() => cleanUp());

  it('packages the same parameters, conditions, resources and outputs, resource by resource', () => {
    for (const { name, before, after } of pairs) {
      expect(Object.keys(after).sort(), name).toEqual(Object.keys(before).sort());
      for (const section of ['Parameters', 'Conditions', 'Outputs', 'Resources']) {
        const b = jsonObject(before[section]);
        const a = jsonObject(after[section]);
        expect(Object.keys(a).sort(), `${name} ${section}`).toEqual(Object.keys(b).sort());
        for (const id of Object.keys(b)) {
          if (section === 'Resources' && id in SAME_ONCE_RESOLVED) continue;
          expect(canonical(a[id]), `${name} ${section}.${id}`).toBe(canonical(b[id]));
        }
      }
    }
  });

  it('changes the listed resources only in form: CloudFormation resolves each to the same thing', () => {
    for (const { name, before, after } of pairs) {
      const [b, a] = [new TemplateResolver(before), new TemplateResolver(after)];
      for (const id of Object.keys(SAME_ONCE_RESOLVED)) {
        expect(canonical(a.resolve(a.resource(id))), `${name} ${id}`).toBe(canonical(b.resolve(b.resource(id))));
        expect(canonical(after['Resources'] && jsonObject(after['Resources'])[id]), `${name} ${id} is rewritten`).not.toBe(
          canonical(jsonObject(before['Resources'])[id]),
        );
      }
    }
  });
});
