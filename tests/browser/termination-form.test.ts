import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BANK_DETAILS, DEMO_CUSTOMERS, DEMO_END_DATE, demoContractDisplay } from '../../scripts/local/demo-data';
import { businessToday } from '../../lib/termination/business-date';
import { localBusinessTimeZone, pageContract, startPageServer, type PageContract, type PageServer } from '../../scripts/local/page-server';
import { signToken } from '../../scripts/local/signing-key';
import { chooseReason, typedDay } from '../../scripts/screenshot';
import { headersWithKey, validBody } from '../support/bodies';
import { useBrowser } from '../support/browser';
import { newContract } from '../support/contracts';
import type { FaultProxy } from '../support/fault-proxy';
import { callHandler, withdrawalOf } from '../support/handler';
import { startHttpStackWithFaults, type HttpStack } from '../support/http-stack';
import { ofKind, type TestTables } from '../support/local-tables';
import { startLossyProxy, type LossyProxy } from '../support/lossy-proxy';
import { postsOf, recordCalls } from '../support/page-calls';
import { TEXTS } from '../../web/texts';
import { REASON_CODES } from '../../lib/api-model/schemas';
import { textsFor } from '../../lib/http/texts';

/** The labels the service gives the reasons, in the API's order. */
const reasonLabels = (language: 'en' | 'ru') => REASON_CODES.map((code) => textsFor(language).reasons[code]);

/*
 * The demo page (web/) in headless Chromium against the local stack: the page on an origin of
 * its own that the stack's ALLOWED_ORIGINS lists, a second one that it does not, and between the
 * page and the API a proxy that counts calls and can lose answers after the write committed
 * (tests/support/page-calls.ts counts what the page itself asks for).
 * Each test offers the page a fresh contract of Anna's, so no two share an active-request slot.
 */

const anna = DEMO_CUSTOMERS.anna.customerId;
let stack: HttpStack;
let tables: TestTables;
let stopStack: (() => Promise<void>) | undefined;
let lossy: LossyProxy | undefined;
let allowedPage: PageServer | undefined;
let strangerPage: PageServer | undefined;
let dynamoDb: FaultProxy;
const browser = useBrowser();
/** The contracts the page offers on its next load. */
let offered: PageContract[] = [];
/** The documents the page offers on its next load (none unless a test says). */
let offeredDocuments: { documentId: string; fileName: string }[] = [];
/** How often the page reads the list again (its default unless a test says). */
let refreshSeconds: number | undefined;

beforeAll(async () => {
  const config = () => ({
    apiUrl: lossy?.url ?? '',
    token: signToken(stack.key, { customerId: anna }),
    customerId: anna,
    contracts: offered,
    documents: offeredDocuments,
    ...(refreshSeconds === undefined ? {} : { refreshSeconds }),
  });
  allowedPage = await startPageServer({ port: 0, config });
  strangerPage = await startPageServer({ port: 0, config });
  ({ stack, tables, proxy: dynamoDb, stop: stopStack } = await startHttpStackWithFaults({ env: { ALLOWED_ORIGINS: allowedPage.origin } }));
  lossy = await startLossyProxy(stack.offline.url);
}, 120_000);

afterEach(() => {
  offeredDocuments = [];
  refreshSeconds = undefined;
  dynamoDb.setMode('pass');
  proxy().loseAnswers(0);
  proxy().down(false);
});

afterAll(async () => {
  await allowedPage?.stop();
  await strangerPage?.stop();
  await lossy?.stop();
  await stopStack?.();
});

function proxy(): LossyProxy {
  if (!lossy) throw new Error('the proxy did not start');
  return lossy;
}

/**
 * A fresh contract of Anna's, the only one the page offers from now on, shown as her demo credit
 * card. `endDate` goes into the contracts table only: the page is not told of it.
 */
async function offerContract(fields: { endDate?: string } = {}): Promise<string> {
  const contractId = await newContract(tables, fields);
  offered = [pageContract({ contractId, status: 'ACTIVE' }, demoContractDisplay(DEMO_CUSTOMERS.anna.contracts.active))];
  return contractId;
}

async function open(
  server: PageServer | undefined,
  prepare?: (page: Page) => void | Promise<void>,
  state: 'ready' | 'loading' = 'ready',
): Promise<Page> {
  if (!server) throw new Error('the page server did not start');
  const page = await browser.newPage();
  await prepare?.(page);
  await page.goto(server.url);
  await page.locator(`form[data-state="${state}"]`).waitFor();
  return page;
}

const FORM = {
  reason: 'FINANCIAL_HARDSHIP',
  date: typedDay('2045-06-30', 'en'),
  bik: DEMO_BANK_DETAILS.bik,
  account: DEMO_BANK_DETAILS.accountNumber,
  recipient: DEMO_BANK_DETAILS.recipientName,
  comment: 'Moving abroad.',
};

async function fill(page: Page, overrides: Partial<Record<keyof typeof FORM, string>> = {}): Promise<void> {
  const form = { ...FORM, ...overrides };
  await chooseReason(page, form.reason);
  await page.fill('#date', form.date);
  await page.fill('#bik', form.bik);
  await page.fill('#account', form.account);
  await page.fill('#recipient', form.recipient);
  await page.fill('#comment', form.comment);
}

/**
 * What the page shows once a submit has settled (a click sets the form's state to sending at
 * once): ready again, or done after a request was made.
 */
async function settled(page: Page) {
  await page.locator('form:is([data-state="ready"], [data-state="done"])').waitFor();
  return {
    resultShown: await page.locator('#result').isVisible(),
    number: await page.locator('#result-number').textContent(),
    status: await page.locator('#result-status').textContent(),
    message: await page.locator('#result-message').textContent(),
    general: await page.locator('#general-error').textContent(),
  };
}

async function itemsOf(contractId: string, kind: string): Promise<Record<string, unknown>[]> {
  return ofKind(await tables.contractItems(contractId), kind);
}

describe('the termination form in Chromium', () => {
  it('submits the form and shows the number, status and message of the request the table now holds', async () => {
    const contractId = await offerContract();
    const page = await open(allowedPage);
    const posts = proxy().forwarded('POST');
    const gets = proxy().forwarded('GET');
    await fill(page);
    await page.click('#submit');
    const shown = await settled(page);
    expect(shown).toMatchObject({ resultShown: true, general: '' });

    const requests = await itemsOf(contractId, 'REQUEST');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      reasonCode: FORM.reason,
      desiredTerminationDate: '2045-06-30',
      bankDetails: { bik: FORM.bik, accountNumber: FORM.account, recipientName: FORM.recipient },
      comment: FORM.comment,
    });
    expect(shown.number).toMatch(/^TR-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(shown.number).toBe(requests[0]?.['requestNumber']);
    expect(shown.status).toBe('Submitted');
    expect(shown.message).toContain(shown.number);
    // One create, the request fetched back by its requestId, the contract's list and the customer's list read again.
    expect(proxy().forwarded('POST') - posts).toBe(1);
    expect(proxy().forwarded('GET') - gets).toBe(3);
  });

  it('keeps nothing in the browser once a request is made: no storage, no cookie, no cache, no database (docs/data-protection.md)', async () => {
    await offerContract();
    const page = await open(allowedPage);
    await fill(page);
    await page.click('#submit');
    expect(await settled(page)).toMatchObject({ resultShown: true, general: '' });
    const kept: unknown = await page.evaluate(`(async () => ({
      local: localStorage.length,
      session: sessionStorage.length,
      cookie: document.cookie,
      caches: (await caches.keys()).length,
      databases: (await indexedDB.databases()).length,
    }))()`);
    expect(kept).toEqual({ local: 0, session: 0, cookie: '', caches: 0, databases: 0 });
  });

  it('creates one request on a double click, then the form is done: locked, the answer kept, another submit sends nothing (24.3)', async () => {
    const contractId = await offerContract();
    const page = await open(allowedPage, recordCalls);
    const posts = proxy().forwarded('POST');
    await fill(page);
    await page.locator('#submit').dblclick();
    const shown = await settled(page);
    expect(shown).toMatchObject({ resultShown: true, general: '' });
    expect(await page.locator('form').getAttribute('data-state')).toBe('done');
    for (const control of ['#date', '#bik', '#account', '#recipient', '#comment', '#submit']) {
      expect(await page.locator(control).isDisabled(), control).toBe(true);
    }
    expect(await page.locator('input[name="reason"]').count()).toBe(REASON_CODES.length);
    expect(await page.locator('input[name="reason"]:enabled').count()).toBe(0);
    expect(await page.locator('#submit').textContent()).toBe('Request sent');

    // Whatever submits the form again (a key, a script) only points at the answer on show.
    await page.evaluate('document.activeElement?.blur()');
    await page.evaluate("document.getElementById('termination-form').requestSubmit()");
    await page.locator('#result:focus').waitFor();
    expect(await page.locator('#result-number').textContent()).toBe(shown.number);
    expect(await page.locator('#result').isVisible()).toBe(true);

    // One call, with one key, from the page, and on the network.
    const creates = await postsOf(page);
    expect(creates).toHaveLength(1);
    expect(creates[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(proxy().forwarded('POST') - posts).toBe(1);
    const requests = await itemsOf(contractId, 'REQUEST');
    expect(requests).toHaveLength(1);
    expect(shown.number).toBe(requests[0]?.['requestNumber']);
  });

  it("shows the request's number when the create's answer was lost: the client's retry is answered with the same request", async () => {
    const contractId = await offerContract();
    const page = await open(allowedPage);
    const posts = proxy().forwarded('POST');
    await fill(page);
    // Chromium itself sends a POST again, up to twice, when a reused keep-alive connection closes
    // without an answer; three lost answers are more than it resends, so the client's retry is needed.
    proxy().loseAnswers(3, 'POST');
    await page.click('#submit');
    const shown = await settled(page);
    expect(shown).toMatchObject({ resultShown: true, general: '' });

    expect(Number(await page.locator('form').getAttribute('data-attempts'))).toBeGreaterThanOrEqual(2);
    expect(proxy().forwarded('POST') - posts).toBe(4);
    const requests = await itemsOf(contractId, 'REQUEST');
    expect(requests).toHaveLength(1);
    expect(shown.number).toBe(requests[0]?.['requestNumber']);
    expect(await itemsOf(contractId, 'IDEMPOTENCY')).toHaveLength(1);
  });

  it('shows the request the bank recorded when no answer to the create ever came, without a second press', async () => {
    const contractId = await offerContract();
    const page = await open(allowedPage, recordCalls);
    await fill(page);
    // Every answer to a POST is lost after the write: the client gives up, and the list, read at once, shows what was made.
    proxy().loseAnswers(1_000, 'POST');
    await page.click('#submit');
    await page.locator('form[data-state="done"]').waitFor({ timeout: 60_000 });
    const requests = await itemsOf(contractId, 'REQUEST');
    expect(requests).toHaveLength(1);
    expect(await page.locator('#result-number').textContent()).toBe(requests[0]?.['requestNumber']);
    expect(await page.locator('#result-title').textContent()).toBe('Request submitted');
    expect(await page.locator('#notice').textContent()).toBe('The bank has confirmed your request after all.');
    expect(await page.locator('#general-error').textContent()).toBe('');
    // One action: every attempt carried one key.
    expect(new Set((await postsOf(page)).map((call) => call.idempotencyKey)).size).toBe(1);
  });

  it("says an outage is the bank's, in both languages, and the unchanged form sent again keeps its Idempotency-Key", async () => {
    for (const language of ['en', 'ru'] as const) {
      const contractId = await offerContract();
      const page = await open(allowedPage, recordCalls);
      if (language === 'ru') await page.click('button[data-lang="ru"]');
      await page.locator('#reasons label', { hasText: reasonLabels(language)[0] }).waitFor();
      await fill(page, language === 'ru' ? { date: typedDay('2045-06-30', 'ru') } : {});
      // DynamoDB out of reach: the service itself answers 503, and the client's retries run out.
      dynamoDb.setMode('refuse');
      await page.click('#submit');
      await page.locator('#general-error .reference').waitFor({ timeout: 60_000 });
      const general = (await page.locator('#general-error').textContent()) ?? '';
      expect(general).toContain(
        language === 'ru'
          ? 'Мы не смогли подтвердить вашу заявку: сервис банка сейчас не отвечает. Дважды она создана не будет: попробуйте ещё раз через минуту.'
          : "We could not confirm your request: the bank's service is not answering right now. It will not be created twice: try again in a minute.",
      );
      expect(general).not.toMatch(/connection|соединение/i);
      expect(await page.locator('#result').isVisible()).toBe(false);
      expect(await tables.contractItems(contractId)).toHaveLength(0);

      dynamoDb.setMode('pass');
      await page.click('#submit');
      await page.locator('form[data-state="done"]').waitFor();
      const keys = new Set((await postsOf(page)).map((call) => call.idempotencyKey));
      expect(keys.size).toBe(1);
      expect(await itemsOf(contractId, 'REQUEST')).toHaveLength(1);
    }
  }, 150_000);

  it('shows a request made elsewhere meanwhile once, in words, with its number, when the create meets it (409)', async () => {
    const contractId = await offerContract();
    const page = await open(allowedPage, recordCalls);
    await fill(page);
    // Another tab makes a request on the contract after this page read the list.
    const other = await callHandler({ contractId, body: validBody(), headers: headersWithKey() });
    expect(other.status).toBe(201);
    const number = String(other.body['requestNumber']);
    await page.click('#submit');
    await page.locator('form[data-state="done"]').waitFor();
    expect(await page.locator('#notice').textContent()).toBe(
      `This contract already has a request in progress: ${number}. It is shown here; no new request was made.`,
    );
    expect(await page.locator('#result-number').textContent()).toBe(number);
    expect(await page.locator('#result-title').textContent()).toBe('A request on this contract is in progress');
    // Once, and without a support reference: nothing went wrong.
    const words = await page.evaluate('document.body.innerText');
    expect(String(words).split('already has a request in progress')).toHaveLength(2);
    expect(String(words)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(await page.locator('#contract-error').textContent()).toBe('');
    expect(await postsOf(page)).toHaveLength(1);
    expect(await itemsOf(contractId, 'REQUEST')).toHaveLength(1);
  });

  it('says the page could not load its data when the API is down as it loads, and loads it on Try again', async () => {
    await offerContract();
    proxy().down(true);
    const page = await open(
      allowedPage,
      async (p) => {
        await recordCalls(p);
        // The reasons an earlier test's page read may be in the browser's cache (kept an hour): this page asks the API.
        const cdp = await p.context().newCDPSession(p);
        await cdp.send('Network.enable');
        await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      },
      'loading',
    );
    const problem = page.locator('#load-problem');
    await problem.waitFor({ timeout: 60_000 });
    expect(await page.locator('#load-problem-text').textContent()).toBe(
      "The page could not load its data from the bank: the bank's service is not answering right now. Try again in a minute.",
    );
    expect(await page.locator('#general-error').textContent()).toBe('');
    expect(await page.locator('#submit').isDisabled()).toBe(true);
    proxy().down(false);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('form[data-state="ready"]').waitFor();
    expect(await problem.isHidden()).toBe(true);
    expect(await page.locator('input[name="reason"]').count()).toBe(REASON_CODES.length);
    expect(await postsOf(page)).toEqual([]);
  }, 90_000);

  it("says when a contract's list could not be read, and reads it on Try again", async () => {
    const first = await offerContract();
    const second = await newContract(tables);
    offered = [
      ...offered,
      pageContract({ contractId: second, status: 'ACTIVE' }, demoContractDisplay(DEMO_CUSTOMERS.anna.contracts.withEndDate)),
    ];
    await callHandler({ contractId: second, body: validBody(), headers: headersWithKey() });
    const page = await open(allowedPage);
    expect(first).not.toBe(second);
    proxy().loseAnswers(1_000, 'GET');
    await page.locator(`label.contract[data-contract-id="${second}"]`).click();
    await page.locator('#requests-failed').waitFor({ timeout: 60_000 });
    expect(await page.locator('#requests-failed p').textContent()).toBe('Your requests on this contract could not be loaded.');
    expect(await page.locator('#requests-empty').isHidden()).toBe(true);
    proxy().loseAnswers(0);
    await page.locator('#requests-retry').click();
    await page.locator('#requests-list li').first().waitFor();
    expect(await page.locator('#requests-failed').isHidden()).toBe(true);
  }, 90_000);

  it('does not submit a half-filled form on Enter: it goes on to the next field to fill', async () => {
    await offerContract();
    const page = await open(allowedPage, recordCalls);
    await page.fill('#bik', '');
    await page.fill('#bik', DEMO_BANK_DETAILS.bik);
    await page.press('#bik', 'Enter');
    // Nothing is said of the fields still empty: the focus goes on to the next of them.
    expect(await page.evaluate('document.activeElement?.id')).toBe('account');
    expect(await page.locator('#general-error').textContent()).toBe('');
    expect(await page.locator('#account-error').textContent()).toBe('');
    await page.fill('#account', DEMO_BANK_DETAILS.accountNumber);
    await page.fill('#recipient', DEMO_BANK_DETAILS.recipientName);
    await page.press('#recipient', 'Enter');
    // After the last field, round to the first one still to fill: the reason (its first radio), then the date.
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('reason');
    expect(await page.locator('#reason-error').textContent()).toBe('');
    // The keyboard chooses among the reasons with the arrows, as in any radio group, and Enter goes on.
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('input[name="reason"]:checked').getAttribute('value')).toBe('FINANCIAL_HARDSHIP');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('date');
    expect(await postsOf(page)).toEqual([]);
  });

  it('asks, next to the comment, for no health, family or other private details, in either language, and a screen reader hears it with the field', async () => {
    await offerContract();
    const page = await open(allowedPage);
    const hint = async () => {
      const ids = (await page.getAttribute('#comment', 'aria-describedby'))?.split(' ') ?? [];
      const texts = await Promise.all(ids.map((id) => page.locator(`#${id}`).textContent()));
      return texts.map((text) => text?.trim());
    };
    expect(await hint()).toContain(TEXTS.en.commentHint);
    await page.click('button[data-lang="ru"]');
    await page.locator('#reasons label', { hasText: 'Переезд' }).waitFor();
    expect(await hint()).toContain(TEXTS.ru.commentHint);
    expect(await page.locator('#comment-hint').isVisible()).toBe(true);
  });

  it('starts with no reason and no date chosen, and the comment loses "(optional)" when the reason needs one', async () => {
    await offerContract();
    const page = await open(allowedPage);
    expect(await page.locator('input[name="reason"]:checked').count()).toBe(0);
    expect(await page.inputValue('#date')).toBe('');
    expect(await page.locator('#bank-offered').isVisible()).toBe(false);
    expect(await page.locator('#comment-label').textContent()).toBe('Comment (optional)');
    await chooseReason(page, 'OTHER');
    expect(await page.locator('#comment-label').textContent()).toBe('Comment');
    await page.click('button[data-lang="ru"]');
    await page.locator('#reasons label', { hasText: 'Переезд' }).waitFor();
    expect(await page.locator('#comment-label').textContent()).toBe('Комментарий');
    await chooseReason(page, 'RELOCATION');
    expect(await page.locator('#comment-label').textContent()).toBe('Комментарий (необязательно)');
    // 31.02.2027 is written as a date, but there is no such day: said so, not as a wrong format.
    await page.fill('#date', '31.02.2027');
    await page.press('#date', 'Tab');
    expect(await page.locator('#date-error').textContent()).toMatch(/^Такого дня нет: проверьте день и месяц/);
  });

  it("takes today from the service's business date, not from the device: east of the bank after its midnight it is still the bank's day", async () => {
    await offerContract();
    // 16:30 UTC: evening at the bank (Moscow by default), the next morning on a device at UTC+14.
    const instant = new Date('2026-11-21T16:30:00Z');
    const deviceZone = 'Pacific/Kiritimati';
    const today = businessToday(localBusinessTimeZone(), instant);
    const devicesDay = businessToday(deviceZone, instant);
    expect(devicesDay > today).toBe(true);
    const page = await open(allowedPage, async (tab) => {
      await tab.clock.setFixedTime(instant);
      await (await tab.context().newCDPSession(tab)).send('Emulation.setTimezoneOverride', { timezoneId: deviceZone });
    });
    expect(await page.evaluate('new Date().getDate()')).toBe(Number(devicesDay.slice(8)));
    await page.fill('#date', typedDay(today, 'en'));
    await page.press('#date', 'Tab');
    expect(await page.locator('#date-error').textContent()).toBe('');
    const yesterday = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);
    await page.fill('#date', typedDay(yesterday, 'en'));
    await page.press('#date', 'Tab');
    const shown = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
      Date.parse(today),
    );
    expect(await page.locator('#date-error').textContent()).toBe(`Choose today (${shown}) or a later date.`);
  });

  it('offers the reasons the API lists, in the language chosen', async () => {
    const asked = proxy().forwarded('GET');
    const page = await open(allowedPage);
    const labels = () => page.locator('#reasons label').allTextContents();
    expect(await labels()).toEqual(reasonLabels('en'));
    await page.click('button[data-lang="ru"]');
    await page.locator('#reasons label', { hasText: reasonLabels('ru')[0] }).waitFor();
    expect(await labels()).toEqual(reasonLabels('ru'));
    // Read from GET /api/v1/termination-reasons; the English list may come from the browser's
    // cache (an earlier test's page asked for it: the answer may be kept an hour), the Russian one not.
    expect(proxy().forwarded('GET') - asked).toBeGreaterThanOrEqual(1);
  });

  it("shows a field's error beside its field, in the language chosen, before any call (24.4)", async () => {
    const contractId = await offerContract();
    const page = await open(allowedPage, recordCalls);
    await page.click('button[data-lang="ru"]');
    expect(await page.locator('label[for="bik"]').textContent()).toBe('БИК');
    await fill(page, { bik: '123' });
    await page.click('#submit');
    const shown = await settled(page);

    expect(await page.locator('#bik-error').textContent()).toBe('В БИК 9 цифр, например 044525225, а введено 3.');
    expect(await page.locator('#bik').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement?.id')).toBe('bik');
    for (const other of ['reason', 'date', 'account', 'recipient', 'comment'])
      expect(await page.locator(`#${other}-error`).textContent()).toBe('');
    expect(await page.evaluate("[...document.querySelectorAll('#termination-form [aria-invalid]')].map((marked) => marked.id)")).toEqual([
      'bik',
    ]);
    expect(shown.general).toBe('Некоторые поля нужно исправить: подсказки рядом с ними.');
    expect(shown.resultShown).toBe(false);
    expect(await postsOf(page)).toEqual([]);
    expect(await tables.contractItems(contractId)).toHaveLength(0);
  });

  it("catches a letter as it is typed and a length on leaving the field, in the customer's words with an example (24.4)", async () => {
    await offerContract();
    const page = await open(allowedPage, recordCalls);
    const bik = page.locator('#bik');
    await bik.fill('');
    await bik.pressSequentially('04452a');
    // Said while the customer is still typing in the field.
    expect(await page.evaluate('document.activeElement?.id')).toBe('bik');
    expect(await page.locator('#bik-error').textContent()).toBe('Use digits only: the BIK is 9 digits, e.g. 044525225.');
    expect(await bik.getAttribute('aria-invalid')).toBe('true');
    await bik.press('Backspace');
    expect(await page.locator('#bik-error').textContent()).toBe('The BIK is 9 digits, e.g. 044525225; you have entered 5.');
    await bik.pressSequentially('2522');
    expect(await page.locator('#bik-error').textContent()).toBe('');
    expect(await bik.getAttribute('aria-invalid')).toBeNull();

    // A length is said when the customer leaves the field, not while they type.
    const account = page.locator('#account');
    await account.fill(DEMO_BANK_DETAILS.accountNumber.slice(0, 19));
    expect(await page.locator('#account-error').textContent()).toBe('');
    await account.press('Tab');
    expect(await page.locator('#account-error').textContent()).toBe(
      'The account number is 20 digits, e.g. 40817810700000000001; you have entered 19.',
    );
    await page.fill('#recipient', '  ');
    await chooseReason(page, FORM.reason);
    await page.fill('#date', FORM.date);
    await page.click('#submit');
    await page.locator('#general-error p').waitFor();
    expect(await page.locator('#recipient-error').textContent()).toBe("Enter the recipient's name, e.g. Anna Ivanova.");
    expect(await page.evaluate('document.activeElement?.id')).toBe('account');
    expect(await postsOf(page)).toEqual([]);
  });

  it("shows the API's answer where it differs from the page's checks, its dates as the customer reads them (24.4)", async () => {
    // The table says the contract ends on DEMO_END_DATE; the page was not told, so only the API knows.
    const contractId = await offerContract({ endDate: DEMO_END_DATE });
    const page = await open(allowedPage, recordCalls);
    await page.click('button[data-lang="ru"]');
    await fill(page, { date: typedDay('2046-01-15', 'ru') });
    await page.click('#submit');
    const shown = await settled(page);
    expect(await postsOf(page)).toHaveLength(1);
    // One message: the API's words beside the field, the general area only pointing at it.
    expect(shown.general).toContain('Некоторые поля нужно исправить: подсказки рядом с ними.');
    expect(shown.general).not.toContain('Желаемая дата расторжения позже даты окончания договора.');
    expect(await page.locator('#date-error').textContent()).toBe('Не может быть позже окончания договора (31.12.2045)');
    expect(await page.locator('#date').getAttribute('aria-invalid')).toBe('true');
    expect(await tables.contractItems(contractId)).toHaveLength(0);
  });

  it("words the API's refusal of an account that does not go with the BIK for the customer (24.4)", async () => {
    const contractId = await offerContract();
    const page = await open(allowedPage, recordCalls);
    await fill(page, { account: '40817810700000000002' });
    await page.click('#submit');
    const shown = await settled(page);
    expect(await postsOf(page)).toHaveLength(1);
    // One message: the page's words beside the field, not the API's as well.
    expect(shown.general).toContain('Some fields need correcting: see the messages beside them.');
    expect(shown.general).not.toContain('The account number does not match the BIK.');
    expect(await page.locator('#account-error').textContent()).toBe(
      'This account number does not go with the BIK: check both against your bank details.',
    );
    expect(await page.evaluate('document.activeElement?.id')).toBe('account');
    expect(await tables.contractItems(contractId)).toHaveLength(0);
  });

  it("offers the customer's uploaded documents by file name, and the request names the ones chosen", async () => {
    const contractId = await offerContract();
    const { passport, relocation } = DEMO_CUSTOMERS.anna.documents;
    offeredDocuments = [
      { documentId: passport, fileName: 'passport-scan.pdf' },
      { documentId: relocation, fileName: 'new-employment-contract.pdf' },
    ];
    const page = await open(allowedPage, recordCalls);
    expect(await page.locator('#documents-field legend').textContent()).toBe('Documents (optional)');
    expect(await page.locator('#documents label').allTextContents()).toEqual(['passport-scan.pdf', 'new-employment-contract.pdf']);
    await fill(page);
    await page.getByLabel('new-employment-contract.pdf').check();
    await page.click('#submit');
    expect(await settled(page)).toMatchObject({ resultShown: true, general: '' });
    const [request] = await itemsOf(contractId, 'REQUEST');
    expect(request?.['documentIds']).toEqual([relocation]);
    expect(await page.locator('input[name="document"]').first().isDisabled()).toBe(true);
  });

  it('names beside the documents each one that can no longer be attached, and creates nothing', async () => {
    const contractId = await offerContract();
    const { passport, pending } = DEMO_CUSTOMERS.anna.documents;
    // The personal account's list was read before the documents service took one back (still being checked).
    offeredDocuments = [
      { documentId: passport, fileName: 'passport-scan.pdf' },
      { documentId: pending, fileName: 'bank-statement.pdf' },
    ];
    const page = await open(allowedPage, recordCalls);
    await fill(page);
    await page.getByLabel('passport-scan.pdf').check();
    await page.getByLabel('bank-statement.pdf').check();
    await page.click('#submit');
    const shown = await settled(page);
    expect(await postsOf(page)).toHaveLength(1);
    expect(shown.general).toContain('Some fields need correcting: see the messages beside them.');
    expect(shown.general).not.toContain('Some of the documents cannot be attached');
    expect(await page.locator('#documents-error').textContent()).toBe(
      'bank-statement.pdf: cannot be attached any more. It may have been removed, or it is still being checked: choose again.',
    );
    // The document the API refused is offered no more; the rest are, marked, and the focus is on them.
    expect(await page.locator('#documents label').allTextContents()).toEqual(['passport-scan.pdf']);
    expect(await page.getByLabel('passport-scan.pdf').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('document');
    expect(await tables.contractItems(contractId)).toHaveLength(0);
  });

  it('says from when a new request is possible once a create meets the limit reached elsewhere, and sends it once, never again', async () => {
    const contractId = await offerContract();
    // No timed refresh: the page knows the list as it read it before the limit was reached.
    refreshSeconds = 3600;
    const page = await open(allowedPage, recordCalls);
    await page.click('button[data-lang="ru"]');
    await page.locator('#reasons label', { hasText: 'Переезд' }).waitFor();
    // The new language's reads (the reasons, the list) are done before the limit is reached elsewhere.
    await page.waitForLoadState('networkidle');
    // The limit is reached in the app meanwhile, after the page read the list.
    for (let i = 0; i < 5; i++) {
      const made = await callHandler({ contractId, customerId: anna, body: validBody(), headers: headersWithKey() });
      expect(made.status).toBe(201);
      const withdrawn = await callHandler(withdrawalOf({ contractId, requestId: String(made.body['requestId']) }, anna));
      expect(withdrawn.status).toBe(200);
    }
    const posts = proxy().forwarded('POST');
    await fill(page, { date: typedDay('2045-06-30', 'ru') });
    await page.click('#submit');
    await page.locator('form[data-state="blocked"]').waitFor();
    expect(await postsOf(page)).toHaveLength(1);
    expect(proxy().forwarded('POST') - posts).toBe(1);
    expect(await page.locator('form').getAttribute('data-attempts')).toBe('1');
    // One message, the page's, instead of the form (which can no longer be sent), with the focus on it.
    expect(await page.locator('#general-error').textContent()).toBe('');
    expect(await page.locator('#submit').isVisible()).toBe(false);
    expect(await page.evaluate('document.activeElement?.id')).toBe('contract-note');
    expect(await page.locator('#contract-note').textContent()).toMatch(
      // The day and time in the bank's business time zone, named: "26 декабря 2026 г. в 17:11 Москва, стандартное время".
      /^По этому договору вы подали столько заявок, сколько банк сейчас принимает\. Новую заявку можно подать с \d{1,2} [а-я]+ \d{4} г\.,? [а-я ]*\d{2}:\d{2} Москва, стандартное время\.$/,
    );
    expect(await itemsOf(contractId, 'REQUEST')).toHaveLength(5);
  }, 60_000);

  it('cannot read the API from an origin not on the list: the browser stops it at the preflight', async () => {
    const contractId = await offerContract();
    const logged: string[] = [];
    const failed: string[] = [];
    const preflights = proxy().forwarded('OPTIONS');
    const [gets, posts] = [proxy().forwarded('GET'), proxy().forwarded('POST')];
    const page = await open(
      strangerPage,
      (p) => {
        p.on('requestfailed', (request) => failed.push(`${request.method()} ${request.url()}`));
        p.on('console', (message) => logged.push(message.text()));
      },
      'loading',
    );
    // The page's first call, the reasons of the form, is stopped: it says it could not load its data.
    await page.locator('#load-problem', { hasText: 'The page could not load its data from the bank' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('input[name="reason"]').count()).toBe(0);
    // The preflight reached the API and was refused; no GET or POST was ever sent.
    expect(proxy().forwarded('OPTIONS') - preflights).toBeGreaterThanOrEqual(1);
    expect(proxy().forwarded('GET') - gets).toBe(0);
    expect(proxy().forwarded('POST') - posts).toBe(0);
    expect(failed.some((call) => call.startsWith('GET ') && call.includes('/api/v1/termination-reasons'))).toBe(true);
    expect(logged.some((line) => line.includes(`from origin '${strangerPage?.origin}' has been blocked by CORS policy`))).toBe(true);
    expect(await tables.contractItems(contractId)).toHaveLength(0);
  });
});

describe('an outage and the recovery from it, on a page left open', () => {
  it('says the list could not be read again, never "no requests", while every refresh fails, and shows the list once a read succeeds', async () => {
    await offerContract();
    refreshSeconds = 1;
    const page = await open(allowedPage);
    await page.locator('#requests-empty').waitFor();
    // The bank out of reach: every timed refresh of the list fails.
    proxy().down(true);
    await page.locator('#requests-stale').waitFor({ timeout: 30_000 });
    expect(await page.locator('#requests-stale').textContent()).toBe(TEXTS.en.requestsStale);
    expect(await page.locator('#requests-empty').isHidden()).toBe(true);
    expect(String(await page.evaluate('document.body.innerText'))).not.toContain(TEXTS.en.requestsEmpty);
    proxy().down(false);
    await page.locator('#requests-stale').waitFor({ state: 'hidden', timeout: 30_000 });
    expect(await page.locator('#requests-empty').textContent()).toBe(TEXTS.en.requestsEmpty);
    expect(await page.locator('#requests-empty').isVisible()).toBe(true);
  }, 90_000);

  it('says a create that never reached the bank could not be confirmed, with no support reference, and the words go once a call succeeds', async () => {
    const contractId = await offerContract();
    refreshSeconds = 1;
    const page = await open(allowedPage, recordCalls);
    await fill(page);
    const posts = proxy().forwarded('POST');
    // Every connection cut before it reaches the API: the bank never heard of the action, so it has no reference to give.
    proxy().down(true);
    await page.click('#submit');
    await page.locator('#general-error p').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('#general-error').textContent()).toBe(TEXTS.en.unreachable);
    expect(await page.locator('#general-error .reference').count()).toBe(0);
    expect(String(await page.evaluate('document.body.innerText'))).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(proxy().forwarded('POST') - posts).toBe(0);
    expect(await postsOf(page)).not.toHaveLength(0);
    // The list, read again at once and on every refresh, could not be read either.
    await page.locator('#requests-stale').waitFor({ timeout: 30_000 });

    // The bank is back: the next timed read of the list succeeds, and the outage's words go with it.
    proxy().down(false);
    await page.locator('#general-error p').first().waitFor({ state: 'detached', timeout: 30_000 });
    expect(await page.locator('#general-error').textContent()).toBe('');
    expect(await page.locator('#requests-stale').isHidden()).toBe(true);
    expect(await page.getAttribute('form', 'data-state')).toBe('ready');
    expect(await tables.contractItems(contractId)).toHaveLength(0);
  }, 120_000);
});
