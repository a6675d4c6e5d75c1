import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/*
 * The demo page (web/) in parts a reader can hold: texts, config, rendering, field checks, API
 * calls and main, none over 300 lines. The rules it shares with the service and the client have
 * one home each: the withdrawable statuses are the domain's (lib/termination/lifecycle.ts), the
 * statuses a client retries are the client's (client/index.ts); the page imports both.
 */

const WEB = readdirSync('web').filter((name) => name.endsWith('.ts'));
const source = (name: string) => readFileSync(`web/${name}`, 'utf8');

describe('the demo page in parts', () => {
  it('has no file of web/ over 300 lines', () => {
    const long = WEB.map((name) => ({ name, lines: source(name).split('\n').length - 1 })).filter(({ lines }) => lines > 300);
    expect(WEB.length).toBeGreaterThanOrEqual(6);
    expect(long).toEqual([]);
  });

  it('imports the withdrawable statuses from the domain and the retried statuses from the client, and writes neither list itself', () => {
    const all = WEB.map(source).join('\n');
    expect(all).toMatch(/import \{[^}]*\bWITHDRAWABLE_STATUSES\b[^}]*\} from '\.\.\/lib\/termination\/lifecycle\.ts'/);
    expect(all).toMatch(/import \{[^}]*\bRETRIED_STATUSES\b[^}]*\} from '\.\.\/client\/index\.ts'/);
    // A list of statuses or of HTTP codes written out again would be a second home.
    expect(all).not.toMatch(/\[\s*'SUBMITTED',\s*'IN_REVIEW'\s*\]/);
    expect(all).not.toMatch(/\b429\b[^\n]*\b503\b/);
  });
});
