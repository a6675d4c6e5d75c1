import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTerminationClient } from '../client/index';
import type { StatusDecisionDetail } from '../lib/api-model/event-schemas';
import { buildFunctions } from './build';
import { assertLambdaNode } from './lambda-node';
import {
  DEMO_BANK_DETAILS,
  DEMO_CONTRACTS,
  DEMO_CUSTOMERS,
  DEMO_DOCUMENTS,
  putContracts,
  putDocuments,
  readContracts,
} from './local/demo-data';
import { decisionEvent } from './local/decision-event';
import { assertJava, startDynamoDbLocal } from './local/dynamodb-local';
import { freePort } from './local/free-port';
import { startJwksServer } from './local/jwks-server';
import { startOffline } from './local/offline';
import { invokeOffline } from './local/offline-lambda';
import { demoPageConfig, pageContract, startPageServer, type PageConfig } from './local/page-server';
import { localDefaults, localServiceEnv } from './local/service-env';
import { makeSigningKey } from './local/signing-key';
import { createTables } from './local/tables';

/*
 * npm run screenshot: page-<state>-<language>-<width>.png, the demo page in each of its states
 * (PAGE_STATES), in English at 1280 px and in Russian at 390 px, into .local/screenshots/ (git
 * ignores it), or with --docs into docs/images/, the pictures the docs show; taken with headless
 * Chromium from Debian's package (driven by playwright-core) on a stack of its own: DynamoDB
 * Local, serverless offline and the page server, all on free ports. launchChromium, the states
 * and how the page is brought to each are also what the browser tests use (tests/browser/), so
 * the pictures show what the accessibility audit checks.
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

// ---- the page's states ---------------------------------------------------------------------

/** What a customer meets on the page, each shown and audited on its own. */
export const PAGE_STATES = [
  'empty',
  'errors',
  'refused',
  'success',
  'withdrawn',
  'held',
  'withdraw-dialog',
  'unavailable',
  'outage',
  'completed',
  'limit',
] as const;
export type PageState = (typeof PAGE_STATES)[number];

export type Language = 'en' | 'ru';
/** A desktop window and a phone's. */
export const WIDTHS = [1280, 390] as const;

/** The contracts the states are shown on: the page offers them in this order. */
export interface StateContracts {
  /** Active, with no request yet: the success state makes one, which the withdrawn state withdraws (the others make none). */
  fresh: string;
  /** With requests, one of them still withdrawable (seedRequests). */
  listed: string;
  /** Not active: offered as not available. */
  closed: string;
  /** Active, its request completed by the bank: the contracts service has not closed it yet (seedEndings). */
  completed: string;
  /** Active, with as many requests as the limit allows, each withdrawn (seedEndings). */
  limited: string;
}

/** How the page shows the contracts of the completed and limit states, which the demo data does not have. */
export const ENDING_DISPLAYS = {
  completed: { product: { en: 'Deposit', ru: 'Вклад' }, maskedNumber: '•• 2290' },
  limited: { product: { en: 'Savings account', ru: 'Накопительный счёт' }, maskedNumber: '•• 6142' },
};

/**
 * The page on its own tab, at a width, in a language, loaded (its first contract's form ready, or
 * that contract's request in progress shown instead); `prepare` runs before it loads.
 */
export async function openPage(
  context: BrowserContext,
  url: string,
  view: { language: Language; width: number },
  prepare?: (page: Page) => Promise<void>,
): Promise<Page> {
  const page = await context.newPage();
  await prepare?.(page);
  await page.setViewportSize({ width: view.width, height: 900 });
  await page.goto(url);
  await page.locator('form:is([data-state="ready"], [data-state="done"])').waitFor();
  // "All my requests" read too (the form is ready once the contract's own list is).
  await page.locator('#my-requests[aria-busy="false"]').waitFor({ state: 'attached' });
  if (view.language === 'ru') {
    await page.click('button[data-lang="ru"]');
    // The reasons come from the API in the new language (hidden while a request in progress is shown instead of the form).
    await page.locator('#reasons label', { hasText: 'Переезд' }).waitFor({ state: 'attached' });
    // And "All my requests" again, with the API's messages in it in Russian.
    await page.waitForFunction(
      "[...document.querySelectorAll('#my-requests-list .message')].every((message) => /\\p{Script=Cyrillic}/u.test(message.textContent))",
    );
  }
  return page;
}

/** A day as the page asks for it in its language: 25.12.2026 in Russian, 25/12/2026 in English. */
export function typedDay(isoDay: string, language: Language): string {
  const [year, month, day] = isoDay.split('-');
  return [day, month, year].join(language === 'ru' ? '.' : '/');
}

async function language(page: Page): Promise<Language> {
  return (await page.getAttribute('html', 'lang')) === 'ru' ? 'ru' : 'en';
}

async function choose(page: Page, contractId: string): Promise<void> {
  const radio = page.locator(`input[name="contract"][value="${contractId}"]`);
  if (!(await radio.isChecked())) await radio.check();
}

/** Chooses a reason of the form by its code (its radio's value), as a click on its words would. */
export async function chooseReason(page: Page, reasonCode: string): Promise<void> {
  await page.check(`input[name="reason"][value="${reasonCode}"]`);
}

/** A form the page lets through: the demo's bank details, unless told otherwise. */
export async function fillForm(page: Page, bank: { accountNumber?: string } = {}): Promise<void> {
  await chooseReason(page, 'RELOCATION');
  const inMonth = new Date(Date.now() + 30 * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  await page.fill(
    '#date',
    typedDay(`${inMonth.getFullYear()}-${pad(inMonth.getMonth() + 1)}-${pad(inMonth.getDate())}`, await language(page)),
  );
  await page.fill('#bik', DEMO_BANK_DETAILS.bik);
  await page.fill('#account', bank.accountNumber ?? DEMO_BANK_DETAILS.accountNumber);
  await page.fill('#recipient', DEMO_BANK_DETAILS.recipientName);
  await page.fill('#comment', (await language(page)) === 'ru' ? 'Переезжаю в другой город.' : 'Moving to another city.');
  // The first of the customer's documents, where the page offers any.
  const document = page.locator('input[name="document"]').first();
  if ((await document.count()) > 0) await document.check();
}

/** Brings an open page to a state; each state's contract is chosen first. */
export async function showState(page: Page, state: PageState, contracts: StateContracts): Promise<void> {
  switch (state) {
    case 'empty':
      await choose(page, contracts.fresh);
      await page.locator('#requests-empty').waitFor();
      return;
    case 'errors': {
      await choose(page, contracts.fresh);
      const yesterday = new Date(Date.now() - 86_400_000);
      const pad = (n: number) => String(n).padStart(2, '0');
      const day = `${yesterday.getFullYear()}-${pad(yesterday.getMonth() + 1)}-${pad(yesterday.getDate())}`;
      await page.fill('#date', typedDay(day, await language(page)));
      await page.fill('#bik', DEMO_BANK_DETAILS.bik.slice(0, 8));
      await page.fill('#account', `${DEMO_BANK_DETAILS.accountNumber.slice(0, 10)}O${DEMO_BANK_DETAILS.accountNumber.slice(11)}`);
      await page.fill('#recipient', '');
      // Leaving the emptied name says so at once, beside it; then the submit.
      await page.press('#recipient', 'Tab');
      await page.click('#submit');
      await page.locator('#general-error p').first().waitFor();
      return;
    }
    case 'refused':
      // An account that does not go with the BIK: only the API can tell.
      await choose(page, contracts.fresh);
      await fillForm(page, { accountNumber: `${DEMO_BANK_DETAILS.accountNumber.slice(0, 19)}2` });
      await page.click('#submit');
      await page.locator('#general-error .reference').waitFor();
      return;
    case 'success':
      await choose(page, contracts.fresh);
      await fillForm(page);
      await page.click('#submit');
      await page.locator('form[data-state="done"]').waitFor();
      return;
    case 'withdrawn':
      // The request the success state made, withdrawn from its panel: the page says so and the form is back.
      await choose(page, contracts.fresh);
      await page.locator('#result-withdraw').click();
      await page.locator('#withdraw-confirm').click();
      await page.locator('form[data-state="ready"]').waitFor();
      await page.locator('#requests-list li[data-status="WITHDRAWN"]').first().waitFor();
      return;
    case 'held':
      await choose(page, contracts.listed);
      await page.locator('form[data-state="done"]').waitFor();
      await page.locator('#requests-list li').nth(2).waitFor();
      return;
    case 'outage':
      // The bank's service answers every create with 503 (as it does when DynamoDB is out of reach), and the client's retries run out.
      await page.route('**/termination-requests', (route) =>
        route.request().method() === 'POST' ? route.fulfill(unavailable(route.request().headers()['origin'])) : route.fallback(),
      );
      await choose(page, contracts.fresh);
      await fillForm(page);
      await page.click('#submit');
      await page.locator('#general-error .reference').waitFor({ timeout: 60_000 });
      return;
    case 'withdraw-dialog':
      await choose(page, contracts.listed);
      await page.locator('#requests-list button.withdraw').first().click();
      await page.locator('#withdraw-dialog[open]').waitFor();
      return;
    case 'unavailable':
      await choose(page, contracts.closed);
      await page.locator('form[data-state="unavailable"]').waitFor();
      await page.locator('#requests-empty').waitFor();
      return;
    case 'completed':
      // The bank completed the request; the contracts service has not closed the contract yet.
      await choose(page, contracts.completed);
      await page.locator('form[data-state="blocked"]').waitFor();
      await page.locator('#requests-list li[data-status="COMPLETED"]').waitFor();
      return;
    case 'limit':
      // As many requests as the limit allows, each withdrawn: the API's list says when the next is possible.
      await choose(page, contracts.limited);
      await page.locator('form[data-state="blocked"]').waitFor();
      await page.locator('#requests-more').waitFor();
      return;
  }
}

/** The service's own 503 (docs/decisions/0011-error-body.md), granted to the page's origin. */
function unavailable(origin: string | undefined) {
  return {
    status: 503,
    headers: {
      'Content-Type': 'application/json',
      'Retry-After': '0',
      'Access-Control-Allow-Origin': origin ?? '*',
      'Access-Control-Expose-Headers': 'X-Correlation-Id, Retry-After',
    },
    body: JSON.stringify({
      errorCode: 'SERVICE_UNAVAILABLE',
      message: 'The service is temporarily unavailable. Please retry later.',
      correlationId: randomUUID(),
      details: [],
    }),
  };
}

/** The reason the back office gives for the rejection seedRequests makes, in the customer's language. */
export const REJECTION_REASONS: Record<Language, string> = {
  en: 'The contract is pledged as collateral.',
  ru: 'Договор находится в залоге.',
};

/**
 * Three requests on a contract, as a customer's history has them: one the bank rejected (with its
 * reason), one the customer withdrew, and one still submitted, newest first. Made through the
 * API with the typed client; the rejection through `decide`, the back office's decision handed
 * to the consumer function.
 */
export async function seedRequests(
  api: { url: string; token: string },
  contractId: string,
  decide: (event: EventBridgeEvent<string, StatusDecisionDetail>) => Promise<unknown>,
  reason: string,
): Promise<void> {
  const client = createTerminationClient({ baseUrl: api.url, token: () => api.token });
  const date = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const create = async () => {
    const created = await client.createTerminationRequest(contractId, {
      reasonCode: 'RELOCATION',
      desiredTerminationDate: date,
      bankDetails: { ...DEMO_BANK_DETAILS },
    });
    if (!created.ok) throw new Error(`seedRequests: the create was refused: ${JSON.stringify(created)}`);
    return created.value.requestId;
  };
  const rejected = await create();
  await decide(decisionEvent({ requestId: rejected, contractId, status: 'REJECTED', reason }));
  const withdrawn = await create();
  const withdrawal = await client.withdrawTerminationRequest(contractId, withdrawn);
  if (!withdrawal.ok) throw new Error(`seedRequests: the withdrawal was refused: ${JSON.stringify(withdrawal)}`);
  await create();
}

/**
 * The contracts of the completed and limit states: on `completed` one request the bank completed
 * (a decision straight from SUBMITTED, a forward skip the lifecycle allows); on `limited` requests
 * made and withdrawn until the API refuses one for the limit (the rule is the API's, not copied).
 */
export async function seedEndings(
  api: { url: string; token: string },
  contracts: Pick<StateContracts, 'completed' | 'limited'>,
  decide: (event: EventBridgeEvent<string, StatusDecisionDetail>) => Promise<unknown>,
): Promise<void> {
  const client = createTerminationClient({ baseUrl: api.url, token: () => api.token });
  const date = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const input = { reasonCode: 'RELOCATION', desiredTerminationDate: date, bankDetails: { ...DEMO_BANK_DETAILS } } as const;
  const completed = await client.createTerminationRequest(contracts.completed, input);
  if (!completed.ok) throw new Error(`seedEndings: the create was refused: ${JSON.stringify(completed)}`);
  await decide(decisionEvent({ requestId: completed.value.requestId, contractId: contracts.completed, status: 'COMPLETED' }));
  for (let made = 0; made < 20; made++) {
    const created = await client.createTerminationRequest(contracts.limited, input);
    if (!created.ok && created.reason === 'refused' && created.error.errorCode === 'REQUEST_LIMIT_REACHED') return;
    if (!created.ok) throw new Error(`seedEndings: the create was refused: ${JSON.stringify(created)}`);
    const withdrawal = await client.withdrawTerminationRequest(contracts.limited, created.value.requestId);
    if (!withdrawal.ok) throw new Error(`seedEndings: the withdrawal was refused: ${JSON.stringify(withdrawal)}`);
  }
  throw new Error('seedEndings: twenty requests made and withdrawn, and no limit met');
}

// ---- npm run screenshot --------------------------------------------------------------------

/** Where the pictures go: docs/images only when asked (--docs), so that a run changes no tracked file by itself. */
export const screenshotDir = (args: readonly string[]): string => (args.includes('--docs') ? 'docs/images' : '.local/screenshots');
const DOCS_DIR = 'docs/images';
/** The pictures: every state in English on a desktop and in Russian on a phone. */
export const SCREENSHOT_VIEWS: { language: Language; width: number }[] = [
  { language: 'en', width: 1280 },
  { language: 'ru', width: 390 },
];

export const screenshotPath = (state: PageState, view: { language: Language; width: number }, dir = DOCS_DIR) =>
  `${dir}/page-${state}-${view.language}-${view.width}.png`;

async function main(): Promise<void> {
  const dir = screenshotDir(process.argv.slice(2));
  assertLambdaNode();
  assertJava();
  const stops: (() => Promise<void>)[] = [];
  try {
    console.log('Building functions...');
    await buildFunctions();
    const db = await startDynamoDbLocal({ port: await freePort() });
    stops.push(db.stop);
    await createTables(db.client, localDefaults.tables);
    const doc = DynamoDBDocumentClient.from(db.client);
    await putContracts(doc, localDefaults.tables.contracts, DEMO_CONTRACTS);
    await putDocuments(doc, localDefaults.tables.documents, DEMO_DOCUMENTS);
    const key = makeSigningKey();
    const jwks = await startJwksServer(key.jwks, 0);
    stops.push(jwks.stop);
    const pagePort = await freePort();
    const lambdaPort = await freePort();
    console.log('Starting serverless offline...');
    const offline = await startOffline({
      apiPort: await freePort(),
      lambdaPort,
      env: {
        ...localServiceEnv({ dynamoDbEndpoint: db.endpoint, jwksUri: jwks.uri }),
        ALLOWED_ORIGINS: `http://127.0.0.1:${pagePort}`,
        LOG_LEVEL: 'SILENT',
      },
    });
    stops.push(offline.stop);
    // Each view gets copies of Anna's credit card (fresh) and mortgage (with requests), so that
    // every view starts from the same history; the page shows them as the demo data names them.
    const { anna } = DEMO_CUSTOMERS;
    let swapped: Record<string, string> = {};
    let endings: PageConfig['contracts'] = [];
    const config = async (): Promise<PageConfig> => {
      const demo = await demoPageConfig(key, offline.url, 'anna', (ids) => readContracts(doc, localDefaults.tables.contracts, ids));
      return {
        ...demo,
        contracts: [
          ...demo.contracts.map((contract) => ({ ...contract, contractId: swapped[contract.contractId] ?? contract.contractId })),
          ...endings,
        ],
      };
    };
    const server = await startPageServer({ port: pagePort, config });
    stops.push(server.stop);
    const browser = await launchChromium();
    stops.push(browser.close);
    mkdirSync(dir, { recursive: true });

    for (const view of SCREENSHOT_VIEWS) {
      const contracts: StateContracts = {
        fresh: randomUUID(),
        listed: randomUUID(),
        closed: anna.contracts.closed,
        completed: randomUUID(),
        limited: randomUUID(),
      };
      const original = DEMO_CONTRACTS.filter(
        (contract) => contract.contractId === anna.contracts.active || contract.contractId === anna.contracts.withEndDate,
      );
      await putContracts(
        doc,
        localDefaults.tables.contracts,
        original.map((contract) => ({
          ...contract,
          contractId: contract.contractId === anna.contracts.active ? contracts.fresh : contracts.listed,
        })),
      );
      swapped = { [anna.contracts.active]: contracts.fresh, [anna.contracts.withEndDate]: contracts.listed };
      const ending = { customerId: anna.customerId, status: 'ACTIVE' };
      await putContracts(doc, localDefaults.tables.contracts, [
        { contractId: contracts.completed, ...ending },
        { contractId: contracts.limited, ...ending },
      ]);
      endings = [
        pageContract({ contractId: contracts.completed, status: 'ACTIVE' }, ENDING_DISPLAYS.completed),
        pageContract({ contractId: contracts.limited, status: 'ACTIVE' }, ENDING_DISPLAYS.limited),
      ];
      const api = { url: offline.url, token: (await config()).token };
      const decide = (event: EventBridgeEvent<string, StatusDecisionDetail>) => invokeOffline('applyStatusDecision', event, lambdaPort);
      await seedRequests(api, contracts.listed, decide, REJECTION_REASONS[view.language]);
      await seedEndings(api, contracts, decide);
      for (const state of PAGE_STATES) {
        const page = await openPage(browser.context, server.url, view);
        await showState(page, state, contracts);
        // Nothing hovered in the picture; the dialog keeps its focus, as a customer sees it.
        await page.mouse.move(0, 0);
        if (state !== 'withdraw-dialog') await page.evaluate('document.activeElement?.blur()');
        const path = screenshotPath(state, view, dir);
        // The dialog as the customer sees it, over the window it opened in; the rest whole.
        await page.screenshot({ path, fullPage: state !== 'withdraw-dialog' });
        console.log(`Saved ${path}`);
        await page.close();
      }
    }
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
