import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildFunctions } from './build';
import { assertLambdaNode } from './lambda-node';
import { DEMO_BANK_DETAILS, DEMO_CONTRACTS, DEMO_CUSTOMERS, putContracts } from './local/demo-data';
import { assertJava, startDynamoDbLocal } from './local/dynamodb-local';
import { freePort } from './local/free-port';
import { startJwksServer } from './local/jwks-server';
import { startOffline } from './local/offline';
import { demoPageConfig, startPageServer } from './local/page-server';
import { localDefaults, localServiceEnv } from './local/service-env';
import { makeSigningKey } from './local/signing-key';
import { createTables } from './local/tables';

/*
 * npm run screenshot: docs/images/termination-form.png, the demo page after a successful submit
 * (English), taken with headless Chromium from Debian's package (driven by playwright-core) on a
 * stack of its own: DynamoDB Local, serverless offline and the page server, all on free ports.
 * launchChromium is also what the browser tests (tests/browser/) use.
 */

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Chromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile. */
  close: () => Promise<void>;
}

/** Headless Chromium on a fresh profile in a temporary folder, English, one desktop-sized window. */
export async function launchChromium(): Promise<Chromium> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'termination-chromium-'));
  const context = await chromium
    .launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      locale: 'en-US',
      viewport: { width: 820, height: 900 },
    })
    .catch((error: unknown) => {
      rmSync(userDataDir, { recursive: true, force: true });
      throw error;
    });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

const OUTPUT = 'docs/images/termination-form.png';

async function main(): Promise<void> {
  assertLambdaNode();
  assertJava();
  const stops: (() => Promise<void>)[] = [];
  try {
    console.log('Building functions...');
    await buildFunctions();
    const db = await startDynamoDbLocal({ port: await freePort() });
    stops.push(db.stop);
    await createTables(db.client, localDefaults.tables);
    await putContracts(DynamoDBDocumentClient.from(db.client), localDefaults.tables.contracts, DEMO_CONTRACTS);
    const key = makeSigningKey();
    const jwks = await startJwksServer(key.jwks, 0);
    stops.push(jwks.stop);
    const pagePort = await freePort();
    console.log('Starting serverless offline...');
    const offline = await startOffline({
      apiPort: await freePort(),
      lambdaPort: await freePort(),
      env: {
        ...localServiceEnv({ dynamoDbEndpoint: db.endpoint, jwksUri: jwks.uri }),
        ALLOWED_ORIGINS: `http://127.0.0.1:${pagePort}`,
        LOG_LEVEL: 'SILENT',
      },
    });
    stops.push(offline.stop);
    const server = await startPageServer({ port: pagePort, config: () => demoPageConfig(key, offline.url) });
    stops.push(server.stop);
    const browser = await launchChromium();
    stops.push(browser.close);

    const page = await browser.context.newPage();
    await page.goto(server.url);
    await page.locator('form[data-state="ready"]').waitFor();
    await page.selectOption('#contract', DEMO_CUSTOMERS.anna.contracts.active);
    await page.selectOption('#reason', 'RELOCATION');
    await page.fill('#bik', DEMO_BANK_DETAILS.bik);
    await page.fill('#account', DEMO_BANK_DETAILS.accountNumber);
    await page.fill('#recipient', DEMO_BANK_DETAILS.recipientName);
    await page.fill('#comment', 'Moving to another city.');
    await page.click('#submit');
    await page.locator('#result').waitFor({ state: 'visible' });
    await page.locator('form[data-state="ready"]').waitFor();
    // Nothing focused or hovered in the picture.
    await page.locator('#submit').blur();
    await page.mouse.move(0, 0);
    mkdirSync(dirname(OUTPUT), { recursive: true });
    await page.screenshot({ path: OUTPUT, fullPage: true });
    console.log(`Saved ${OUTPUT}: request ${await page.locator('#result-number').textContent()}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
