import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsonObject } from '../support/json';
import { filesUnder } from '../support/repository-files';

/*
 * The commands the docs and the code's comments tell a reader to run are commands of
 * package.json: a command removed or renamed (e.g. the one-off migrations folded into npm run
 * migrate) leaves no doc, runbook or usage line naming it.
 */

const FOLDERS = ['docs', 'scripts', 'lib', 'functions', 'tests', 'bench', 'web', 'client'];

const sources = (dir: string) => filesUnder(dir, /\.(?:ts|md)$/);

/** `npm run <name>` as code: in backticks, or at the start of a line of a code block or a comment. */
const COMMAND = /(?:`|^[ \t]*(?:[*#/]+[ \t]*)?)npm run ([a-z][\w:-]*[a-z0-9])/gm;

describe('npm run commands', () => {
  it('named in README.md, docs/ or a source file are scripts of package.json', () => {
    const scripts = Object.keys(jsonObject(jsonObject(JSON.parse(readFileSync('package.json', 'utf8')))['scripts']));
    const named = ['README.md', ...FOLDERS.flatMap(sources)].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(COMMAND)].map(([, command = '']) => ({ file, command })),
    );
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter(({ command }) => !scripts.includes(command))).toEqual([]);
  });
});
