import { defineConfig } from 'vitest/config';
import { assertLambdaNode } from './scripts/lambda-node.ts';

assertLambdaNode();

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: '.local/test-results.json' }]],
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
  },
});
