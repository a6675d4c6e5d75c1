import { defineConfig } from 'vitest/config';
import { assertLambdaNode } from './scripts/lambda-node.ts';

assertLambdaNode();

const shared = { env: { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_SERVICE_NAME: 'contract-termination' } };

/*
 * Two projects: `unit` is pure (no DynamoDB, no bundles; npm run test:unit), `integration` is
 * everything else, with one DynamoDB Local and the bundles made by its global setup. npm test
 * runs both.
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
        },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/unit/**'],
          globalSetup: ['tests/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 90_000,
          pool: 'forks',
        },
      },
    ],
  },
});
