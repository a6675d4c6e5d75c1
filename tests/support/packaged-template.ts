import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { at, jsonObject } from './json';

/*
 * The CloudFormation that `serverless package` makes for a stage (offline, no AWS credentials),
 * as tests/deploy/template.test.ts reads it, for test files of their own.
 */

export type Json = Record<string, unknown>;

const serverlessBin = createRequire(import.meta.url).resolve('osls/bin/serverless.js');

/** Packages a stage into a directory of its own and returns its template; `cleanUp` removes the directories. */
export function templatePackager(): { packageStage: (stage: string, env?: Record<string, string>) => Promise<Json>; cleanUp: () => void } {
  const dirs: string[] = [];
  return {
    packageStage: async (stage, env = {}) => {
      const dir = mkdtempSync(join(tmpdir(), `package-${stage}-`));
      dirs.push(dir);
      await promisify(execFile)(process.execPath, [serverlessBin, 'package', '--stage', stage, '--package', dir], {
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
