import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCreateConfig } from '../../lib/config';
import { idempotencyKeyOf, limitKeyOf, numberKeyOf, requestKeyOf, slotKeyOf, withdrawalKeyOf } from '../../lib/dynamodb/keys';
import { ERROR_CODES, OUTCOMES } from '../../lib/http/outcomes';
import { gatewayResponses, templateFile } from '../../scripts/local/template-file';
import { at, jsonObject } from '../support/json';
import { loadDocument } from '../support/openapi-document';
import { filesUnder, markdownFiles } from '../support/repository-files';
import { envVariables, serverlessYml, stageParams } from '../support/serverless-yml';

/*
 * The docs hold lists the code also knows; each is checked here against the code, so a change of
 * either side that the other does not follow fails: the test files any doc names (a doc links the
 * file that holds a claim, never quotes a test's title), the links between the docs, the routes of api.md and clients.md (against docs/openapi.yaml),
 * the package-time settings of configuration.md (against serverless.yml), the error codes of
 * 0011 (against lib/http/outcomes.ts and the gateway's and the WAF's answers), the resources/
 * files of 0002, the decision records' index and every
 * record named by file, the table's keys (0015 against what keys.ts makes) and the request limit's figures
 * (against lib/config.ts's defaults). Lists better replaced by a link (which
 * function serves a route, role grants, alarms) are docs/inventory.md, generated and held by
 * tests/deploy/inventory-doc.test.ts.
 */

const read = (path: string) => readFileSync(path, 'utf8');

describe('the test files the docs name', () => {
  /** Every test or support file a doc names in backticks; a link to one is checked with the links below. */
  const testFilesIn = (doc: string) => [...read(doc).matchAll(/`(tests\/[\w/.-]+\.ts)`/g)].map(([, file = '']) => file);

  it.each(markdownFiles())('%s names only test files that exist', (doc) => {
    expect(testFilesIn(doc).filter((file) => !existsSync(file))).toEqual([]);
  });

  it('finds them at all: security.md links the files that hold each risk', () => {
    expect(new Set(testFilesIn('docs/security.md')).size).toBeGreaterThan(20);
  });
});

describe('the links between the docs', () => {
  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
  const anchor = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');

  it.each(markdownFiles())('%s links only to files and headings that exist', (doc) => {
    const broken = [...read(doc).matchAll(/\]\(([^)\s]+)\)/g)]
      .map(([, target = '']) => target)
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => {
        const [path = '', hash] = target.split('#');
        const file = path === '' ? doc : normalize(join(dirname(doc), path));
        if (!existsSync(file)) return true;
        if (hash === undefined || !file.endsWith('.md')) return false;
        const headings = read(file)
          .split('\n')
          .filter((line) => /^#{1,6} /.test(line))
          .map((line) => anchor(line.replace(/^#+ /, '')));
        return !headings.includes(hash);
      });
    expect(broken).toEqual([]);
  });
});

describe('the routes the docs list', () => {
  const operations = () =>
    Object.entries(jsonObject(loadDocument()['paths']))
      .flatMap(([path, item]) => Object.keys(jsonObject(item)).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
  const routesIn = (lines: string[], start: RegExp) =>
    lines
      .flatMap((line) => (start.test(line) ? [/`(GET|POST|PUT|PATCH|DELETE) (\/api\/v1\/[^`?]*)/.exec(line)] : []))
      .flatMap((match) => (match ? [`${match[1] ?? ''} ${match[2] ?? ''}`] : []))
      .sort();
  it('docs/api.md lists each route of docs/openapi.yaml once, and no other', () => {
    // A route is listed where a bullet begins with it, wherever the page puts that list.
    expect(routesIn(read('docs/api.md').split('\n'), /^- `/)).toEqual(operations());
  });

  it("docs/clients.md's table of routes is the routes of docs/openapi.yaml", () => {
    expect(routesIn(read('docs/clients.md').split('\n'), /^\| `/)).toEqual(operations());
  });
});

describe('docs/configuration.md', () => {
  const text = read('docs/configuration.md');
  /** The rows of the tables whose header row is `header`, each as its cells (the settings' own table is held by tests/unit/configuration-doc.test.ts). */
  const rowsOf = (header: string) =>
    text
      .split(/\n(?=\| variable \|)/)
      .filter((part) => part.startsWith(`${header}\n`))
      .flatMap((table) => table.split('\n').filter((line, i, lines) => i > 1 && lines.slice(0, i + 1).every((l) => l.startsWith('|'))))
      .map((line) =>
        line
          .split(' | ')
          .map((cell) => cell.replace(/^\| | \|$/g, ''))
          .map((cell, i) => (i === 0 ? (cell.match(/`[A-Z][A-Z0-9_]+`/g) ?? []).map((name) => name.slice(1, -1)).join(' ') : cell)),
      );
  const PACKAGE_TIME = '| variable | default | meaning |';
  const packageTimeNames = () =>
    rowsOf(PACKAGE_TIME)
      .flatMap(([names = '']) => names.split(' '))
      .filter((name) => name !== '' && !name.startsWith('POWERTOOLS_'));

  it('names every variable serverless.yml takes from the environment, and lists no package-time one it does not', () => {
    // The serverless-offline block is npm start's to set (its ports are in docs/local-development.md).
    const { custom, ...rest } = serverlessYml();
    const { 'serverless-offline': _offline, ...otherCustom } = jsonObject(custom);
    const taken = new Set(envVariables({ ...rest, custom: otherCustom }).map(({ name }) => name));
    expect(taken.size).toBeGreaterThan(20);
    expect([...taken].filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
    expect(packageTimeNames().length).toBeGreaterThan(20);
    expect(packageTimeNames().filter((name) => !taken.has(name))).toEqual([]);
  });

  it('gives each package-time setting with a plain default the one serverless.yml packages a stage with', () => {
    const packaged = new Map(
      envVariables(stageParams()['default']).flatMap(({ name, fallback }): [string, string][] =>
        fallback === undefined ? [] : [[name, fallback]],
      ),
    );
    const checked = rowsOf(PACKAGE_TIME).flatMap(([names = '', cell = '']) => {
      // "50 / 100" for two names, "30 (90 on prod)": the plain values before any words.
      const values = /^([\w.]+(?: \/ [\w.]+)*)(?: \(|$)/.exec(cell)?.[1]?.split(' / ') ?? [];
      return names
        .split(' ')
        .flatMap((name, i) =>
          packaged.has(name) && values[i] !== undefined ? [{ name, doc: values[i], packaged: packaged.get(name) }] : [],
        );
    });
    expect(checked.length).toBeGreaterThan(10);
    for (const { name, doc, packaged: value } of checked) expect(doc, name).toBe(value);
  });
});

describe('docs/decisions/0011-error-body.md', () => {
  /** The table's rows: each errorCode it names, with the row's status. */
  const rows = () =>
    new Map(
      [...read('docs/decisions/0011-error-body.md').matchAll(/^\| ((?:`[A-Z_0-9]+`(?:, )?)+) \| (\d{3}|4xx) \|/gm)].flatMap(
        ([, codes = '', status = '']) => [...codes.matchAll(/`([A-Z_0-9]+)`/g)].map(([, code = '']): [string, string] => [code, status]),
      ),
    );

  it('gives every errorCode a function answers, with the status of its row in lib/http/outcomes.ts', () => {
    expect(ERROR_CODES.map((code) => [code, rows().get(code)])).toEqual(ERROR_CODES.map((code) => [code, String(OUTCOMES[code].status)]));
  });

  it("gives every errorCode the gateway's and the WAF's own answers carry", () => {
    for (const response of gatewayResponses()) {
      const code = /"errorCode":"([A-Z_0-9]+)"/.exec(response.template)?.[1];
      if (code !== undefined && response.statusCode !== undefined) expect(rows().get(code), response.logicalId).toBe(response.statusCode);
    }
    // The WAF's own answers: the bodies of its web ACL, parsed.
    const waf = Object.values(jsonObject(templateFile('waf.yml')['Resources']))
      .filter((resource) => at(resource, 'Type') === 'AWS::WAFv2::WebACL')
      .flatMap((acl) => Object.values(jsonObject(at(acl, 'Properties', 'CustomResponseBodies'))))
      .map((body) => String(at(jsonObject(JSON.parse(String(at(body, 'Content')))), 'errorCode')));
    expect(waf.length).toBeGreaterThan(0);
    expect(waf.filter((code) => !rows().has(code))).toEqual([]);
  });
});

describe('what other docs name of the code', () => {
  it('docs/decisions/0002-deployment-shape.md names each file of resources/ that serverless.yml includes', () => {
    const resources = at(serverlessYml(), 'resources');
    const included = (Array.isArray(resources) ? resources : [])
      .flatMap((entry) => /^\$\{file\(\.\/resources\/([\w-]+\.yml)\)\}$/.exec(typeof entry === 'string' ? entry : '')?.[1] ?? [])
      .sort();
    // Each file of resources/ is named by its own name, wherever the record names it.
    const named = new Set(
      [...read('docs/decisions/0002-deployment-shape.md').matchAll(/`(?:resources\/)?([\w-]+\.yml)`/g)].map(([, name = '']) => name),
    );
    expect(included.length).toBeGreaterThan(0);
    expect(included.filter((name) => !named.has(name))).toEqual([]);
    expect([...named].filter((name) => name !== 'serverless.yml' && !included.includes(name))).toEqual([]);
    expect(
      readdirSync('resources')
        .filter((name) => name.endsWith('.yml'))
        .sort(),
    ).toEqual(included);
  });
});

describe('the decision records', () => {
  const records = () =>
    readdirSync('docs/decisions')
      .filter((name) => /^\d{4}-[a-z0-9-]+\.md$/.test(name))
      .sort();

  it('docs/decisions/README.md indexes each record once, in number order, by its file and its own title', () => {
    const rows = [...read('docs/decisions/README.md').matchAll(/^\| (\d{4}) \| \[([^\]]+)\]\(([^)]+)\) \|/gm)].map(
      ([, number = '', title = '', file = '']) => ({ number, title, file }),
    );
    expect(rows.map((row) => row.file)).toEqual(records());
    for (const { number, title, file } of rows) {
      expect(file.startsWith(`${number}-`), file).toBe(true);
      expect(read(join('docs/decisions', file)).split('\n')[0]).toBe(`# ${number}. ${title}`);
    }
  });

  it('are named by files that exist, wherever a doc, a comment or a template names one', () => {
    const files = [
      'README.md',
      'serverless.yml',
      ...['docs', 'lib', 'functions', 'scripts', 'tests', 'bench', 'web', 'client', 'resources'].flatMap((dir) =>
        filesUnder(dir, /\.(?:ts|cjs|yml|md)$/),
      ),
    ];
    const known = new Set(records());
    const named = files.flatMap((file) =>
      [...read(file).matchAll(/\b(\d{4}-[a-z0-9-]+\.md)\b/g)].map(([, record = '']) => ({ file, record })),
    );
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter(({ record }) => !known.has(record))).toEqual([]);
  });
});

describe("the requests table's keys", () => {
  it("are 0015-reading-requests.md's table: each row is what lib/dynamodb/keys.ts makes of the placeholders it names", () => {
    const made = [
      slotKeyOf('<contractId>'),
      requestKeyOf('<contractId>', '<requestId>'),
      limitKeyOf('<contractId>', '<customerId>'),
      idempotencyKeyOf('<customerId>', '<key>'),
      numberKeyOf('<requestNumber>'),
      withdrawalKeyOf('<customerId>', '<key>'),
    ].map(({ pk, sk }) => `${pk} ${sk}`);
    const inDoc = [...read('docs/decisions/0015-reading-requests.md').matchAll(/^\| `([^`]+)` \| `([^`]+)` \|/gm)].map(
      ([, pk, sk]) => `${pk} ${sk}`,
    );
    expect(inDoc.filter((row) => row !== 'pk sk').sort()).toEqual(made.sort());
  });
});

describe("the request limit's figures", () => {
  it("are lib/config.ts's defaults wherever a doc gives them", () => {
    const { requestLimit } = loadCreateConfig({ REQUESTS_TABLE_NAME: 'r', CONTRACTS_TABLE_NAME: 'c', DOCUMENTS_TABLE_NAME: 'd' });
    const stated = markdownFiles().flatMap((doc) =>
      [...read(doc).matchAll(/(\d+) requests (?:per customer and contract|on one contract|per contract) in (\d+) days/g)].map(
        ([, count = '', days = '']) => ({ doc, count: Number(count), periodDays: Number(days) }),
      ),
    );
    expect(stated.length).toBeGreaterThanOrEqual(2);
    for (const { doc, ...figures } of stated) expect(figures, doc).toEqual(requestLimit);
  });
});
