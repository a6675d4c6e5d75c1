import { defineConfig } from 'vitest/config';
import { assertLambdaNode } from './scripts/lambda-node.ts';

assertLambdaNode();

const shared = { env: { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_SERVICE_NAME: 'contract-termination' } };

/*
 * Three projects, all run by npm test. `unit` is pure: code of this repository called in the
 * process, no DynamoDB, no bundles, no compiler, generator, child process or socket (npm run
 * test:unit). `tools` (tests/tools, tests/generators) runs the tools the code is checked with
 * (generators and compilers over the API description, esbuild) and opens sockets. `integration`
 * is everything else, with one DynamoDB Local and the bundles made by its global setup.
 */
export default defineConfig({
  test: {
    reporters: ['default', ['json', { outputFile: '.local/test-results.json' }]],
    projects: [
      // Handlers called in unit tests log as deployed; their lines would drown the report (a test that reads them sets its own level).
      {
        test: {
          ...shared,
          env: { ...shared.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          pool: 'threads',
          // Files share their workers' imports: tests/support/unit-isolation.ts says what is put back between them.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          restoreMocks: true,
          setupFiles: ['tests/support/unit-isolation.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'tools',
          include: ['tests/tools/**/*.test.ts', 'tests/generators/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          pool: 'threads',
        },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/unit/**', 'tests/tools/**', 'tests/generators/**'],
          globalSetup: ['tests/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 90_000,
          pool: 'forks',
        },
      },
    ],
  },
});
