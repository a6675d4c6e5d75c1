import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { decisionEvent } from '../../scripts/local/decision-event';
import { DEMO_BANK_DETAILS, type ContractDisplay } from '../../scripts/local/demo-data';
import { pageContract } from '../../scripts/local/page-server';
import { chooseReason } from '../../scripts/screenshot';
import { audit } from '../support/axe';
import { headersWithKey, validBody } from '../support/bodies';
import { newContract } from '../support/contracts';
import { useCustomerPage } from '../support/customer-page';
import { callHandler } from '../support/handler';

/*
 * The page's "All my requests" (web/my-requests.ts) and, under each request it lists, what was
 * sent and how it went (web/request-details.ts), in headless Chromium against the local stack:
 * docs/decisions/0022-what-a-customer-sees-of-a-request.md and 0023-a-customers-requests-by-index.md.
 * Each test is a customer of its own, so the list holds only what that test made.
 */

const CARD: ContractDisplay = { product: { en: 'Credit card', ru: 'Кредитная карта' }, maskedNumber: '•• 4821' };
const MORTGAGE: ContractDisplay = { product: { en: 'Mortgage', ru: 'Ипотека' }, maskedNumber: '•• 7730' };

/** The customer the page is shown as, and the contracts it offers them. */
let customer = '';
let offered: { contractId: string; display: ContractDisplay }[] = [];
const stack = useCustomerPage(() => ({
  customerId: customer,
  contracts: offered.map(({ contractId, display }) => pageContract({ contractId, status: 'ACTIVE' }, display)),
  refreshSeconds: 1,
}));

/** A new customer with a contract of each display, the page offering both. */
async function newCustomer(): Promise<{ card: string; mortgage: string }> {
  customer = `customer-${randomUUID()}`;
  const card = await newContract(stack.lifecycle.tables, { customerId: customer });
  const mortgage = await newContract(stack.lifecycle.tables, { customerId: customer });
  offered = [
    { contractId: card, display: CARD },
    { contractId: mortgage, display: MORTGAGE },
  ];
  return { card, mortgage };
}

async function create(contractId: string): Promise<{ requestId: string; requestNumber: string }> {
  const answer = await callHandler({ contractId, customerId: customer, body: validBody(), headers: headersWithKey() });
  expect(answer.status).toBe(201);
  return { requestId: String(answer.body['requestId']), requestNumber: String(answer.body['requestNumber']) };
}

const mine = (page: Page) => page.locator('#my-requests-list > li');

describe("the page's own requests", () => {
  it('lists the customer’s requests on every contract, newest first, each with its contract', async () => {
    const { card, mortgage } = await newCustomer();
    const first = await create(card);
    await stack.lifecycle.decide(decisionEvent({ ...first, contractId: card, status: 'REJECTED', reason: 'The card has a balance' }));
    const second = await create(mortgage);
    const page = await stack.open();
    await mine(page).nth(1).waitFor();
    expect(await mine(page).locator('h3').allTextContents()).toEqual([`Request ${second.requestNumber}`, `Request ${first.requestNumber}`]);
    expect(await mine(page).locator('.contract').allTextContents()).toEqual([
      'Contract: Mortgage •• 7730',
      'Contract: Credit card •• 4821',
    ]);
    expect(await mine(page).nth(1).locator('.status-label').textContent()).toBe('Rejected');
  }, 60_000);

  it('shows what was sent, the account by its last 4 digits only, and each step with the bank’s words, kept open over a refresh', async () => {
    const { card } = await newCustomer();
    const request = await create(card);
    await stack.lifecycle.decide(decisionEvent({ ...request, contractId: card, status: 'IN_REVIEW' }));
    const reason = 'По договору есть просроченная задолженность.';
    await stack.lifecycle.decide(decisionEvent({ ...request, contractId: card, status: 'REJECTED', reason }));
    const page = await stack.open();
    const item = page.locator(`#my-requests-list > li[data-request-id="${request.requestId}"]`);
    await item.locator('summary').click();
    const steps = item.locator('.timeline li');
    await steps.nth(2).waitFor();
    expect(await steps.locator('.timeline-status').allTextContents()).toEqual(['Submitted', 'In review', 'Rejected']);
    expect(await steps.nth(2).locator('q').textContent()).toBe(reason);
    expect(await steps.nth(2).locator('q').getAttribute('lang')).toBe('ru');
    const sent = await item.locator('dl.submitted').innerText();
    expect(sent).toContain(`ending in ${DEMO_BANK_DETAILS.accountNumber.slice(-4)}`);
    expect(sent).toContain(DEMO_BANK_DETAILS.recipientName);
    expect(sent).toContain('Relocation');
    expect(await page.content()).not.toContain(DEMO_BANK_DETAILS.accountNumber);
    // The page reads its lists again every second: the disclosure stays open, what it showed stays.
    await page.waitForResponse((response) => response.url().includes('/api/v1/termination-requests?'));
    await page.waitForResponse((response) => response.url().includes('/api/v1/termination-requests?'));
    await expect(item.locator('details').getAttribute('open')).resolves.toBe('');
    expect(await item.locator('.timeline li').count()).toBe(3);
    expect((await audit(page)).map((violation) => violation.rule)).toEqual([]);
  }, 60_000);

  it('shows a request it has just made though the list does not have it yet (the index follows a moment late)', async () => {
    const { card } = await newCustomer();
    offered = offered.slice(0, 1);
    const page = await stack.open();
    // The index has not caught up: every read of the list answers as if nothing were made.
    await page.route('**/api/v1/termination-requests?*', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        headers: { 'Access-Control-Allow-Origin': '*' },
        body: '{"items":[]}',
      }),
    );
    await chooseReason(page, 'RELOCATION');
    await page.fill('#date', '30/06/2045');
    await page.fill('#bik', DEMO_BANK_DETAILS.bik);
    await page.fill('#account', DEMO_BANK_DETAILS.accountNumber);
    await page.fill('#recipient', DEMO_BANK_DETAILS.recipientName);
    await page.locator('#submit').click();
    await page.locator('form[data-state="done"]').waitFor();
    const number = await page.locator('#result-number').innerText();
    await mine(page).first().waitFor();
    expect(await mine(page).locator('h3').allTextContents()).toEqual([`Request ${number}`]);
    expect(await mine(page).first().locator('.contract').textContent()).toBe(`Contract: ${CARD.product.en} ${CARD.maskedNumber}`);
    expect(offered.map(({ contractId }) => contractId)).toEqual([card]);
  }, 60_000);
});
