import { afterAll, vi } from 'vitest';

/*
 * The unit project runs its files one after another in shared workers (isolate: false in
 * vitest.config.ts), so the packages they import load once per worker rather than once per
 * file. What a file changes is put back before the next one: the environment, globals and spies
 * before each test (unstubEnvs, unstubGlobals, restoreMocks), and this repository's modules,
 * which read the environment when first imported, after each file.
 */
afterAll(() => {
  vi.resetModules();
});
