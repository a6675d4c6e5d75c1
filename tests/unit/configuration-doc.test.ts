import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from '../support/repository-files';
import * as config from '../../lib/config';
import { defaultOf, isSettingName, type SettingName, SETTINGS } from '../../lib/config';
import {
  CONFIGURATION_DOC,
  LOADERS,
  namesReadBy,
  settingsTable,
  settingsWithoutMeaning,
  withSettingsTable,
} from '../../scripts/configuration-doc';

describe("docs/configuration.md's table of settings", () => {
  const doc = () => readFileSync(CONFIGURATION_DOC, 'utf8');

  it('is what npm run docs:configuration makes from lib/config.ts today', () => {
    expect(doc()).toBe(withSettingsTable(doc()));
  });

  it('gives every setting a meaning', () => {
    expect(settingsWithoutMeaning(doc())).toEqual([]);
  });

  it('names every function that reads a setting: each loader of lib/config.ts is one of its groups', () => {
    const exported = Object.entries(config).flatMap(([name, value]) => (name.startsWith('load') ? [value] : []));
    expect(exported).toHaveLength(LOADERS.length);
    expect(LOADERS.map(({ load }) => load)).toEqual(expect.arrayContaining(exported));
  });

  it('lists exactly the settings the loaders read: none is read unlisted, none listed is unread', () => {
    const read = new Set(LOADERS.flatMap(({ load }) => [...namesReadBy(load)]));
    expect([...read].sort()).toEqual(Object.keys(SETTINGS).sort());
  });

  it('shows a setting two groups read under the wider group only, and every group that reads it otherwise', () => {
    const row = (name: string) =>
      settingsTable(doc())
        .split('\n')
        .find((line) => line.startsWith(`| \`${name}\` |`))
        ?.split(' | ')[1];
    // Every route reads these, the handlers among them.
    expect(row('RETRY_AFTER_SECONDS')).toBe('API functions');
    // The handlers read it, the create among them, and the consumer and the publisher too.
    expect(row('REQUESTS_TABLE_NAME')).toBe('handlers, consumer, publisher');
    expect(row('DOCUMENTS_TABLE_NAME')).toBe('create');
  });
});

describe("a setting's figure, wherever a doc gives it beside the setting's name", () => {
  const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, min: 60, h: 3600, day: 86_400, days: 86_400 };
  /** The unit a setting's name says its value is in, as seconds (undefined for a count or bytes). */
  const unitOf = (name: string) =>
    ({ _MS: 0.001, _SECONDS: 1, _HOURS: 3600, _DAYS: 86_400 })[/_(?:MS|SECONDS|HOURS|DAYS)$/.exec(name)?.[0] ?? ''];

  /** Each figure a doc gives a setting: "`NAME` (6 s)", "`NAME`, default 1", "(default 6000 ms)" after it, or a table row of its name and one figure. */
  function figures(): { doc: string; name: SettingName; value: number; unit: string | undefined }[] {
    const names = Object.keys(SETTINGS)
      .filter(isSettingName)
      .filter((name) => typeof defaultOf(name) === 'number');
    const FIGURE = String.raw`(\d[\d,]*)(?: ?(ms|s|min|h|days?)\b)?`;
    return markdownFiles().flatMap((doc) =>
      readFileSync(doc, 'utf8')
        // A wrapped sentence read as one line; a table row stays a line of its own.
        .replace(/\n(?! *\|)[ \t]*(?=\S)/g, ' ')
        .split('\n')
        .flatMap((line) =>
          names.flatMap((name) => {
            const beside = new RegExp(String.raw`\`${name}\`(?: \(|,? \(?default:? )${FIGURE}`).exec(line);
            const cells = line.trim().startsWith('|') && line.includes(`\`${name}\``) ? line.split('|').map((cell) => cell.trim()) : [];
            const inRow = cells.map((cell) => new RegExp(`^${FIGURE}$`).exec(cell)).filter((match) => match !== null);
            const found = beside ?? (inRow.length === 1 ? inRow[0] : undefined);
            return found ? [{ doc, name, value: Number(found[1]?.replace(/,/g, '')), unit: found[2] }] : [];
          }),
        ),
    );
  }

  it("is lib/config.ts's default", () => {
    const found = figures();
    expect(found.length).toBeGreaterThan(8);
    for (const { doc, name, value, unit } of found) {
      const own = unitOf(name);
      const given = unit === undefined || own === undefined ? value : (value * (UNIT_SECONDS[unit] ?? Number.NaN)) / own;
      expect(given, `${doc}: ${name}`).toBe(defaultOf(name));
    }
  });
});
