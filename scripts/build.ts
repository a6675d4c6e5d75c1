import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { standaloneValidatorsSource } from './standalone-validators';

/*
 * One bundle per Lambda entry point (functions/*.ts -> .build/<name>/index.mjs): minified,
 * tree-shaken, with the AWS SDK inside, so a cold start reads one file and nothing from layers.
 */

const OUT_DIR = '.build';

/** Swaps the run-time-compiled validators for Ajv standalone code: no schema compiles at cold start. */
export const standaloneValidators: Plugin = {
  name: 'standalone-validators',
  setup(builder) {
    const source = standaloneValidatorsSource();
    builder.onLoad({ filter: /lib[\\/]validation[\\/]compiled-validators\.ts$/ }, () => ({
      contents: source,
      loader: 'js',
      resolveDir: 'lib/validation',
    }));
  },
};

/** How every Lambda bundle is made (the bench builds its bare baseline the same way). */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  minify: true,
  treeShaking: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  // CommonJS dependencies call require() for Node built-ins; ESM has no require of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
} satisfies BuildOptions;

/**
 * Builds every function. Each file is replaced by a rename, never rewritten in place or deleted
 * first: a serverless offline that is running (npm start, another test run) must never load a
 * half-written or missing bundle.
 */
export async function buildFunctions(): Promise<{ name: string; bytes: number }[]> {
  const entries = readdirSync('functions').filter((f) => f.endsWith('.ts'));
  const names = new Set(entries.map((file) => basename(file, '.ts')));
  mkdirSync(OUT_DIR, { recursive: true });
  for (const stale of readdirSync(OUT_DIR, { withFileTypes: true }).filter((d) => d.isDirectory() && !names.has(d.name))) {
    rmSync(join(OUT_DIR, stale.name), { recursive: true, force: true });
  }
  return Promise.all(
    entries.map(async (file) => {
      const name = basename(file, '.ts');
      const outfile = join(OUT_DIR, name, 'index.mjs');
      const result = await build({
        entryPoints: [join('functions', file)],
        outfile,
        ...LAMBDA_BUILD_OPTIONS,
        sourcemap: 'linked',
        sourcesContent: false,
        plugins: [standaloneValidators],
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
      return { name, bytes };
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const built = await buildFunctions();
  for (const { name, bytes } of built) console.log(`${OUT_DIR}/${name}/index.mjs  ${(bytes / 1024).toFixed(0)} KiB`);
}
