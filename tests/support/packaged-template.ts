import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { at, jsonObject } from './json';

/*
 * The CloudFormation that `serverless package` makes for a stage (offline, no AWS credentials),
 * for every test that reads the template (tests/deploy/, the IAM check).
 */

export type Json = Record<string, unknown>;

const serverlessBin = createRequire(import.meta.url).resolve('osls/bin/serverless.js');

/**
 * A folder that stands for the service's root: serverless.yml copied (the framework takes only a
 * real file for its configuration), the rest of `source` linked, the dependencies this
 * checkout's. The framework's working files (.serverless/) are the folder's own, and so are the
 * bundles (.build/) unless `linkBundles`, so that whatever runs there never shares them with
 * another packaging or a developer's own commands.
 */
export function serviceFolder(options: { source?: string; linkBundles?: boolean } = {}): { dir: string; remove: () => void } {
  const source = options.source ?? '.';
  const dir = mkdtempSync(join(tmpdir(), 'service-'));
  copyFileSync(join(source, 'serverless.yml'), join(dir, 'serverless.yml'));
  for (const entry of readdirSync(source)) {
    if (!['.serverless', '.git', 'serverless.yml', 'node_modules', '.build', '.local'].includes(entry))
      symlinkSync(resolve(source, entry), join(dir, entry));
  }
  for (const shared of options.linkBundles === false ? ['node_modules'] : ['node_modules', '.build'])
    symlinkSync(resolve(shared), join(dir, shared));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Packages a stage and returns its template; `cleanUp` removes the directories. Each packaging
 * runs in a service folder of its own, whatever other test files package at the same time.
 */
export function templatePackager(): {
  packageStage: (stage: string, env?: Record<string, string>, options?: { source?: string }) => Promise<Json>;
  cleanUp: () => void;
} {
  const dirs: string[] = [];
  return {
    packageStage: async (stage, env = {}, { source = '.' } = {}) => {
      const service = serviceFolder({ source }).dir;
      const dir = mkdtempSync(join(tmpdir(), `package-${stage}-`));
      dirs.push(service, dir);
      await promisify(execFile)(process.execPath, [serverlessBin, 'package', '--stage', stage, '--package', dir], {
        cwd: service,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '',
          SLS_TELEMETRY_DISABLED: '1',
          JWT_ISSUER: 'https://issuer.example',
          JWT_AUDIENCE: 'termination-api',
          JWKS_URI: 'https://issuer.example/.well-known/jwks.json',
          DECISION_JWKS_URI: PACKAGED_DECISION_JWKS_URI,
          BACK_OFFICE_EVENTS_TARGET_ARN: PACKAGED_BACK_OFFICE_EVENTS_TARGET_ARN,
          // The documents service's table, which prod must name (as it must the contracts table,
          // which each test names itself); other stages make their own.
          ...(stage === 'prod' ? { DOCUMENTS_TABLE_NAME: 'documents-owned-elsewhere' } : {}),
          ...env,
        },
      });
      return jsonObject(JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')));
    },
    cleanUp: () => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })),
  };
}

/** The back office's queue the templates deliver the service's events to: a placeholder, as a deployed stage's setting. */
export const PACKAGED_BACK_OFFICE_EVENTS_TARGET_ARN = 'arn:aws:sqs:eu-central-1:123456789012:back-office-events';

/** The back office's JWKS the templates are packaged with: a placeholder, as a deployed stage's setting. */
export const PACKAGED_DECISION_JWKS_URI = 'https://back-office.example/.well-known/jwks.json';

export const resources = (template: Json): [string, unknown][] => Object.entries(jsonObject(template['Resources']));
export const ofType = (template: Json, type: string): [string, unknown][] => resources(template).filter(([, r]) => at(r, 'Type') === type);
export const resource = (template: Json, name: string): Json => jsonObject(jsonObject(template['Resources'])[name]);

/** The value a template parameter takes on deploy: its default (packaging fills it from the stage's settings). */
export const parameterDefault = (template: Json, name: string): unknown => at(template, 'Parameters', name, 'Default');

/** The files of a commit of this repository in a folder of their own (git archive), to package as it was then. */
export function checkoutOf(commit: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `checkout-${commit.slice(0, 7)}-`));
  const archive = join(dir, '.archive.tar');
  execFileSync('git', ['archive', '--format=tar', `--output=${archive}`, commit]);
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  rmSync(archive);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A template with what changes on every packaging made uniform: the deployment's and the
 * versions' logical ids (a timestamp, a code hash), the artifacts' S3 keys, the code hashes.
 */
export function comparable(template: Json): Json {
  const text = JSON.stringify(template)
    .replace(/ApiGatewayDeployment\d+/g, 'ApiGatewayDeployment')
    .replace(/LambdaVersion[A-Za-z0-9]+/g, 'LambdaVersion')
    .replace(/"S3Key":"serverless\/[^"]*\/(\w+\.zip)"/g, '"S3Key":"<artifact>/$1"')
    .replace(/"CodeSha256":"[^"]*"/g, '"CodeSha256":"<hash>"');
  return jsonObject(JSON.parse(text));
}
