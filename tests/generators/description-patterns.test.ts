import { Ajv2020 } from 'ajv/dist/2020';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CUSTOMER_TEXT, RECIPIENT_NAME } from '../../lib/api-model/characters';
import { validateTerminationInput } from '../../lib/api-model/validator';
import { bankDetails, validBody } from '../support/bodies';
import { at, jsonObject } from '../support/json';
import { loadDocument } from '../support/openapi-document';

/*
 * The patterns docs/openapi.yaml gives the text formats recipient-name and customer-text
 * (scripts/openapi-patterns.ts) against the service's own rules: character by character over all
 * of Unicode, then as a client's validator reads the published schema (Ajv, formats unknown, so
 * the patterns decide), on a corpus of names and comments. Read in Unicode mode, as JSON Schema
 * 2020-12 asks, a pattern agrees with the service exactly; read without it (a generated zod
 * check, say), it agrees too, except that it cannot tell a name without a letter.
 */

const document = loadDocument();
const schemas = jsonObject(at(document, 'components', 'schemas'));
const patternOf = (schema: string, property: string): string => {
  const pattern = at(schemas, schema, 'properties', property, 'pattern');
  if (typeof pattern !== 'string') throw new Error(`${schema}.${property} has no pattern`);
  return pattern;
};
const NAME = patternOf('BankDetails', 'recipientName');
const COMMENT = patternOf('TerminationRequestInput', 'comment');
const MODES = [
  ['in Unicode mode', 'u'],
  ['without Unicode mode', ''],
] as const;

/** Code points where the pattern and the format disagree on `text(codePoint)`. */
function disagreements(pattern: RegExp, format: RegExp, text: (codePoint: number) => string): string[] {
  const found: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const value = text(cp);
    if (pattern.test(value) !== format.test(value)) found.push(`U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return found;
}

describe('the patterns of the text formats, character by character', () => {
  it.each(MODES)('agree with the formats on every code point between two letters, %s', (_mode, flags) => {
    const between = (cp: number) => `a${String.fromCodePoint(cp)}b`;
    expect(disagreements(new RegExp(NAME, flags), RECIPIENT_NAME, between)).toEqual([]);
    expect(disagreements(new RegExp(COMMENT, flags), CUSTOMER_TEXT, between)).toEqual([]);
  });

  it('agree on a name of one character in Unicode mode, the letter rule included; without it, they refuse no name the service takes', () => {
    const alone = (cp: number) => String.fromCodePoint(cp);
    expect(disagreements(new RegExp(NAME, 'u'), RECIPIENT_NAME, alone)).toEqual([]);
    const looser = disagreements(new RegExp(NAME), RECIPIENT_NAME, alone);
    expect(looser.every((cp) => !/\p{L}/u.test(String.fromCodePoint(Number.parseInt(cp.slice(2), 16))))).toBe(true);
    expect(looser.filter((cp) => RECIPIENT_NAME.test(String.fromCodePoint(Number.parseInt(cp.slice(2), 16))))).toEqual([]);
  });

  it.each(MODES)('refuse a surrogate that is not half of a pair, and take a pair, %s', (_mode, flags) => {
    for (const [value, taken] of [
      ['a\uD800b', false],
      ['a\uDC00b', false],
      ['a\uDC00\uD800b', false],
      ['a\uD83C\uDFE6b', true],
      ['a\uDB40\uDC01b', false],
    ] as const) {
      expect(new RegExp(NAME, flags).test(value), JSON.stringify(value)).toBe(taken);
      expect(new RegExp(COMMENT, flags).test(value), JSON.stringify(value)).toBe(taken);
    }
  });
});

/** The published create body as a client's validator reads it: patterns, no custom formats. */
function publishedValidator(unicodeRegExp: boolean): (body: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, unicodeRegExp });
  ajv.addSchema({ $id: 'openapi', ...document });
  const validate = ajv.getSchema('openapi#/components/schemas/TerminationRequestInput');
  if (!validate) throw new Error('no TerminationRequestInput in the description');
  return (body) => validate(body) === true;
}

/** Names and comments the validator's tests and the garbage corpus try, and some more. */
const CORPUS = [
  'Anna Ivanova',
  "ООО «Ромашка-Плюс» / Anne-Marie O'Neil",
  'Я',
  '   ',
  '123',
  '',
  'a'.repeat(255),
  'a'.repeat(256),
  '😀'.repeat(256),
  'e\u0301'.repeat(501),
  '\u0000name',
  'Anna\u200BIvanova',
  'Anna\uFEFF',
  'Anna\u202EavonavI',
  'Anna\tIvanova',
  'Anna\nIvanova',
  'Anna\r\nIvanova',
  'Anna\u2028Ivanova',
  'Anna\u3164',
  'Anna\u034F',
  'Anna\uE000',
  'Anna\u{F0000}',
  'Anna\u{FFFFE}',
  'Anna\u{E0001}',
  'Anna\u{E0100}',
  'Anna ❤\uFE0F',
  'Anna 🏦',
  '🏦'.repeat(1000),
  '🏦'.repeat(1001),
  'Anna\uD800',
  '\uDC00Anna',
  '٠٤٤٥٢٥٢٢٥',
  '４０８１７８１０７００００００００００１',
  '<b>Anna</b>',
];

/** An arbitrary string of code points, lone surrogates and letters included. */
const anyText = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0x10ffff }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.constantFrom(0x41, 0x44f, 0x20)), {
    maxLength: 12,
  })
  .map((codePoints) => String.fromCodePoint(...codePoints));

describe('the published create body, read by a client that knows no custom format', () => {
  const service = (body: unknown) => validateTerminationInput(body).ok;
  const bodies = (text: string) => [validBody({ bankDetails: bankDetails({ recipientName: text }) }), validBody({ comment: text })];

  it('takes and refuses the names and comments of the corpus as the service does, in Unicode mode', () => {
    const client = publishedValidator(true);
    const differ = CORPUS.flatMap(bodies).filter((body) => client(body) !== service(body));
    expect(differ).toEqual([]);
  });

  it('does so without Unicode mode too, but for names without a letter, which only the service refuses', () => {
    const client = publishedValidator(false);
    const differ = CORPUS.flatMap(bodies).filter((body) => client(body) !== service(body));
    expect(differ.map((body) => at(body, 'bankDetails', 'recipientName'))).toEqual([
      '   ',
      '123',
      '٠٤٤٥٢٥٢٢٥',
      '４０８１７８１０７００００００００００１',
    ]);
  });

  it.each(MODES)('agrees with the service on arbitrary text, %s', (_mode, flags) => {
    const client = publishedValidator(flags === 'u');
    fc.assert(
      fc.property(anyText, (text) => {
        for (const body of bodies(text)) {
          const letterless = flags === '' && at(body, 'bankDetails', 'recipientName') === text && !/\p{L}/u.test(text);
          if (!letterless) expect(client(body), JSON.stringify(text)).toBe(service(body));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
