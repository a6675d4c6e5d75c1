import { at } from './json';

/*
 * A WAF rule's text transformations applied as AWS WAF documents them ("Text transformations" in
 * the AWS WAF Developer Guide), in Priority order, lowest first: for the tests that read the
 * WAF's rules from the packaged template and say what it does with a header. Only the
 * transformations the template uses are written here; any other throws, naming itself, so a new
 * one is never guessed.
 */

/** The characters COMPRESS_WHITE_SPACE turns into a space: \f, \t, \n, \r, \v and the non-breaking space (decimal 160). */
const WHITE_SPACE = /[\f\t\n\r\v\u00a0]/g;

const TRANSFORMATIONS: Record<string, (text: string) => string> = {
  NONE: (text) => text,
  // Uppercase letters (A-Z) to lowercase (a-z); nothing else changes.
  LOWERCASE: (text) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase()),
  // Those characters to a space, then every run of spaces to one.
  COMPRESS_WHITE_SPACE: (text) => text.replace(WHITE_SPACE, ' ').replace(/ {2,}/g, ' '),
};

/** The value after a rule's TextTransformations list (as the template holds it). */
export function transformed(value: string, transformations: unknown): string {
  const list = Array.isArray(transformations) ? [...transformations] : [];
  if (list.length === 0) throw new Error('A WAF field takes at least one text transformation');
  list.sort((a, b) => Number(at(a, 'Priority')) - Number(at(b, 'Priority')));
  return list.reduce<string>((text, transformation) => {
    const type = String(at(transformation, 'Type'));
    const apply = TRANSFORMATIONS[type];
    if (apply === undefined) throw new Error(`The WAF transformation ${type} is not written in tests/support/waf-transformations.ts`);
    return apply(text);
  }, value);
}
