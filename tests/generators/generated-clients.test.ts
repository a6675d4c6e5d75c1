import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { generateApi } from 'swagger-typescript-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS_DOC, ERROR_EXAMPLE_FILE, errorExample, HANDLED_CODES } from '../../scripts/clients-doc';
import { OPENAPI_PATH } from '../../scripts/openapi';
import { at, jsonObject } from '../support/json';
import { loadDocument } from '../support/openapi-document';
import { compileStrict, writeStrictTsconfig } from '../support/strict-compile';

/*
 * Every TypeScript block of docs/ is compiled under strict TypeScript, as an app team would: the
 * example of the typed client (docs/clients.md) against client/, its error handling written from
 * the ErrorCode enum (scripts/clients-doc.ts), and the lines a team adds to a client generated
 * from docs/openapi.yaml by openapi-typescript with openapi-fetch, swagger-typescript-api,
 * @hey-api/openapi-ts and orval (all four devDependencies, at the versions the doc pins) against
 * what those generators make of the description today, with the one setting the doc names, and
 * without it where it matters. hey-api and orval run as the doc runs them: its command line and
 * its config file, in a project laid out as the doc lays it out.
 */

// Inside the repository (.local/ is ignored), so that openapi-fetch resolves from node_modules.
mkdirSync('.local', { recursive: true });
const root = mkdtempSync(join(resolve('.local'), 'generated-clients-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every TypeScript block of docs/, by the file it names on its first line (`// fetch-with-retry.ts: ...`); '?' for one that names none. */
function docBlocks(): Map<string, string> {
  const docs = readdirSync('docs', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
  const blocks = docs.flatMap((file) =>
    [...readFileSync(join('docs', file), 'utf8').matchAll(/```(?:ts|typescript|tsx)\n(?:\/\/ ([\w.-]+\.ts)\b[^\n]*\n)?([\s\S]*?)```/g)].map(
      (match): [string, string] => [match[1] ?? '?', String(match[2])],
    ),
  );
  const names = blocks.map(([name]) => name);
  const repeated = names.filter((name, i) => names.indexOf(name) !== i);
  if (repeated.length > 0) throw new Error(`docs/ has more than one TypeScript block named ${repeated.join(', ')}`);
  return new Map(blocks);
}

/** The blocks compiled by the cases below. */
const COMPILED = [
  'client-usage.ts',
  ERROR_EXAMPLE_FILE,
  'fetch-with-retry.ts',
  'openapi-fetch.ts',
  'swagger-typescript-api.ts',
  'hey-api.ts',
  'orval.ts',
  'retrying-fetch.ts',
];

/** The client as an app team copies it: client/ beside their code. */
const clientFiles = () =>
  Object.fromEntries(['index.ts', 'api-types.ts'].map((file) => [`client/${file}`, readFileSync(join('client', file), 'utf8')]));

/** Writes the files into a folder of its own and type-checks them strictly: 'compiled', or tsc's errors. */
async function compile(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  return compileStrict(dir);
}

/** A package's package.json as installed (the lockfile's version). */
const installed = (name: string): Record<string, unknown> =>
  jsonObject(JSON.parse(readFileSync(join('node_modules', name, 'package.json'), 'utf8')));

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** What docs/clients.md says of a generator it has run by npx: the versions it pins, the arguments it gives, the Node its table names. */
function documented(name: string): { versions: string[]; args: string[]; node: string | undefined } {
  const doc = readFileSync(CLIENTS_DOC, 'utf8');
  const commands = [...doc.matchAll(new RegExp(`\`npx ${escaped(name)}@([\\d.]+)((?: [^\`\\s]+)*)\``, 'g'))];
  const args = [...new Set(commands.map((command) => String(command[2]).trim()).filter(Boolean))];
  if (args.length > 1) throw new Error(`${CLIENTS_DOC} runs ${name} in more than one way: ${args.join(' / ')}`);
  return {
    versions: [...new Set(commands.map((command) => String(command[1])))],
    args: (args[0] ?? '').split(' ').filter(Boolean),
    node: new RegExp(`^\\| ${escaped(name)} [\\d.]+ \\| Node ([\\d.]+) or later \\|`, 'm').exec(doc)?.[1],
  };
}

/** Runs a generator's own command in a folder, as `npx <name>@<version> <the doc's arguments>` would, on this Node. */
async function runGenerator(name: string, dir: string): Promise<void> {
  const bin = Object.values(jsonObject(installed(name).bin)).map(String);
  if (bin.length !== 1) throw new Error(`${name} has ${String(bin.length)} commands`);
  await promisify(execFile)(process.execPath, [resolve('node_modules', name, String(bin[0])), ...documented(name).args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1' },
  });
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

describe('the TypeScript blocks of docs/', () => {
  const blocks = docBlocks();
  const block = (file: string) => {
    const found = blocks.get(file);
    if (found === undefined) throw new Error(`docs/clients.md has no block ${file}`);
    return found;
  };

  it('each name their file, once, and each is compiled', () => {
    expect([...blocks.keys()].sort()).toEqual([...COMPILED].sort());
  });

  it('handle each code a create answers with, as the ErrorCode enum has them today (npm run docs:clients)', () => {
    expect(block(ERROR_EXAMPLE_FILE)).toBe(errorExample().slice(errorExample().indexOf('\n') + 1));
    const createCodes = [at(loadDocument(), 'components', 'schemas', 'CreateErrorCode', 'enum')].flat();
    expect([...HANDLED_CODES].sort()).toEqual(createCodes.map(String).sort());
  });

  it('compile against the typed client; the error handling one case short does not (its default branch is `never`)', async () => {
    const usage = { 'app/client-usage.ts': block('client-usage.ts') };
    const handler = block(ERROR_EXAMPLE_FILE);
    expect(await compile('client', { ...clientFiles(), ...usage, [`app/${ERROR_EXAMPLE_FILE}`]: handler })).toBe('compiled');
    const oneShort = handler.replace("    case 'COMMENT_REQUIRED':\n", '');
    expect(oneShort).not.toContain("'COMMENT_REQUIRED'");
    expect(await compile('client-one-short', { ...clientFiles(), ...usage, [`app/${ERROR_EXAMPLE_FILE}`]: oneShort })).toMatch(
      /Type '"COMMENT_REQUIRED"' is not assignable to type 'never'/,
    );
  }, 120_000);

  it('keep each generator in a folder of its own, and hand-written files out of them all', () => {
    const generatedFolders = [...blocks.values()].flatMap((source) =>
      [...source.matchAll(/from '\.\/generated\/([\w-]+)\//g)].map((match) => String(match[1])),
    );
    expect(new Set(generatedFolders)).toEqual(new Set(['openapi-typescript', 'hey-api', 'orval', 'swagger-typescript-api']));
    expect(block('orval.ts')).toContain("from './generated/orval/api'");
    expect(block('retrying-fetch.ts')).toContain("from './fetch-with-retry'");
  });

  it('send the bearer token on every call', () => {
    for (const file of ['openapi-fetch.ts', 'swagger-typescript-api.ts', 'retrying-fetch.ts'])
      expect(block(file), file).toMatch(/Authorization[^\n]*Bearer \$\{/);
    expect(block('hey-api.ts')).toMatch(/auth: \(\) => /);
  });

  it('compile with openapi-typescript and openapi-fetch; a create without its Idempotency-Key does not', async () => {
    const schema = astToString(await openapiTS(new URL(`../../${OPENAPI_PATH}`, import.meta.url)));
    const files = { 'generated/openapi-typescript/schema.ts': schema, 'fetch-with-retry.ts': block('fetch-with-retry.ts') };
    expect(await compile('openapi-fetch', { ...files, 'openapi-fetch.ts': block('openapi-fetch.ts') })).toBe('compiled');
    const forgotten = block('openapi-fetch.ts').replace("'Idempotency-Key': key, ", '');
    expect(forgotten).not.toContain('Idempotency-Key');
    expect(await compile('openapi-fetch-without-key', { ...files, 'openapi-fetch.ts': forgotten })).toMatch(/Idempotency-Key/);
  }, 120_000);

  it('compile with swagger-typescript-api and --generate-union-enums; without it, an error body is never', async () => {
    const files = { 'fetch-with-retry.ts': block('fetch-with-retry.ts'), 'swagger-typescript-api.ts': block('swagger-typescript-api.ts') };
    expect(await compile('sta', { ...files, 'generated/swagger-typescript-api/api.ts': await staClient(true) })).toBe('compiled');
    expect(await compile('sta-enums', { ...files, 'generated/swagger-typescript-api/api.ts': await staClient(false) })).toMatch(
      /'CreateErrorBody' was reduced to 'never'/,
    );
  }, 120_000);
  describe("with @hey-api/openapi-ts and orval, run by the doc's command and config in the layout it gives", () => {
    const project = join(root, 'hey-api-and-orval');
    const handWritten = { hey: join(project, 'src/generated/hey-api/mine.ts'), orval: join(project, 'src/generated/orval/mine.ts') };
    beforeAll(async () => {
      mkdirSync(join(project, 'src/generated/hey-api'), { recursive: true });
      mkdirSync(join(project, 'src/generated/orval'), { recursive: true });
      copyFileSync(OPENAPI_PATH, join(project, 'openapi.yaml'));
      writeStrictTsconfig(project); // orval reads the project's tsconfig for the form of its imports
      const config = /```js\n\/\/ orval\.config\.mjs\n([\s\S]*?)```/.exec(readFileSync(CLIENTS_DOC, 'utf8'));
      if (!config) throw new Error(`${CLIENTS_DOC} has no orval.config.mjs block`);
      writeFileSync(join(project, 'orval.config.mjs'), String(config[1]));
      for (const file of ['fetch-with-retry.ts', 'retrying-fetch.ts']) writeFileSync(join(project, 'src', file), block(file));
      for (const file of Object.values(handWritten)) writeFileSync(file, 'export {};\n');
      await runGenerator('orval', project);
      await runGenerator('@hey-api/openapi-ts', project);
    }, 120_000);
    /** The project with the two snippets in src/, one of them changed, compiled in a copy of its own. */
    const compileWith = async (name: string, change: (snippets: Record<string, string>) => Record<string, string> = (same) => same) => {
      const dir = join(root, name);
      cpSync(project, dir, { recursive: true });
      for (const [file, source] of Object.entries(change({ 'hey-api.ts': block('hey-api.ts'), 'orval.ts': block('orval.ts') })))
        writeFileSync(join(dir, 'src', file), source);
      return compileStrict(dir);
    };

    it('pins the versions installed here, and names the Node they declare', () => {
      for (const name of ['@hey-api/openapi-ts', 'orval']) {
        const doc = documented(name);
        expect(doc.versions, name).toEqual([installed(name).version]);
        expect(`>=${String(doc.node)}.0`, name).toBe(at(installed(name), 'engines', 'node'));
      }
    });

    it('hey-api empties its folder and orval writes only its target, as the doc warns', () => {
      expect(existsSync(handWritten.hey)).toBe(false);
      expect(existsSync(join(project, 'src/generated/hey-api/sdk.gen.ts'))).toBe(true);
      expect(existsSync(handWritten.orval)).toBe(true);
      expect(existsSync(join(project, 'src/generated/orval/api.ts'))).toBe(true);
    }, 120_000);

    it('compile under strict TypeScript', async () => {
      expect(await compileWith('hey-api-and-orval-compiled')).toBe('compiled');
    }, 120_000);

    it('a create without its Idempotency-Key does not compile with either', async () => {
      const withoutKey = await compileWith('hey-api-and-orval-without-key', (snippets) =>
        Object.fromEntries(
          Object.entries(snippets).map(([file, source]) => {
            const forgotten = source.replace("'Idempotency-Key': key, ", '');
            expect(forgotten, file).not.toContain('Idempotency-Key');
            return [file, forgotten];
          }),
        ),
      );
      // An error of tsc goes on over the indented lines after it.
      expect(withoutKey).toMatch(/src\/hey-api\.ts\(\d+,\d+\): error (?:[^\n]|\n )*Idempotency-Key/);
      expect(withoutKey).toMatch(/src\/orval\.ts\(\d+,\d+\): error (?:[^\n]|\n )*Idempotency-Key/);
    }, 120_000);
  });
});
