import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startPageServer, type PageConfig, type PageServer } from '../../scripts/local/page-server';
import { signToken } from '../../scripts/local/signing-key';
import { openPage, WIDTHS, type Language } from '../../scripts/screenshot';
import { useBrowser } from './browser';
import { startHttpStack, type HttpStack } from './http-stack';
import { useLifecycleStack, type LifecycleStack } from './lifecycle-stack';

/*
 * The demo page as a customer meets it, for a browser test file: fresh tables with the real
 * publisher and consumer (tests/support/lifecycle-stack.ts), serverless offline in front of them
 * with the page's origin in ALLOWED_ORIGINS, the page server, and a headless Chromium
 * (tests/support/browser.ts); all started before the file's tests and stopped after them. The
 * page asks the test what to show at every load, so each test offers contracts of its own.
 */

/** What the page is told at a load, but for the API's address and the customer's token (signed here for customerId). */
export type CustomerPageSetting = Omit<PageConfig, 'apiUrl' | 'token'>;

/** How a test opens the page: its language and width, and what is done to the tab before the page loads (e.g. recordCalls). */
export interface OpenOptions {
  language?: Language;
  width?: number;
  prepare?: (page: Page) => Promise<void>;
}

export interface CustomerPage {
  readonly lifecycle: LifecycleStack;
  readonly http: HttpStack;
  readonly pageServer: PageServer;
  /** An access token of the stack's own key for the customer, as the page is given. */
  token: (customerId: string) => string;
  /**
   * A new tab on the page once it has read the contract's requests and the customer's (scripts/screenshot.ts's
   * openPage), in English at a desktop's width unless told; closed after the test.
   */
  open: (options?: OpenOptions) => Promise<Page>;
}

export function useCustomerPage(setting: (lifecycle: LifecycleStack) => CustomerPageSetting | Promise<CustomerPageSetting>): CustomerPage {
  const browser = useBrowser();
  let lifecycle: LifecycleStack | undefined;
  let http: HttpStack | undefined;
  let pageServer: PageServer | undefined;
  const started = () => {
    if (!lifecycle || !http || !pageServer) throw new Error('the customer page did not start');
    return { lifecycle, http, pageServer };
  };
  const token = (customerId: string) => signToken(started().http.key, { customerId });

  beforeAll(async () => {
    lifecycle = await useLifecycleStack();
    pageServer = await startPageServer({
      port: 0,
      config: async () => {
        const running = started();
        const shown = await setting(running.lifecycle);
        return { ...shown, apiUrl: running.http.offline.url, token: token(shown.customerId) };
      },
    });
    http = await startHttpStack({
      dynamoDbEndpoint: lifecycle.tables.endpoint,
      tables: lifecycle.tables.names,
      env: { ALLOWED_ORIGINS: pageServer.origin },
    });
  }, 120_000);

  afterAll(async () => {
    await pageServer?.stop();
    await http?.stop();
    await lifecycle?.stop();
  });

  return {
    get lifecycle() {
      return started().lifecycle;
    },
    get http() {
      return started().http;
    },
    get pageServer() {
      return started().pageServer;
    },
    token,
    open: async ({ language = 'en', width = WIDTHS[0], prepare } = {}) =>
      browser.track(await openPage(browser.chromium().context, started().pageServer.url, { language, width }, prepare)),
  };
}
