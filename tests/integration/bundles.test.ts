import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { apiEvent } from '../../scripts/local/api-event';
import { freePort } from '../../scripts/local/free-port';
import { at, parsedObject } from '../support/json';

/*
 * The bundles as Lambda runs them: plain node, no NODE_OPTIONS. No source map is made or read
 * (reading one costs every cold start: docs/performance.md), so a logged error's stack must name
 * this code's functions by itself. The global setup built .build/.
 */

const dir = mkdtempSync(join(tmpdir(), 'bundle-stack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the function bundles', () => {
  it('carry no source map, and point to none', () => {
    const functions = readdirSync('.build');
    expect(functions.length).toBeGreaterThan(5);
    for (const name of functions) {
      expect(readdirSync(join('.build', name)).filter((file) => file.endsWith('.map'))).toEqual([]);
      expect(readFileSync(join('.build', name, 'index.mjs'), 'utf8')).not.toContain('sourceMappingURL');
    }
  });

  it('log an error with a stack that names the functions it went through', async () => {
    const eventFile = join(dir, 'event.json');
    writeFileSync(eventFile, JSON.stringify(apiEvent({ method: 'GET', requestId: '01a21868-475e-7660-a629-91b4c60c7c25' })));
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['tests/support/run-handler.ts', '.build/get-termination-request/index.mjs', 'handler', eventFile],
      {
        env: {
          PATH: process.env['PATH'],
          AWS_REGION: 'eu-central-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          REQUESTS_TABLE_NAME: 'requests',
          CONTRACTS_TABLE_NAME: 'contracts',
          // Nothing listens there: the read fails at once, and the store's error is logged.
          DYNAMODB_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
          DYNAMODB_MAX_ATTEMPTS: '1',
          POWERTOOLS_SERVICE_NAME: 'contract-termination',
          POWERTOOLS_LOG_LEVEL: 'INFO',
          POWERTOOLS_METRICS_DISABLED: 'true',
        },
      },
    );
    // Powertools writes ERROR lines to stderr, the others to stdout.
    const lines = `${stdout}\n${stderr}`
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => parsedObject(line));
    const failed = lines.find((line) => line['level'] === 'ERROR');
    expect(failed).toMatchObject({ message: 'request failed', statusCode: 503 });
    const stack = String(at(failed, 'error', 'stack'));
    expect(stack).toMatch(/at (async )?withinBudget \(/);
    expect(stack).toMatch(/at (async )?answerCall \(/);
  });
});
