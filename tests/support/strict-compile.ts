import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * Writes the tsconfig.json of an app team's project into a folder: strict, ES2022 with the DOM,
 * bundler resolution, no ambient types, every .ts file. (A generator that reads the project's
 * tsconfig, as orval does, reads this one, not the repository's.)
 */
export function writeStrictTsconfig(dir: string): void {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['es2022', 'dom'],
        types: [],
        skipLibCheck: true,
      },
      include: ['**/*.ts'],
    }),
  );
}

/**
 * Type-checks every .ts file of a folder as an app team's project would (writeStrictTsconfig).
 * 'compiled', or tsc's errors. For the generated clients' tests (the tools project: it runs the
 * compiler in a process of its own).
 */
export async function compileStrict(dir: string): Promise<string> {
  writeStrictTsconfig(dir);
  return promisify(execFile)(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')]).then(
    () => 'compiled',
    (error: unknown) => (error instanceof Error && 'stdout' in error ? String(error.stdout) : String(error)),
  );
}
