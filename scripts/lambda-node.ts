/**
 * Lambda runs nodejs22.x, so tests, the local stack and the bench run on Node 22 too. `npm ci`
 * installs a Node 22 binary from the registry (the optional `node-<os>-<cpu>` packages) and
 * `npm run` puts it first on PATH; this stops early where that did not happen (e.g. a platform
 * with no such package, or a script started with `npx tsx` outside npm).
 */
export const LAMBDA_NODE_MAJOR = 22;

export function assertLambdaNode(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== LAMBDA_NODE_MAJOR) {
    throw new Error(
      `Node ${process.versions.node} is running, but Lambda runs Node ${LAMBDA_NODE_MAJOR}. Run through npm (npm test, npm start, npm run ...), ` +
        `which puts node_modules/.bin/node first on PATH, or install Node ${LAMBDA_NODE_MAJOR} where npm ci found no binary for this platform.`,
    );
  }
}
