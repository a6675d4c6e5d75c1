import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as config from '../../lib/config';
import { SETTINGS } from '../../lib/config';
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
