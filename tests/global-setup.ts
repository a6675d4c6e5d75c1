import type { TestProject } from 'vitest/node';
import { buildFunctions } from '../scripts/build';
import { startDynamoDbLocal } from '../scripts/local/dynamodb-local';
import { freePort } from '../scripts/local/free-port';

/**
 * One DynamoDB Local for the whole run (each test file makes its own tables in it), and the
 * bundles that serverless offline and the packaging tests use, built once before any file runs.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildFunctions();
  const db = await startDynamoDbLocal({ port: await freePort() });
  project.provide('dynamoDbEndpoint', db.endpoint);
  return () => db.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}
