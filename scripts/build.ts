import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { standaloneValidatorsSource } from './standalone-validators';

/*
 * One bundle per Lambda entry point (functions/*.ts -> .build/<name>/index.mjs): tree-shaken, its
 * whitespace and syntax minified, with the AWS SDK inside, so a cold start reads one file and
 * nothing from layers.
 */

const OUT_DIR = '.build';

/** Swaps the run-time-compiled validators for Ajv standalone code: no schema compiles at cold start. */
export const standaloneValidators: Plugin = {
  name: 'standalone-validators',
  setup(builder) {
    const source = standaloneValidatorsSource();
    builder.onLoad({ filter: /lib[\\/]api-model[\\/]compiled-validators\.ts$/ }, () => ({
      contents: source,
      loader: 'js',
      resolveDir: 'lib/api-model',
    }));
  },
};

/**
 * How every Lambda bundle is made. Names are kept and no source map is made: a logged stack names
 * the functions it went through (`at withinBudget`, `at answerCall`) at no cost, where Node reads
 * a linked map at every cold start under --enable-source-maps (about a tenth of the create's) and
 * esbuild's keepNames slows every call (docs/performance.md, "The bundle against its source").
 */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  minifyWhitespace: true,
  minifySyntax: true,
  treeShaking: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  // CommonJS dependencies call require() for Node built-ins; ESM has no require of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
} satisfies BuildOptions;

export interface BuiltBundle {
  name: string;
  bytes: number;
  /** The bundle's .mjs file. */
  file: string;
  /** esbuild's metafile: what each input contributes to the bundle. */
  metafile: Metafile;
}

/**
 * Builds every function (or the given entry files) into <outDir>/<name>/index.mjs. Each file is
 * replaced by a rename, never rewritten in place or deleted first: a serverless offline that is
 * running (npm start, another test run) must never load a half-written or missing bundle.
 */
export async function buildFunctions(options: { outDir?: string; entries?: string[] } = {}): Promise<BuiltBundle[]> {
  const outDir = options.outDir ?? OUT_DIR;
  const entries =
    options.entries ??
    readdirSync('functions')
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join('functions', f));
  const names = new Set(entries.map((file) => basename(file, '.ts')));
  mkdirSync(outDir, { recursive: true });
  // Bundles of deleted functions go; a build of chosen entries leaves the others alone.
  const stale = options.entries ? [] : readdirSync(outDir, { withFileTypes: true }).filter((d) => d.isDirectory() && !names.has(d.name));
  for (const dir of stale) rmSync(join(outDir, dir.name), { recursive: true, force: true });
  return Promise.all(
    entries.map(async (entry) => {
      const name = basename(entry, '.ts');
      const file = join(outDir, name, 'index.mjs');
      const result = await build({
        entryPoints: [entry],
        outfile: file,
        ...LAMBDA_BUILD_OPTIONS,
        plugins: [standaloneValidators],
        metafile: true,
        write: false,
      });
      let bytes = 0;
      for (const output of result.outputFiles) {
        mkdirSync(dirname(output.path), { recursive: true });
        const temporary = `${output.path}.${process.pid}.tmp`;
        writeFileSync(temporary, output.contents);
        renameSync(temporary, output.path);
        if (output.path.endsWith('.mjs')) bytes = output.contents.length;
      }
      // The source map of an earlier build would be packaged with the function.
      rmSync(`${file}.map`, { force: true });
      return { name, bytes, file, metafile: result.metafile };
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const built = await buildFunctions();
  for (const { file, bytes } of built) console.log(`${file}  ${(bytes / 1024).toFixed(0)} KiB`);
}
