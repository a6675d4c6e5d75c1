import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneValidators } from '../../scripts/build';
import * as compiled from '../../lib/api-model/compiled-validators';
import { garbageCalls } from '../reliability/garbage';
import { validBody } from '../support/bodies';

/*
 * The bundles validate with code Ajv generated at build time; tests elsewhere use the
 * validators Ajv compiles at run time. Both must answer alike, errors included.
 */

type Validate = (data: unknown) => boolean;
const dir = mkdtempSync(join(tmpdir(), 'standalone-'));
let generated: Record<string, unknown> = {};
let generatedText = '';

beforeAll(async () => {
  const outfile = join(dir, 'validators.mjs');
  await build({
    entryPoints: ['lib/api-model/compiled-validators.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    plugins: [standaloneValidators],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'silent',
  });
  generated = await import(pathToFileURL(outfile).href);
  generatedText = readFileSync(outfile, 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function answer(validate: unknown, data: unknown): { valid: boolean; errors: unknown } {
  if (typeof validate !== 'function') throw new Error('not a validator');
  const run: Validate = (d) => Boolean(Reflect.apply(validate, undefined, [d]));
  const valid = run(data);
  const errors: unknown = 'errors' in validate ? validate.errors : undefined;
  return { valid, errors: valid ? null : JSON.parse(JSON.stringify(errors)) };
}

describe('standalone validators', () => {
  it('exist for every validator, and carry no schema compiler', () => {
    expect(Object.keys(generated).sort()).toEqual(Object.keys(compiled).sort());
    expect(generatedText).not.toMatch(/addSchema|\.compile\(|new Ajv/);
  });

  it('accept a valid body and a UUID like the run-time ones', () => {
    expect(answer(generated['validateInput'], validBody())).toEqual({ valid: true, errors: null });
    expect(answer(generated['validateUuid'], 'urn:uuid:0b0e7d2a-8c1f-4a3b-9e5d-2f6a7b8c9d0e').valid).toBe(false);
  });

  it('answer every garbage body exactly like the run-time validators, errors included', () => {
    fc.assert(
      fc.property(garbageCalls(false), (call) => {
        let body: unknown;
        try {
          body = JSON.parse(call.isBase64Encoded ? Buffer.from(call.rawBody, 'base64').toString() : call.rawBody);
        } catch {
          body = call.rawBody;
        }
        expect(answer(generated['validateInput'], body)).toEqual(answer(compiled.validateInput, body));
        expect(answer(generated['validateUuid'], call.contractId)).toEqual(answer(compiled.validateUuid, call.contractId));
      }),
      { numRuns: 500 },
    );
  });
});
