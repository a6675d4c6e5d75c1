import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { generateApi } from 'swagger-typescript-api';
import { afterAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../scripts/openapi';
import { compileStrict } from '../support/strict-compile';

/*
 * docs/clients.md shows the lines a team adds to a client generated from docs/openapi.yaml. Those
 * for openapi-typescript with openapi-fetch and for swagger-typescript-api (both installed here)
 * are compiled under strict TypeScript against what the generators make of the description today,
 * with the one setting the doc names, and without it where it matters. (The @hey-api/openapi-ts
 * and orval lines were compiled the same way, with those generators installed outside the project.)
 */

// Inside the repository (.local/ is ignored), so that openapi-fetch resolves from node_modules.
mkdirSync('.local', { recursive: true });
const root = mkdtempSync(join(resolve('.local'), 'generated-clients-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The doc's TypeScript blocks that name their file on the first line (`// fetch-with-retry.ts: ...`). */
function docBlocks(): Map<string, string> {
  const text = readFileSync('docs/clients.md', 'utf8');
  return new Map(
    [...text.matchAll(/```ts\n\/\/ ([\w.-]+\.ts)\b[^\n]*\n([\s\S]*?)```/g)].map((match) => [String(match[1]), String(match[2])]),
  );
}

/** Writes the files into a folder of its own and type-checks them strictly: 'compiled', or tsc's errors. */
async function compile(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  return compileStrict(dir);
}

/** What swagger-typescript-api makes of the description, with or without union enums. */
async function staClient(unionEnums: boolean): Promise<string> {
  const dir = join(root, `sta-output-${String(unionEnums)}`);
  await generateApi({
    input: resolve(OPENAPI_PATH),
    output: dir,
    fileName: 'api.ts',
    httpClientType: 'fetch',
    generateUnionEnums: unionEnums,
    silent: true,
  });
  return readFileSync(join(dir, 'api.ts'), 'utf8');
}

describe('the lines docs/clients.md adds to generated clients', () => {
  const blocks = docBlocks();
  const block = (file: string) => {
    const found = blocks.get(file);
    if (found === undefined) throw new Error(`docs/clients.md has no block ${file}`);
    return found;
  };

  it('are in the doc, one block per file', () => {
    expect([...blocks.keys()].sort()).toEqual(
      ['fetch-with-retry.ts', 'hey-api.ts', 'openapi-fetch.ts', 'orval.ts', 'retrying-fetch.ts', 'swagger-typescript-api.ts'].sort(),
    );
  });

  it('compile with openapi-typescript and openapi-fetch; a create without its Idempotency-Key does not', async () => {
    const schema = astToString(await openapiTS(new URL(`../../${OPENAPI_PATH}`, import.meta.url)));
    const files = { 'generated/schema.ts': schema, 'fetch-with-retry.ts': block('fetch-with-retry.ts') };
    expect(await compile('openapi-fetch', { ...files, 'openapi-fetch.ts': block('openapi-fetch.ts') })).toBe('compiled');
    const forgotten = block('openapi-fetch.ts').replace("'Idempotency-Key': key, ", '');
    expect(forgotten).not.toContain('Idempotency-Key');
    expect(await compile('openapi-fetch-without-key', { ...files, 'openapi-fetch.ts': forgotten })).toMatch(/Idempotency-Key/);
  }, 120_000);

  it('compile with swagger-typescript-api and --generate-union-enums; without it, an error body is never', async () => {
    const files = { 'fetch-with-retry.ts': block('fetch-with-retry.ts'), 'swagger-typescript-api.ts': block('swagger-typescript-api.ts') };
    expect(await compile('sta', { ...files, 'generated/api.ts': await staClient(true) })).toBe('compiled');
    expect(await compile('sta-enums', { ...files, 'generated/api.ts': await staClient(false) })).toMatch(
      /'CreateErrorBody' was reduced to 'never'/,
    );
  }, 120_000);
});
