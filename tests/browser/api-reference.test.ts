import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../scripts/local/demo-data';
import { docsRoutes } from '../../scripts/local/docs-routes';
import { startPageServer, type PageServer } from '../../scripts/local/page-server';
import { signToken } from '../../scripts/local/signing-key';
import { useBrowser } from '../support/browser';
import { newContract } from '../support/contracts';
import { startHttpStackWithFaults, type HttpStack } from '../support/http-stack';
import type { TestTables } from '../support/local-tables';

/*
 * The local API reference (/docs/ on the demo page's origin, as npm start serves it) in headless
 * Chromium: Swagger UI over the description with the running stack as its first server, and
 * "Try it out" calling that stack from the browser (a CORS preflight, the bearer token from
 * "Authorize", the answer shown).
 */

const anna = DEMO_CUSTOMERS.anna.customerId;
let stack: HttpStack | undefined;
let tables: TestTables;
let stopStack: (() => Promise<void>) | undefined;
let page: PageServer | undefined;
const browser = useBrowser();

beforeAll(async () => {
  page = await startPageServer({
    port: 0,
    config: () => ({ apiUrl: '', token: '', customerId: anna, contracts: [] }),
    routes: (req, res) => (stack ? docsRoutes(stack.offline.url)(req, res) : false),
  });
  ({ stack, tables, stop: stopStack } = await startHttpStackWithFaults({ env: { ALLOWED_ORIGINS: page.origin } }));
}, 120_000);

afterAll(async () => {
  await page?.stop();
  await stopStack?.();
});

/** The reference, signed in as Anna through its Authorize dialog. */
async function openSignedIn(): Promise<Page> {
  if (!page || !stack) throw new Error('the stack or the page server did not start');
  const tab = await browser.newPage();
  await tab.goto(`${page.origin}/docs/`);
  await tab.locator('.opblock').first().waitFor();
  await tab.locator('button.authorize').first().click();
  await tab.locator('.auth-container input').fill(signToken(stack.key, { customerId: anna }));
  await tab.locator('.auth-btn-wrapper button.authorize').click();
  await tab.locator('.auth-btn-wrapper button.btn-done').click();
  return tab;
}

/** Opens an operation, presses Try it out, fills the named parameters, executes, and reads the status and body shown. */
async function tryItOut(
  tab: Page,
  operationId: string,
  parameters: Record<string, string> = {},
): Promise<{ status: string; body: string }> {
  const operation = tab.locator(`#operations-termination-requests-${operationId}`);
  await operation.locator('.opblock-summary').click();
  await operation.locator('button.try-out__btn').click();
  for (const [name, value] of Object.entries(parameters)) {
    await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
  }
  await operation.locator('button.execute').click();
  const live = operation.locator('.live-responses-table .response');
  await live.locator('.response-col_status').first().waitFor();
  return {
    status: (await live.locator('.response-col_status').first().innerText()).trim(),
    body: await live.locator('.microlight, pre').first().innerText(),
  };
}

describe('the local API reference', () => {
  it('names the running stack first among its servers, then the deployed stages', async () => {
    if (!page || !stack) throw new Error('not started');
    const tab = await browser.newPage();
    await tab.goto(`${page.origin}/docs/`);
    const servers = tab.locator('.servers select option');
    await servers.first().waitFor({ state: 'attached' });
    expect(await servers.allInnerTexts()).toEqual([
      expect.stringContaining(stack.offline.url),
      expect.stringContaining('/prod'),
      expect.stringContaining('/dev'),
    ]);
  });

  it('tries a GET out against the stack: the reasons, in answer to the token of the Authorize dialog', async () => {
    const tab = await openSignedIn();
    const { status, body } = await tryItOut(tab, 'listTerminationReasons');
    expect(status).toBe('200');
    expect(body).toContain('RELOCATION');
  });

  it('tries a create out with its Idempotency-Key and the example body: 201', async () => {
    const contractId = await newContract(tables);
    const tab = await openSignedIn();
    const { status, body } = await tryItOut(tab, 'createTerminationRequest', { contractId, 'Idempotency-Key': randomUUID() });
    expect(status).toBe('201');
    expect(body).toMatch(/"requestNumber": "TR-/);
  });
});
