import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { launchChromium, type Chromium } from '../../scripts/screenshot';

/*
 * The browser of a test file: one headless Chromium (Debian's, through playwright-core; the
 * launch is scripts/screenshot.ts's, so the pictures and the tests see the same browser),
 * launched before the file's tests, every tab a test opened closed after it, and the browser
 * closed (its profile removed) after the file.
 */

export interface BrowserFixture {
  /** A new tab, closed after the test that opened it. */
  newPage: () => Promise<Page>;
  /** The browser itself, for what a tab does not give (scripts/screenshot.ts's helpers take its context). */
  chromium: () => Chromium;
  /** A tab made elsewhere (e.g. by openPage), to be closed after the test like the others. */
  track: (page: Page) => Page;
}

export function useBrowser(): BrowserFixture {
  let browser: Chromium | undefined;
  const pages: Page[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const chromium = () => {
    if (!browser) throw new Error('Chromium did not start');
    return browser;
  };
  const track = (page: Page) => {
    pages.push(page);
    return page;
  };
  return { chromium, track, newPage: async () => track(await chromium().context.newPage()) };
}
