import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitKeyOf, requestKeyOf, slotKeyOf } from '../../lib/dynamodb/keys';
import { startAwsStandIn, type AwsStandIn } from '../../scripts/local/aws-stand-in';
import { DEMO_CUSTOMERS, demoContractDisplay } from '../../scripts/local/demo-data';
import { pageContract } from '../../scripts/local/page-server';
import { writeRunningStack } from '../../scripts/local/running-stack';
import { decisionRulePattern } from '../../scripts/local/template-patterns';
import { chooseReason } from '../../scripts/screenshot';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { useCustomerPage } from '../support/customer-page';
import { callHandler } from '../support/handler';
import { postsOf, recordCalls } from '../support/page-calls';

/*
 * The demo page as a personal account, in headless Chromium against the local
 * stack: the contract's requests listed and paged, kept over a reload, withdrawn from the
 * keyboard after the page's own confirmation, and a back-office decision made with npm run
 * backoffice shown without a reload.
 */

const anna = DEMO_CUSTOMERS.anna.customerId;
const creditCard = demoContractDisplay(DEMO_CUSTOMERS.anna.contracts.active);
const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const dir = mkdtempSync(join(tmpdir(), 'account-'));
const stackFile = join(dir, 'stack.json');
let bus: AwsStandIn | undefined;
let offered: string[] = [];
const stack = useCustomerPage(() => ({
  customerId: anna,
  contracts: offered.map((contractId) => pageContract({ contractId, status: 'ACTIVE' }, creditCard)),
  refreshSeconds: 1,
}));

beforeAll(async () => {
  const { lifecycle, http, pageServer } = stack;
  // The back office's bus, routed to the real consumer on the same tables, as npm start does.
  bus = await startAwsStandIn({
    rules: [
      {
        name: 'DecisionRule',
        pattern: decisionRulePattern(),
        deliver: async (e) => {
          await lifecycle.decide(e);
        },
      },
    ],
  });
  writeRunningStack(
    {
      pid: process.pid,
      apiUrl: http.offline.url,
      dynamoDbEndpoint: lifecycle.tables.endpoint,
      jwksUri: 'http://127.0.0.1:1/.well-known/jwks.json',
      lambdaPort: 1,
      awsStandIn: bus.endpoint,
      pageUrl: pageServer.url,
      tables: lifecycle.tables.names,
    },
    stackFile,
  );
}, 120_000);

afterAll(async () => {
  await bus?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A contract of Anna's with `count` requests (the last one active), the only one the page offers. */
async function contractWith(count: number): Promise<{ contractId: string; requests: { requestId: string; requestNumber: string }[] }> {
  const contractId = await newContract(stack.lifecycle.tables);
  const requests: { requestId: string; requestNumber: string }[] = [];
  for (let i = 0; i < count; i++) {
    // A final status frees the slot; the months that many requests would take clear the customer's limit record.
    if (i > 0) {
      for (const key of [slotKeyOf(contractId), limitKeyOf(contractId, anna)])
        await stack.lifecycle.tables.doc.send(new DeleteCommand({ TableName: stack.lifecycle.tables.names.requests, Key: { ...key } }));
    }
    const created = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    expect(created.status).toBe(201);
    requests.push({ requestId: String(created.body['requestId']), requestNumber: String(created.body['requestNumber']) });
  }
  offered = [contractId];
  return { contractId, requests };
}

/** The page, once it knows whether the contract has a request in progress (then shown instead of the form), its calls recorded. */
const open = () => stack.open({ prepare: recordCalls });

const numbersShown = (page: Page) => page.locator('#requests-list li h3').allTextContents();

async function statusOf(contractId: string, requestId: string): Promise<unknown> {
  const { Item } = await stack.lifecycle.tables.doc.send(
    new GetCommand({ TableName: stack.lifecycle.tables.names.requests, Key: { ...requestKeyOf(contractId, requestId) } }),
  );
  return Item?.['status'];
}

describe('the page as a personal account', () => {
  it("lists the contract's requests newest first, five at a time, and again after a reload", async () => {
    const { requests } = await contractWith(6);
    const newestFirst = [...requests].reverse().map((r) => `Request ${r.requestNumber}`);
    const page = await open();
    await page.locator('#requests-list li').nth(4).waitFor();
    expect(await numbersShown(page)).toEqual(newestFirst.slice(0, 5));
    expect(await page.locator('#requests-list li').first().locator('.status').textContent()).toBe('Status: Submitted');
    // "Show more" from the keyboard: the button goes with the last page, and the focus goes on to the first request it brought.
    await page.focus('#requests-more');
    await page.keyboard.press('Enter');
    await page.locator('#requests-list li').nth(5).waitFor();
    expect(await numbersShown(page)).toEqual(newestFirst);
    await expect(page.locator('#requests-more').isHidden()).resolves.toBe(true);
    await page.locator(`#requests-list li[data-request-id="${requests[0]?.requestId ?? ''}"] h3:focus`).waitFor();
    await page.reload();
    await page.locator('#requests-list li').nth(4).waitFor();
    expect(await numbersShown(page)).toEqual(newestFirst.slice(0, 5));
  }, 60_000);

  it("withdraws a request from the keyboard, only after the customer confirms in the page's own dialog", async () => {
    const { contractId, requests } = await contractWith(1);
    const [request = { requestId: '', requestNumber: '' }] = requests;
    const page = await open();
    const button = page.getByRole('button', { name: `Withdraw request ${request.requestNumber}` });
    const focused = (id: string) => page.evaluate(`document.activeElement?.id === ${JSON.stringify(id)}`);
    await button.waitFor();
    await button.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Withdraw request ${request.requestNumber}?` });
    await dialog.waitFor();
    expect(await dialog.locator('#withdraw-text').textContent()).toBe('The bank will stop handling it. This cannot be undone.');
    // The dialog opens on the choice that changes nothing.
    expect(await focused('withdraw-cancel')).toBe(true);

    // Dismissed: the dialog closes, the focus is back on the request's button, and nothing was sent.
    await page.keyboard.press('Escape');
    await page.locator(`#requests-list button.withdraw[data-request-id="${request.requestId}"]:focus`).waitFor();
    expect(await dialog.isHidden()).toBe(true);
    expect(await postsOf(page)).toEqual([]);
    expect(await statusOf(contractId, request.requestId)).toBe('SUBMITTED');

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    expect(await focused('withdraw-confirm')).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#requests-list li[data-status="WITHDRAWN"]').waitFor();
    const withdrawals = await postsOf(page);
    expect(withdrawals.map((call) => call.path)).toEqual([
      `/api/v1/contracts/${contractId}/termination-requests/${request.requestId}/withdrawal`,
    ]);
    expect(await statusOf(contractId, request.requestId)).toBe('WITHDRAWN');
    expect(await page.locator('#requests-list li .status').textContent()).toBe('Status: Withdrawn');
    expect(await page.locator('#requests-list button.withdraw').count()).toBe(0);
    // The focus stays with the request, now on its title.
    await page.locator(`#requests-list li[data-request-id="${request.requestId}"] h3:focus`).waitFor();
  });

  it('shows a decision made with npm run backoffice without a reload, in the language chosen', async () => {
    const { requests } = await contractWith(1);
    const [request = { requestId: '', requestNumber: '' }] = requests;
    const page = await open();
    await page.click('button[data-lang="ru"]');
    await page.getByRole('button', { name: `Отозвать заявку ${request.requestNumber}` }).waitFor();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [tsx, 'scripts/backoffice.ts', '--request', request.requestNumber, '--status', 'REJECTED', '--reason', 'Договор в залоге'],
      { env: { PATH: process.env['PATH'], HOME: process.env['HOME'], LOCAL_STACK_FILE: stackFile }, timeout: 30_000 },
    );
    expect(stdout).toContain('The request is now REJECTED');
    // The page reads the list again on its own (every second here): no reload.
    await page.locator('#requests-list li[data-status="REJECTED"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('#requests-list li .status').textContent()).toBe('Статус: Отклонена');
    expect(await page.locator('#requests-list li .reason').textContent()).toBe('Причина словами банка: Договор в залоге');
    expect(await page.locator('#requests-list button.withdraw').count()).toBe(0);
    // The panel that showed the request says what became of it, and the form is back for the contract.
    await page.locator('form[data-state="ready"]').waitFor();
    expect(await page.locator('#result').isHidden()).toBe(true);
    expect(await page.locator('#notice').textContent()).toBe(
      `Заявка ${request.requestNumber} отклонена. По этому договору можно подать новую заявку.`,
    );
    expect(await page.locator('#submit').isEnabled()).toBe(true);
  }, 60_000);

  it('shows a request in progress instead of the form, and a submit sends no create', async () => {
    const { contractId, requests } = await contractWith(1);
    const [request = { requestId: '', requestNumber: '' }] = requests;
    const page = await open();
    await page.locator('form[data-state="done"]').waitFor();
    expect(await page.locator('#result-title').textContent()).toBe('A request on this contract is in progress');
    expect(await page.locator('#result-number').textContent()).toBe(request.requestNumber);
    expect(await page.locator('#result-status').textContent()).toBe('Submitted');
    expect(await page.locator('#result-withdraw').isVisible()).toBe(true);
    for (const field of ['#reasons', '#date', '#bik', '#submit']) expect(await page.locator(field).isVisible(), field).toBe(false);
    await page.evaluate("document.getElementById('termination-form').requestSubmit()");
    await page.locator('#result:focus').waitFor();
    expect(await postsOf(page)).toEqual([]);
    expect(await statusOf(contractId, request.requestId)).toBe('SUBMITTED');
  });

  it('after a withdrawal from the panel, every place shows it withdrawn, says so in words, and the form is back', async () => {
    const { contractId } = await contractWith(0);
    const page = await open();
    await page.locator('form[data-state="ready"]').waitFor();
    await chooseReason(page, 'RELOCATION');
    await page.fill('#date', '30/06/2045');
    await page.fill('#bik', '044525225');
    await page.fill('#account', '40817810700000000001');
    await page.fill('#recipient', 'Anna Ivanova');
    await page.click('#submit');
    await page.locator('form[data-state="done"]').waitFor();
    const number = (await page.locator('#result-number').textContent()) ?? '';
    expect(await page.locator('#result-title').textContent()).toBe('Request submitted');
    await page.click('#result-withdraw');
    await page.click('#withdraw-confirm');
    await page.locator('form[data-state="ready"]').waitFor();
    expect(await page.locator('#notice').textContent()).toBe(
      `Request ${number} is withdrawn. You can make a new request on this contract.`,
    );
    await page.locator('#notice:focus').waitFor();
    expect(await page.locator('#result').isHidden()).toBe(true);
    await page.locator('#requests-list li[data-status="WITHDRAWN"]').waitFor();
    expect(await page.locator('#requests-list li .status').allTextContents()).toEqual(['Status: Withdrawn']);
    expect(await page.locator('#submit').textContent()).toBe('Submit request');
    expect(await page.locator('#submit').isEnabled()).toBe(true);
    // Wherever the page lists it (this contract's requests, all the customer's), it is withdrawn; other requests of hers may be in progress.
    const listed = await page.locator('li', { hasText: `Request ${number}` }).allInnerTexts();
    expect(listed.length).toBeGreaterThanOrEqual(2);
    for (const text of listed) expect(text).not.toContain('Status: Submitted');
    expect((await postsOf(page)).map((call) => call.path)).toEqual([
      `/api/v1/contracts/${contractId}/termination-requests`,
      expect.stringMatching(/\/withdrawal$/),
    ]);
  });
});
