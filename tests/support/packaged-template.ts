import { execFile } from 'node:child_process';
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
 * Packages a stage and returns its template; `cleanUp` removes the directories. Each packaging
 * runs in a folder of links to this one, so that the framework's working files (.serverless/)
 * are its own, whatever other test files package at the same time.
 */
export function templatePackager(): { packageStage: (stage: string, env?: Record<string, string>) => Promise<Json>; cleanUp: () => void } {
  const dirs: string[] = [];
  return {
    packageStage: async (stage, env = {}) => {
      const service = mkdtempSync(join(tmpdir(), `service-${stage}-`));
      const dir = mkdtempSync(join(tmpdir(), `package-${stage}-`));
      dirs.push(service, dir);
      // The framework takes only a real file for its configuration; the rest may be links.
      copyFileSync('serverless.yml', join(service, 'serverless.yml'));
      for (const entry of readdirSync('.')) {
        if (!['.serverless', '.git', 'serverless.yml'].includes(entry)) symlinkSync(resolve(entry), join(service, entry));
      }
      await promisify(execFile)(process.execPath, [serverlessBin, 'package', '--stage', stage, '--package', dir], {
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
      return jsonObject(JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')));
    },
    cleanUp: () => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })),
  };
}

export const resources = (template: Json): [string, unknown][] => Object.entries(jsonObject(template['Resources']));
export const ofType = (template: Json, type: string): [string, unknown][] => resources(template).filter(([, r]) => at(r, 'Type') === type);
export const resource = (template: Json, name: string): Json => jsonObject(jsonObject(template['Resources'])[name]);

/** The value a template parameter takes on deploy: its default (packaging fills it from the stage's settings). */
export const parameterDefault = (template: Json, name: string): unknown => at(template, 'Parameters', name, 'Default');
