import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build, type Plugin } from 'esbuild';
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
    builder.onLoad({ filter: /lib[\\/]validation[\\/]compiled-validators\.ts$/ }, () => ({ contents: source, loader: 'js', resolveDir: 'lib/validation' }));
  },
};

export async function buildFunctions(): Promise<{ name: string; bytes: number }[]> {
  rmSync(OUT_DIR, { recursive: true, force: true });
  const entries = readdirSync('functions').filter((f) => f.endsWith('.ts'));
  return Promise.all(
    entries.map(async (file) => {
      const name = basename(file, '.ts');
      const outfile = join(OUT_DIR, name, 'index.mjs');
      await build({
        entryPoints: [join('functions', file)],
        outfile,
        bundle: true,
        minify: true,
        treeShaking: true,
        sourcemap: 'linked',
        sourcesContent: false,
        platform: 'node',
        target: 'node22',
        format: 'esm',
        mainFields: ['module', 'main'],
        // CommonJS dependencies call require() for Node built-ins; ESM has no require of its own.
        banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
        logLevel: 'warning',
        plugins: [standaloneValidators],
      });
      return { name, bytes: statSync(outfile).size };
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const built = await buildFunctions();
  for (const { name, bytes } of built) console.log(`${OUT_DIR}/${name}/index.mjs  ${(bytes / 1024).toFixed(0)} KiB`);
}
