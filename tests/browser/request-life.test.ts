import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Page } from 'playwright-core';
import { WITHDRAWABLE_STATUSES } from '../../lib/termination/lifecycle';
import { describe, expect, it } from 'vitest';
import { createTerminationClient } from '../../client/index';
import type { DECISION_STATUSES } from '../../lib/api-model/event-schemas';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS, demoContractDisplay, readContracts } from '../../scripts/local/demo-data';
import { decisionEvent } from '../../scripts/local/decision-event';
import { pageContract } from '../../scripts/local/page-server';
import { fillForm } from '../../scripts/screenshot';
import { newContract } from '../support/contracts';
import { useCustomerPage } from '../support/customer-page';
import { postsOf, recordCalls } from '../support/page-calls';

/*
 * One page kept open through a request's whole life: made on it, then moved by the back office
 * (the real consumer, with signed decisions) while the page refreshes on its own, and the contract
 * closed by the contracts service once the termination is done. At each step the form, the panel,
 * the contract and the list say the same thing. And the request limit, met by a withdrawal made on
 * the page: the page says when the next request is possible, as the API tells it, instead of the form.
 */

const { anna } = DEMO_CUSTOMERS;
/** The contracts the page offers (their status as the contracts table holds it at each read of the config). */
let offered: string[] = [];
// The list and the contracts are read again every second: the page follows the bank without a reload.
const stack = useCustomerPage(async (lifecycle) => ({
  customerId: anna.customerId,
  contracts: (await readContracts(lifecycle.tables.doc, lifecycle.tables.names.contracts, offered)).map((contract) =>
    pageContract(contract, demoContractDisplay(anna.contracts.active)),
  ),
  bankDetails: { ...DEMO_BANK_DETAILS },
  refreshSeconds: 1,
}));

async function open(contractId: string): Promise<Page> {
  offered = [contractId];
  return stack.open({ prepare: recordCalls });
}

/** The page's request made through the form, and its id (the panel's withdraw button carries it). */
async function submitOnPage(page: Page): Promise<{ requestId: string; requestNumber: string }> {
  await fillForm(page);
  await page.click('#submit');
  await page.locator('form[data-state="done"]').waitFor();
  const requestId = (await page.getAttribute('#result-withdraw', 'data-request-id')) ?? '';
  const requestNumber = (await page.getAttribute('#result-withdraw', 'data-request-number')) ?? '';
  return { requestId, requestNumber };
}

const decide = async (contractId: string, requestId: string, status: (typeof DECISION_STATUSES)[number], reason?: string) => {
  const event = decisionEvent({ requestId, contractId, status, ...(reason === undefined ? {} : { reason }) });
  expect((await stack.lifecycle.decide(event)).outcome).toBe('applied');
};

/** What the page shows of the request and the contract now. */
async function shown(page: Page) {
  return {
    form: await page.getAttribute('form', 'data-state'),
    fieldsHidden: await page.locator('#form-fields').isHidden(),
    panelHidden: await page.locator('#result').isHidden(),
    title: await page.locator('#result-title').textContent(),
    status: await page.locator('#result-status').textContent(),
    withdrawOffered: await page.locator('#result-withdraw').isVisible(),
    contract: await page.locator('label.contract .contract-state').textContent(),
    list: await Promise.all((await page.locator('#requests-list li').all()).map((item) => item.getAttribute('data-status'))),
    note: (await page.locator('#contract-note').isVisible()) ? await page.locator('#contract-note').textContent() : '',
    notice: await page.locator('#notice').textContent(),
  };
}

/** The typed fields as they stand, to check the form is empty for a new request. */
const typed = async (page: Page) => ({
  reasonsChosen: await page.locator('input[name="reason"]:checked').count(),
  date: await page.inputValue('#date'),
  comment: await page.inputValue('#comment'),
  documents: await page.locator('input[name="document"]:checked').count(),
  account: await page.inputValue('#account'),
  recipient: await page.inputValue('#recipient'),
});

describe('one page through a request the bank decides', () => {
  it('follows SUBMITTED, IN_REVIEW, APPROVED and COMPLETED, then the contract closed, and never offers a new request', async () => {
    const contractId = await newContract(stack.lifecycle.tables);
    const page = await open(contractId);
    const { requestId, requestNumber } = await submitOnPage(page);
    const panel = (status: string, title: string, withdrawOffered: boolean) => ({
      form: 'done',
      fieldsHidden: true,
      panelHidden: false,
      title,
      status,
      withdrawOffered,
      contract: 'Active',
      note: '',
      notice: '',
    });
    expect(await shown(page)).toEqual({
      ...panel('Submitted', 'Request submitted', WITHDRAWABLE_STATUSES.includes('SUBMITTED')),
      list: ['SUBMITTED'],
    });

    await decide(contractId, requestId, 'IN_REVIEW');
    await page.locator('#result-status', { hasText: 'In review' }).waitFor();
    await page.locator('#requests-list li[data-status="IN_REVIEW"]').waitFor();
    expect(await shown(page)).toEqual({
      ...panel('In review', 'Request in review', WITHDRAWABLE_STATUSES.includes('IN_REVIEW')),
      list: ['IN_REVIEW'],
    });

    await decide(contractId, requestId, 'APPROVED');
    await page.locator('#result-status', { hasText: 'Approved' }).waitFor();
    await page.locator('#requests-list li[data-status="APPROVED"]').waitFor();
    expect(await shown(page)).toEqual({
      ...panel('Approved', 'Request approved', WITHDRAWABLE_STATUSES.includes('APPROVED')),
      list: ['APPROVED'],
    });

    // Completed while the contracts service still has the contract active: the termination is under way, no form.
    await decide(contractId, requestId, 'COMPLETED');
    await page.locator('form[data-state="blocked"]').waitFor();
    const completing = await shown(page);
    expect(completing).toMatchObject({ fieldsHidden: true, panelHidden: true, contract: 'Active', list: ['COMPLETED'] });
    expect(completing.notice).toBe(`Request ${requestNumber} is completed.`);
    expect(completing.note).toBe(
      `The bank has completed your request ${requestNumber}: it is now terminating this contract, so no new request is needed. Once that is done, the contract shows as closed.`,
    );
    expect(await typed(page)).toMatchObject({ reasonsChosen: 0, date: '', comment: '', documents: 0 });

    // The contracts service closes the contract once the termination is done: the page shows it closed.
    await stack.lifecycle.tables.doc.send(
      new UpdateCommand({
        TableName: stack.lifecycle.tables.names.contracts,
        Key: { contractId },
        UpdateExpression: 'SET #status = :closed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':closed': 'CLOSED' },
      }),
    );
    await page.locator('label.contract .contract-state', { hasText: 'Closed' }).waitFor();
    await page.locator('form[data-state="unavailable"]').waitFor();
    expect(await page.locator('#contract-note').textContent()).toBe(
      `This contract is terminated, as your request ${requestNumber} asked. Its requests are listed below.`,
    );
    expect(await page.locator('#submit').isDisabled()).toBe(true);
    expect((await postsOf(page)).length).toBe(1);

    // A fresh load offers no form either.
    await page.reload();
    await page.locator('form[data-state="unavailable"]').waitFor();
    expect((await postsOf(page)).length).toBe(0);
  }, 120_000);

  it('follows SUBMITTED, IN_REVIEW and REJECTED, then offers an empty form for a new request', async () => {
    const contractId = await newContract(stack.lifecycle.tables);
    const page = await open(contractId);
    const { requestId, requestNumber } = await submitOnPage(page);
    await decide(contractId, requestId, 'IN_REVIEW');
    await page.locator('#result-title', { hasText: 'Request in review' }).waitFor();
    expect(await shown(page)).toMatchObject({ form: 'done', status: 'In review', list: ['IN_REVIEW'], contract: 'Active' });

    await decide(contractId, requestId, 'REJECTED', 'The contract is pledged as collateral.');
    await page.locator('form[data-state="ready"]').waitFor();
    const after = await shown(page);
    expect(after).toMatchObject({
      form: 'ready',
      fieldsHidden: false,
      panelHidden: true,
      contract: 'Active',
      note: '',
      list: ['REJECTED'],
    });
    expect(after.notice).toBe(`Request ${requestNumber} is rejected. You can make a new request on this contract.`);
    expect(await page.locator('#requests-list li .bank-words').textContent()).toBe('The contract is pledged as collateral.');
    // Empty for a new request, the balance going to the customer's own account as before.
    expect(await typed(page)).toEqual({
      reasonsChosen: 0,
      date: '',
      comment: '',
      documents: 0,
      account: DEMO_BANK_DETAILS.accountNumber,
      recipient: DEMO_BANK_DETAILS.recipientName,
    });
    expect((await postsOf(page)).length).toBe(1);
  }, 120_000);
});

describe('the request limit on the page', () => {
  it('says when the next request is possible, in the bank time, instead of the form, once a withdrawal on the page reaches the limit', async () => {
    const contractId = await newContract(stack.lifecycle.tables);
    // Four requests made and withdrawn elsewhere (the app, another tab).
    const client = createTerminationClient({ baseUrl: stack.http.offline.url, token: () => stack.token(anna.customerId) });
    const date = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    for (let i = 0; i < 4; i++) {
      const made = await client.createTerminationRequest(contractId, {
        reasonCode: 'RELOCATION',
        desiredTerminationDate: date,
        bankDetails: { ...DEMO_BANK_DETAILS },
      });
      if (!made.ok) throw new Error(JSON.stringify(made));
      expect((await client.withdrawTerminationRequest(contractId, made.value.requestId)).ok).toBe(true);
    }
    const page = await open(contractId);
    const { requestNumber } = await submitOnPage(page);
    await page.locator('#result-withdraw').click();
    await page.locator('#withdraw-confirm').click();
    await page.locator('form[data-state="blocked"]').waitFor();

    const listed = await client.listTerminationRequests(contractId, { limit: 5 });
    if (!listed.ok) throw new Error(JSON.stringify(listed));
    const next = listed.value.nextRequestAllowedAt ?? '';
    expect(Date.parse(next)).toBeGreaterThan(Date.now());
    const when = new Date(Math.ceil(Date.parse(next) / 60_000) * 60_000).toLocaleString('en-GB', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'Europe/Moscow',
      timeZoneName: 'long',
    });
    const now = await shown(page);
    expect(now).toMatchObject({ fieldsHidden: true, panelHidden: true, contract: 'Active' });
    expect(now.note).toBe(
      `You have made as many requests on this contract as the bank takes for now. You can make a new one from ${when}.`,
    );
    expect(now.note).toContain('Moscow Standard Time');
    // Said once: the notice names the withdrawal, and promises no new request.
    expect(now.notice).toBe(`Request ${requestNumber} is withdrawn.`);
    expect(await page.locator('#submit').isVisible()).toBe(false);
    // The page's own create and withdrawal only: nothing was sent that the limit would refuse.
    expect((await postsOf(page)).map((call) => call.path.endsWith('/withdrawal'))).toEqual([false, true]);

    // A fresh load knows it before the customer types anything.
    await page.reload();
    await page.locator('form[data-state="blocked"]').waitFor();
    expect(await page.locator('#contract-note').textContent()).toContain(when);
    expect(await postsOf(page)).toEqual([]);
  }, 120_000);
});
