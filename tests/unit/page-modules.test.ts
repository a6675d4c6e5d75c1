import { readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/*
 * The demo page (web/) in parts a reader can hold: texts, config, rendering, field checks, API
 * calls and main, none over 300 lines. The rules it shares with the service and the client have
 * one home each, and the page's bundle is made of those homes: the lifecycle's statuses, the
 * reason rules, the character rule of a person's text, the business date, the desired date's
 * range, the page size and the schemas are the domain's and the API model's; the statuses a client
 * retries are the client's.
 */

const WEB = readdirSync('web').filter((name) => name.endsWith('.ts'));

/** The files esbuild puts in the page's bundle, as scripts/local/page-server.ts bundles it. */
async function bundledFiles(): Promise<string[]> {
  const result = await build({
    entryPoints: ['web/main.ts'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
  });
  return Object.keys(result.metafile.inputs);
}

describe('the demo page in parts', () => {
  it('has no file of web/ over 300 lines', () => {
    const long = WEB.map((name) => ({ name, lines: readFileSync(`web/${name}`, 'utf8').split('\n').length - 1 })).filter(
      ({ lines }) => lines > 300,
    );
    expect(WEB.length).toBeGreaterThanOrEqual(6);
    expect(long).toEqual([]);
  });

  it("is bundled with the rules' own homes: the domain's, the API model's and the client's modules", async () => {
    expect(await bundledFiles()).toEqual(
      expect.arrayContaining([
        'lib/termination/lifecycle.ts',
        'lib/termination/reason-rules.ts',
        'lib/termination/business-date.ts',
        'lib/termination/desired-date.ts',
        'lib/termination/page-size.ts',
        'lib/api-model/characters.ts',
        'lib/api-model/schemas.ts',
        'client/index.ts',
      ]),
    );
  });
});
