import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, stop, type BuildOptions, type Plugin } from 'esbuild';
import { LAMBDA_BUILD_OPTIONS } from '../scripts/build';
import { childEnv, lastJsonLine, runNode } from './child';
import { onCleanup } from './cleanup';

/*
 * Everything the bench bundles, in a temp dir of its own:
 *  - the service's functions, by scripts/build.ts buildFunctions() itself, run in a child process
 *    whose working dir is the temp dir (links to the project's files, a .build/ of its own), so
 *    the shared .build/ of `npm start` and `npm test` is never rebuilt under their feet;
 *  - the bare DynamoDB bundle (bench/bare-handler.ts) with the same esbuild settings;
 *  - the runners of the cold start and memory children (plain node, no TypeScript loader).
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface Bundles {
  dir: string;
  functions: { name: string; path: string; bytes: number }[];
  create: string;
  authorizer: string;
  bare: { path: string; bytes: number };
  coldStartRunner: string;
  memoryRunner: string;
  /** Largest packages in the create bundle (esbuild metafile, bytes in the minified output). */
  createComposition: { name: string; bytes: number }[];
}

function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return match?.[1] ?? `(project) ${input.split('/').slice(0, 1).join('/')}`;
}

/** The esbuild plugins scripts/build.ts exports (e.g. its standalone validators), found at run time. */
async function buildPlugins(): Promise<Plugin[]> {
  const mod: unknown = await import('../scripts/build');
  if (mod === null || typeof mod !== 'object') return [];
  return Object.values(mod).filter(
    (value): value is Plugin => value !== null && typeof value === 'object' && typeof Reflect.get(value, 'setup') === 'function',
  );
}

async function composition(entry: string): Promise<{ name: string; bytes: number }[]> {
  const plugins = await buildPlugins();
  const result = await build({
    ...LAMBDA_BUILD_OPTIONS,
    entryPoints: [entry],
    outfile: 'composition.mjs',
    write: false,
    metafile: true,
    absWorkingDir: ROOT,
    plugins,
  });
  const byPackage = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage.entries()].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** The temp dir mirrors the project (links to each top-level entry) but has its own .build/. */
function mirrorProject(dir: string): void {
  for (const entry of readdirSync(ROOT)) {
    if (['.build', '.git', '.local', '.serverless'].includes(entry)) continue;
    symlinkSync(join(ROOT, entry), join(dir, entry));
  }
}

async function buildServiceFunctions(dir: string): Promise<{ name: string; bytes: number }[]> {
  mirrorProject(dir);
  const tsx = import.meta.resolve('tsx');
  const buildScript = pathToFileURL(join(ROOT, 'scripts', 'build.ts')).href;
  const script = `const m = await import(${JSON.stringify(buildScript)}); console.log(JSON.stringify({ built: await m.buildFunctions() }));`;
  const run = await runNode(['--import', tsx, '--input-type=module', '-e', script], { cwd: dir, env: childEnv({}), timeoutMs: 120_000 });
  const built = lastJsonLine(run.stdout)['built'];
  if (!Array.isArray(built)) throw new Error(`buildFunctions() printed no list:\n${run.stdout}`);
  return built.map((entry: unknown) => {
    const name = entry !== null && typeof entry === 'object' ? Reflect.get(entry, 'name') : undefined;
    const bytes = entry !== null && typeof entry === 'object' ? Reflect.get(entry, 'bytes') : undefined;
    if (typeof name !== 'string' || typeof bytes !== 'number') throw new Error('buildFunctions() printed an unexpected entry');
    return { name, bytes };
  });
}

export async function buildBundles(): Promise<Bundles> {
  const dir = mkdtempSync(join(tmpdir(), 'termination-bench-'));
  onCleanup('bench temp dir', () => rmSync(dir, { recursive: true, force: true }));
  onCleanup('esbuild', () => stop());

  const built = await buildServiceFunctions(dir);
  const functions = built.map(({ name, bytes }) => ({ name, bytes, path: join(dir, '.build', name, 'index.mjs') }));
  const find = (name: string) => {
    const found = functions.find((f) => f.name === name);
    if (!found) throw new Error(`buildFunctions() built no ${name}`);
    return found.path;
  };

  const bare = join(dir, 'bare', 'index.mjs');
  await build({ ...LAMBDA_BUILD_OPTIONS, entryPoints: [join(ROOT, 'bench', 'bare-handler.ts')], outfile: bare, absWorkingDir: ROOT });
  const runner = (name: string) => join(dir, 'runners', `${name}.mjs`);
  const runnerSettings: BuildOptions = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    absWorkingDir: ROOT,
  };
  await build({ ...runnerSettings, entryPoints: [join(ROOT, 'bench', 'cold-start-runner.ts')], outfile: runner('cold-start') });
  await build({ ...runnerSettings, entryPoints: [join(ROOT, 'bench', 'memory-runner.ts')], outfile: runner('memory') });

  return {
    dir,
    functions,
    create: find('create-termination-request'),
    authorizer: find('authorize-customer'),
    bare: { path: bare, bytes: statSync(bare).size },
    coldStartRunner: runner('cold-start'),
    memoryRunner: runner('memory'),
    createComposition: await composition(join(ROOT, 'functions', 'create-termination-request.ts')),
  };
}
