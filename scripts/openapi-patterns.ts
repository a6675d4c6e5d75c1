import { CUSTOMER_TEXT, RECIPIENT_NAME } from '../lib/api-model/characters';

/*
 * The text formats `recipient-name` and `customer-text` (lib/api-model/formats.ts) as `pattern`s,
 * for the API description: tools that do not know the service's own formats read a pattern.
 *
 * The formats are written with Unicode property escapes, which need a regular expression's
 * Unicode mode. JSON Schema 2020-12 reads a pattern in that mode, but many tools compile it
 * without (a generated zod or class-validator check, for one), and there `\p{Cf}` means the
 * letters "p{Cf}": a name would have to hold them. So each pattern here is written to mean the
 * same in both modes:
 *   - the characters of the Basic Multilingual Plane as a class of \uXXXX ranges, which both
 *     modes read alike;
 *   - every other character twice: as a surrogate pair (lead, then trail), which only a pattern
 *     read without Unicode mode can match, and as one code point of `[^\u0000-\uFFFF...]`, which
 *     only one read in Unicode mode can match;
 *   - "at least one letter" (`\p{L}`, hundreds of ranges) only in Unicode mode: without it the
 *     lookahead's `\u{0}` is "u, zero times", which always matches, so the pattern is looser
 *     there, never stricter than the service.
 * The ranges are read off the service's own regular expressions, one code point at a time, so
 * the pattern and the format cannot disagree on a character (tests/generators holds both to it).
 */

const hex = (n: number) => `\\u${n.toString(16).toUpperCase().padStart(4, '0')}`;

/** The runs of consecutive numbers in from..to for which `accepts` holds. */
function runs(accepts: (n: number) => boolean, from: number, to: number): [number, number][] {
  const found: [number, number][] = [];
  for (let n = from; n <= to; n++) {
    if (!accepts(n)) continue;
    const last = found.at(-1);
    if (last && last[1] === n - 1) last[1] = n;
    else found.push([n, n]);
  }
  return found;
}

const characterClass = (ranges: [number, number][]) =>
  `[${ranges.map(([a, b]) => (a === b ? hex(a) : b === a + 1 ? `${hex(a)}${hex(b)}` : `${hex(a)}-${hex(b)}`)).join('')}]`;

/** One character the given single-character test accepts, as a pattern alternative that reads alike in both modes. */
function oneCharacter(accepts: (codePoint: number) => boolean): string {
  const bmp = characterClass(runs((cp) => (cp < 0xd800 || cp > 0xdfff) && accepts(cp), 0, 0xffff));
  // Leads in a row whose trails are the same are written as one class of leads.
  const byLead: { from: number; to: number; trails: string }[] = [];
  for (let lead = 0xd800; lead <= 0xdbff; lead++) {
    const base = 0x10000 + ((lead - 0xd800) << 10);
    const trails = runs((trail) => accepts(base + trail - 0xdc00), 0xdc00, 0xdfff);
    if (trails.length === 0) continue;
    const text = characterClass(trails);
    const last = byLead.at(-1);
    if (last && last.trails === text && last.to === lead - 1) last.to = lead;
    else byLead.push({ from: lead, to: lead, trails: text });
  }
  const pairs = byLead.map(({ from, to, trails }) => `${from === to ? hex(from) : `[${hex(from)}-${hex(to)}]`}${trails}`);
  // In Unicode mode: a code point beyond the BMP, unless hidden (Cc, Zl, Zp and Cs have none there).
  const astral = String.raw`[^\u0000-\uFFFF\p{Cf}\p{Co}\p{Default_Ignorable_Code_Point}]`;
  return `(?:${[bmp, astral, ...pairs].join('|')})`;
}

/** Whether the format's expression takes a text of this one code point (the letter rule aside). */
function characterTest(format: RegExp): (codePoint: number) => boolean {
  return (codePoint) => format.test(`a${String.fromCodePoint(codePoint)}`);
}

let cached: { recipientName: string; customerText: string } | undefined;

/** The two patterns, made once per process (it reads 2 × 1.1 million code points, about a second). */
export function textPatterns(): { recipientName: string; customerText: string } {
  cached ??= {
    recipientName: String.raw`^(?=.*\p{L}|\u{0})${oneCharacter(characterTest(RECIPIENT_NAME))}*$`,
    customerText: `^${oneCharacter(characterTest(CUSTOMER_TEXT))}*$`,
  };
  return cached;
}
