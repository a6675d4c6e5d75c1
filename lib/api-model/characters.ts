/*
 * Characters a person's text may not hold (docs/decisions/0009-input-validation.md): control and
 * format characters (zero-width, bidi overrides), line and paragraph separators, private-use
 * code points, unpaired surrogates, and whatever Unicode says to render as nothing (e.g. U+3164).
 * Variation selectors are default-ignorable too, but harmless: they only pick an emoji's look.
 * Line breaks are allowed in a comment only. The API's formats (formats.ts) are these, and the
 * demo page checks a field with the same predicates, so the two cannot drift apart.
 */
export const HIDDEN = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Default_Ignorable_Code_Point}`;
export const VARIATION_SELECTORS = String.raw`\uFE00-\uFE0F`;
export const LINE_BREAKS = String.raw`\n\r\u2028\u2029`;

/** Any number of characters a person's text may hold, line breaks aside. */
const TEXT = String.raw`(?:[${VARIATION_SELECTORS}]|[^${HIDDEN}])*`;
/** The same, line breaks allowed. */
const TEXT_WITH_LINE_BREAKS = String.raw`(?:[${VARIATION_SELECTORS}]|[${LINE_BREAKS}]|[^${HIDDEN}])*`;

/** At least one letter, nothing hidden: a recipient's name. */
export const RECIPIENT_NAME = new RegExp(String.raw`^(?=.*\p{L})${TEXT}$`, 'u');
/** Nothing hidden, but line breaks are allowed: a comment. */
export const CUSTOMER_TEXT = new RegExp(`^${TEXT_WITH_LINE_BREAKS}$`, 'u');

const NO_HIDDEN = new RegExp(`^${TEXT}$`, 'u');

/** Whether a text holds a character the API refuses; line breaks are allowed where `lineBreaksAllowed` says so (a comment). */
export const hasHidden = (value: string, lineBreaksAllowed: boolean): boolean =>
  !(lineBreaksAllowed ? CUSTOMER_TEXT : NO_HIDDEN).test(value);

/** Whether a text holds a letter: a recipient's name must. */
export const hasLetter = (value: string): boolean => /\p{L}/u.test(value);
