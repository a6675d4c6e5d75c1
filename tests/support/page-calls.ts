import type { Page } from 'playwright-core';
import { jsonObject } from './json';

/*
 * The calls a page makes, as the page makes them: window.fetch is wrapped before the page's own
 * script runs, and each call is noted at once (method, path, Idempotency-Key). A call is noted in
 * the same turn of the page's event loop as the action that made it, so once the page shows the
 * outcome of an action, the calls that action made are all here. (A proxy in front of the API
 * counts what reaches the network, retries and the browser's own resends included; this counts
 * what the page asked for.)
 */

export interface PageCall {
  method: string;
  path: string;
  idempotencyKey: string | null;
}

const RECORDER = `
  window.__calls = [];
  const original = window.fetch.bind(window);
  window.fetch = (input, init) => {
    // A Request is read as it is: one made from it would take its body.
    const request = input instanceof Request ? input : new Request(input, init);
    window.__calls.push({
      method: request.method,
      path: new URL(request.url).pathname,
      idempotencyKey: request.headers.get('Idempotency-Key'),
    });
    return original(input, init);
  };
`;

/** Notes every fetch of the page's documents from the next navigation on. */
export async function recordCalls(page: Page): Promise<void> {
  await page.addInitScript(RECORDER);
}

function parseCalls(value: unknown): PageCall[] {
  if (!Array.isArray(value)) throw new Error('the page records no calls: recordCalls() before goto()');
  return value.map((item: unknown): PageCall => {
    const { method, path, idempotencyKey } = jsonObject(item);
    if (typeof method !== 'string' || typeof path !== 'string' || (idempotencyKey !== null && typeof idempotencyKey !== 'string')) {
      throw new Error(`not a call: ${JSON.stringify(item)}`);
    }
    return { method, path, idempotencyKey };
  });
}

/** The calls the page has made so far, oldest first. */
export async function callsOf(page: Page): Promise<PageCall[]> {
  return parseCalls(await page.evaluate('window.__calls'));
}

/** The page's POSTs (creates and withdrawals) so far. */
export async function postsOf(page: Page): Promise<PageCall[]> {
  return (await callsOf(page)).filter((call) => call.method === 'POST');
}
