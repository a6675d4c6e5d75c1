import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS, DEMO_END_DATE, demoContractDisplay } from '../../scripts/local/demo-data';
import { businessToday } from '../../lib/termination/business-date';
import { localBusinessTimeZone, pageContract, type PageContract } from '../../scripts/local/page-server';
import { textsFor } from '../../lib/http/texts';
import {
  ENDING_DISPLAYS,
  PAGE_STATES,
  REJECTION_REASONS,
  screenshotDir,
  screenshotPath,
  SCREENSHOT_VIEWS,
  seedEndings,
  seedRequests,
  showState,
  typedDay,
  WIDTHS,
  type Language,
  type PageState,
  type StateContracts,
} from '../../scripts/screenshot';
import { audit, type Violation } from '../support/axe';
import { newContract } from '../support/contracts';
import { useCustomerPage } from '../support/customer-page';
import { jsonObject } from '../support/json';
import { postsOf, recordCalls } from '../support/page-calls';

/*
 * The demo page as a customer reads it, in headless Chromium against the local
 * stack, at a desktop's and a phone's width, in English and Russian: contracts as the customer
 * knows them, a closed one offered as not available, dates and words in the customer's language,
 * a rejection's reason once, real buttons, request numbers whole, and an axe-core audit of every
 * state. Each test offers the page contracts of its own: a fresh one, one with a history of
 * requests (rejected, withdrawn, submitted) and a closed one.
 */

const { anna } = DEMO_CUSTOMERS;
const LANGUAGES: Language[] = ['en', 'ru'];
let offered: PageContract[] = [];
// No timed refresh of the list during a test: what is on show changes only by the test's hand.
const stack = useCustomerPage(() => ({ customerId: anna.customerId, contracts: offered, refreshSeconds: 3600 }));

/**
 * Contracts of Anna's for one test, shown as her demo credit card (fresh), mortgage (with three
 * requests, the rejection's reason in `language`) and closed cash loan, and offered in that order.
 */
async function contracts(language: Language): Promise<StateContracts> {
  const { lifecycle } = stack;
  const fresh = await newContract(lifecycle.tables);
  const listed = await newContract(lifecycle.tables, { endDate: DEMO_END_DATE });
  const closed = await newContract(lifecycle.tables, { status: 'CLOSED' });
  const completed = await newContract(lifecycle.tables);
  const limited = await newContract(lifecycle.tables);
  const api = { url: stack.http.offline.url, token: stack.token(anna.customerId) };
  await seedRequests(api, listed, (event) => lifecycle.decide(event), REJECTION_REASONS[language]);
  await seedEndings(api, { completed, limited }, (event) => lifecycle.decide(event));
  offered = [
    pageContract({ contractId: fresh, status: 'ACTIVE' }, demoContractDisplay(anna.contracts.active)),
    pageContract({ contractId: listed, status: 'ACTIVE', endDate: DEMO_END_DATE }, demoContractDisplay(anna.contracts.withEndDate)),
    pageContract({ contractId: closed, status: 'CLOSED' }, demoContractDisplay(anna.contracts.closed)),
    pageContract({ contractId: completed, status: 'ACTIVE' }, ENDING_DISPLAYS.completed),
    pageContract({ contractId: limited, status: 'ACTIVE' }, ENDING_DISPLAYS.limited),
  ];
  return { fresh, listed, closed, completed, limited };
}

/** A string of the page's own evaluated in it, its answer checked to be a list of strings. */
async function strings(page: Page, script: string): Promise<string[]> {
  const value: unknown = await page.evaluate(script);
  if (!Array.isArray(value)) throw new Error(`not a list: ${JSON.stringify(value)}`);
  return value.map(String);
}

/** Everything the page says to a person: the text on show, the accessible names given apart from it, and the title. */
const wordsOnShow = (page: Page) =>
  strings(
    page,
    `[document.title, document.body.innerText, ...[...document.querySelectorAll('[aria-label]')].map((e) => e.getAttribute('aria-label'))]`,
  );

/** A day from today as the service counts it (its business date, which the page takes too) as YYYY-MM-DD. */
function dayFromToday(days: number): string {
  const date = new Date(Date.parse(businessToday(localBusinessTimeZone())));
  return new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** Today where the browser is (the machine's and the browser's time zone are the same), as YYYY-MM-DD: a request's day as shown. */
function localToday(): string {
  const date = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Each contract card as shown: its lines, and whether any of its text runs past the card or the window. */
const CARDS = `[...document.querySelectorAll('label.contract')].map((card) => {
  const parts = [...card.querySelectorAll('.contract-name, .contract-state, .contract-why')];
  const cut = parts.some((part) => part.scrollWidth > part.clientWidth) || card.getBoundingClientRect().right > document.documentElement.clientWidth;
  return JSON.stringify({
    name: card.querySelector('.contract-name')?.firstChild?.textContent ?? '',
    number: card.querySelector('.contract-number')?.textContent ?? '',
    state: card.querySelector('.contract-state')?.textContent ?? '',
    why: card.querySelector('.contract-why')?.textContent ?? '',
    cut,
  });
})`;

const EXPECTED_CARDS: Record<Language, { name: string; number: string; state: string; why: string }[]> = {
  en: [
    { name: 'Credit card', number: '•• 4821', state: 'Active', why: '' },
    { name: 'Mortgage', number: '•• 7730', state: 'Active until 31 Dec 2045', why: '' },
    { name: 'Cash loan', number: '•• 1964', state: 'Closed', why: 'Not available: the contract is already closed.' },
    { name: 'Deposit', number: '•• 2290', state: 'Active', why: '' },
    { name: 'Savings account', number: '•• 6142', state: 'Active', why: '' },
  ],
  ru: [
    { name: 'Кредитная карта', number: '•• 4821', state: 'Действует', why: '' },
    { name: 'Ипотека', number: '•• 7730', state: 'Действует до 31.12.2045', why: '' },
    { name: 'Потребительский кредит', number: '•• 1964', state: 'Закрыт', why: 'Недоступен: договор уже закрыт.' },
    { name: 'Вклад', number: '•• 2290', state: 'Действует', why: '' },
    { name: 'Накопительный счёт', number: '•• 6142', state: 'Действует', why: '' },
  ],
};

/** What each step says, in each language: the words that tell the customer where they are. */
const STEP_WORDS: Record<PageState, Record<Language, string[]>> = {
  empty: { en: ['No requests on this contract yet.'], ru: ['По этому договору заявок пока нет.'] },
  errors: {
    en: ['Some fields need correcting', 'Choose the reason from the list.'],
    ru: ['Некоторые поля нужно исправить', 'Выберите причину из списка.'],
  },
  refused: { en: ['This account number does not go with the BIK'], ru: ['Номер счёта не подходит к этому БИК'] },
  success: { en: ['Request submitted', 'Status\nSubmitted'], ru: ['Заявка принята', 'Статус\nПодана'] },
  withdrawn: {
    en: ['is withdrawn. You can make a new request on this contract.', 'Status: Withdrawn'],
    ru: ['отозвана. По этому договору можно подать новую заявку.', 'Статус: Отозвана'],
  },
  held: {
    en: ['A request on this contract is in progress', "The bank's reason, in its own words:"],
    ru: ['По этому договору уже есть заявка в работе', 'Причина словами банка:'],
  },
  'withdraw-dialog': { en: ['The bank will stop handling it.'], ru: ['Банк прекратит её рассмотрение.'] },
  unavailable: { en: ['This contract cannot be terminated'], ru: ['Этот договор нельзя расторгнуть'] },
  outage: { en: ["the bank's service is not answering right now"], ru: ['сервис банка сейчас не отвечает'] },
  completed: {
    en: ['it is now terminating this contract, so no new request is needed', 'Status: Completed'],
    ru: ['сейчас расторгает договор, поэтому новая заявка не нужна', 'Статус: Исполнена'],
  },
  limit: {
    en: ['You can make a new one from', 'Moscow Standard Time', 'Status: Withdrawn'],
    ru: ['Новую заявку можно подать с', 'Москва, стандартное время', 'Статус: Отозвана'],
  },
};

describe('the page as a customer reads it', () => {
  it('shows each contract by product and masked number, its status whole at 1280 and 390 px, in both languages (24.1)', async () => {
    const ids = await contracts('en');
    for (const language of LANGUAGES) {
      for (const width of WIDTHS) {
        const page = await stack.open({ language, width });
        const cards = (await strings(page, CARDS)).map((card) => jsonObject(JSON.parse(card)));
        expect(cards, `${language} at ${width} px`).toEqual(EXPECTED_CARDS[language].map((card) => ({ ...card, cut: false })));
        // The page scrolls only up and down, and no contract is shown by its id.
        expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
        const words = (await wordsOnShow(page)).join('\n');
        for (const contractId of Object.values(ids)) expect(words).not.toContain(contractId);
      }
    }
  }, 120_000);

  it('shows every reason of the form whole at 390 px in Russian: each one laid out on the page, inside the window, nothing cut', async () => {
    await contracts('ru');
    const page = await stack.open({ language: 'ru', width: 390 });
    const labels = Object.values(textsFor('ru').reasons);
    // Each reason's words as laid out: the boxes of its text, and whether the element that holds it, or one around it, cuts it.
    const laidOut = await strings(
      page,
      `${JSON.stringify(labels)}.map((label) => {
        const width = document.documentElement.clientWidth;
        const holders = [...document.querySelectorAll('#termination-form *')].filter(
          (element) => [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.data.trim() === label),
        );
        const shown = holders.filter((element) => {
          const range = document.createRange();
          range.selectNodeContents(element);
          const boxes = [...range.getClientRects()].filter((box) => box.width > 0 && box.height > 0);
          if (boxes.length === 0 || boxes.some((box) => box.left < 0 || box.right > width)) return false;
          for (let around = element; around && around !== document.body; around = around.parentElement) {
            const style = getComputedStyle(around);
            if (style.visibility === 'hidden' || style.display === 'none') return false;
            if (around.scrollWidth > around.clientWidth && style.overflowX !== 'visible') return false;
            if (around.scrollHeight > around.clientHeight && style.overflowY !== 'visible' && around === element) return false;
            const frame = around.getBoundingClientRect();
            if (boxes.some((box) => box.left < frame.left - 1 || box.right > frame.right + 1)) return false;
          }
          return true;
        });
        return JSON.stringify({ label, shown: shown.length });
      })`,
    );
    expect(laidOut.map((line) => jsonObject(JSON.parse(line)))).toEqual(labels.map((label) => ({ label, shown: 1 })));
    expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
  });

  it('offers a closed contract as not available and says why; chosen, it locks the form, so nothing is sent (24.2)', async () => {
    const { closed } = await contracts('en');
    const page = await stack.open({ language: 'en', width: 390, prepare: recordCalls });
    const card = page.locator(`label.contract[data-contract-id="${closed}"]`);
    expect(await card.locator('.contract-why').textContent()).toBe('Not available: the contract is already closed.');
    await card.click();
    await page.locator('form[data-state="unavailable"]').waitFor();
    expect(await page.locator('#contract-note').textContent()).toBe(
      'This contract cannot be terminated: it is not active. Its earlier requests, if any, are listed below.',
    );
    for (const control of ['#date', '#bik', '#account', '#recipient', '#comment', '#submit']) {
      expect(await page.locator(control).isDisabled(), control).toBe(true);
    }
    expect(await page.locator('input[name="reason"]').count()).toBe(6);
    expect(await page.locator('input[name="reason"]:enabled').count()).toBe(0);
    // The closed contract's (empty) history is read: the page has done all the choice makes it do.
    await page.locator('#requests-empty').waitFor();
    expect(await postsOf(page)).toEqual([]);
    // Another contract makes the form usable again.
    await page.locator('label.contract').first().click();
    await page.locator('form[data-state="ready"]').waitFor();
    expect(await page.locator('#contract-note').isHidden()).toBe(true);
  });

  it('writes dates as the customer reads them: 31.12.2045 in Russian, today in an error too, never YYYY-MM-DD (24.5)', async () => {
    const { listed } = await contracts('ru');
    const page = await stack.open({ language: 'ru', width: 390 });
    const card = page.locator(`label.contract[data-contract-id="${listed}"]`);
    expect(await card.locator('.contract-state').textContent()).toBe('Действует до 31.12.2045');
    // The date is the customer's to choose: not filled in; the hint gives an example.
    expect(await page.inputValue('#date')).toBe('');
    expect(await page.locator('#date-hint').textContent()).toBe(`День.месяц.год, например ${typedDay(dayFromToday(30), 'ru')}`);
    await page.fill('#date', typedDay(dayFromToday(-1), 'ru'));
    await page.press('#date', 'Tab');
    expect(await page.locator('#date-error').textContent()).toBe(
      `Выберите сегодняшнюю дату (${typedDay(dayFromToday(0), 'ru')}) или более позднюю.`,
    );
    await card.click();
    await page.locator('#requests-list li').nth(2).waitFor();
    const sent = await page.locator('#requests-list .sent').allTextContents();
    expect(sent).toEqual(Array.from({ length: 3 }, () => `Отправлена ${typedDay(localToday(), 'ru')}`));
    expect((await wordsOnShow(page)).join('\n')).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('says "заявка" for a request everywhere on the Russian page, in every state (24.5)', async () => {
    const ids = await contracts('ru');
    const said: string[] = [];
    for (const state of PAGE_STATES) {
      const page = await stack.open({ language: 'ru', width: 390 });
      await showState(page, state, ids);
      said.push(...(await wordsOnShow(page)));
    }
    const words = said.join('\n');
    expect(words).toMatch(/заявк/i);
    expect(words.match(/заявлени\p{L}*/giu) ?? []).toEqual([]);
  }, 180_000);

  it("shows a rejected request's reason once, as the bank's own words in the language it wrote them, marked as such (24.5)", async () => {
    const ids = await contracts('ru');
    const page = await stack.open({ language: 'en', width: 1280 });
    await showState(page, 'held', ids);
    const rejected = page.locator('#requests-list li[data-status="REJECTED"]');
    const text = (await rejected.innerText()).replace(/\s+/g, ' ');
    expect(text.split(REJECTION_REASONS.ru)).toHaveLength(2);
    expect(await rejected.locator('.reason-label').textContent()).toBe("The bank's reason, in its own words:");
    const words = rejected.locator('q.bank-words');
    expect(await words.textContent()).toBe(REJECTION_REASONS.ru);
    expect(await words.getAttribute('lang')).toBe('ru');
  });

  it('offers Withdraw as a real button, styled as the page styles its buttons and big enough to tap (24.5)', async () => {
    const ids = await contracts('en');
    const page = await stack.open({ language: 'en', width: 390 });
    await showState(page, 'held', ids);
    const button = page.getByRole('button', { name: /^Withdraw request / });
    expect(await button.count()).toBe(1);
    const style = await strings(
      page,
      `(() => { const s = getComputedStyle(document.querySelector('button.withdraw'));
        return [s.color, s.borderTopColor, s.borderTopStyle, s.borderTopLeftRadius, s.cursor, s.fontWeight]; })()`,
    );
    expect(style).toEqual(['rgb(31, 95, 191)', 'rgb(31, 95, 191)', 'solid', '4px', 'pointer', '600']);
    const box = await button.boundingBox();
    expect(box?.height).toBeGreaterThanOrEqual(44);
    expect(box?.width).toBeGreaterThanOrEqual(44);
    // A button: the keyboard presses it.
    await button.focus();
    await page.keyboard.press('Space');
    await page.locator('#withdraw-dialog[open]').waitFor();
  });

  it('never breaks a request number at its hyphen, at any width from 320 px up, after a submit and in the note on a completed request (24.5)', async () => {
    const broken: string[] = [];
    for (const [state, language] of [
      ['success', 'en'],
      ['completed', 'ru'],
    ] as const) {
      const ids = await contracts(language);
      const page = await stack.open({ language, width: 390 });
      await showState(page, state, ids);
      const number = (await page.locator('#requests-list li .number').first().textContent()) ?? '';
      expect(number).toMatch(/^TR-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
      // Every place the number is written, and on how many lines each one is laid out.
      const layout = `(() => {
        const lines = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let at = node.data.indexOf(${JSON.stringify(number)}); at >= 0; at = node.data.indexOf(${JSON.stringify(number)}, at + 1)) {
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + ${number.length});
            lines.push(new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size);
          }
        }
        return lines;
      })()`;
      let places = 0;
      for (let width = 320; width <= 1280; width += width < 640 ? 4 : 160) {
        await page.setViewportSize({ width, height: 900 });
        const lines = (await strings(page, layout)).map(Number);
        places = Math.max(places, lines.length);
        if (lines.some((count) => count !== 1)) broken.push(`${state} at ${width} px: ${lines.join(', ')}`);
      }
      // The panel's number and message, the list's title and "All my requests"; or the note and the list's title.
      expect(places, state).toBeGreaterThanOrEqual(state === 'success' ? 3 : 2);
    }
    expect(broken).toEqual([]);
  }, 120_000);

  it('shows each step in the words of its language and passes an axe-core audit, in both languages, at 1280 and 390 px (24.6)', async () => {
    const audited: { state: string; language: Language; width: number; violations: Violation[]; missing: string[] }[] = [];
    for (const language of LANGUAGES) {
      for (const width of WIDTHS) {
        const ids = await contracts(language);
        for (const state of PAGE_STATES) {
          const page = await stack.open({ language, width });
          await showState(page, state, ids);
          const text = String(await page.evaluate('document.body.innerText'));
          const missing = STEP_WORDS[state][language].filter((words) => !text.includes(words));
          audited.push({ state, language, width, violations: await audit(page), missing });
          await page.close();
        }
      }
    }
    expect(audited).toHaveLength(PAGE_STATES.length * LANGUAGES.length * WIDTHS.length);
    const found = audited.filter(({ violations, missing }) => violations.length > 0 || missing.length > 0);
    expect(found).toEqual([]);
  }, 480_000);

  it('npm run screenshot changes no tracked file unless asked: its pictures go to a folder git ignores, docs/images only with --docs', () => {
    expect(screenshotDir([])).toBe('.local/screenshots');
    expect(screenshotDir(['--docs'])).toBe('docs/images');
    const ignored = spawnSync('git', ['check-ignore', '-q', screenshotPath('empty', { language: 'en', width: 1280 }, screenshotDir([]))]);
    expect(ignored.status).toBe(0);
  });

  it('has a picture of every state in docs/images, each shown in docs/local-development.md (npm run screenshot -- --docs makes them)', () => {
    const doc = readFileSync('docs/local-development.md', 'utf8');
    for (const state of PAGE_STATES) {
      for (const view of SCREENSHOT_VIEWS) {
        const path = screenshotPath(state, view);
        expect(existsSync(path), path).toBe(true);
        expect(doc).toContain(`(${path.replace(/^docs\//, '')})`);
      }
    }
  });
});
