import { fullFormats } from 'ajv-formats/dist/formats';
import { UUID_PATTERN } from './uuid';

/*
 * Characters a person's text may not hold (docs/decisions/0009-input-validation.md): control and
 * format characters (zero-width, bidi overrides), line and paragraph separators, private-use
 * code points, unpaired surrogates, and whatever Unicode says to render as nothing (e.g. U+3164).
 * Variation selectors are default-ignorable too, but harmless: they only pick an emoji's look.
 * They are formats rather than patterns because they need Unicode property escapes, which some
 * OpenAPI tools compile without Unicode mode; the schemas describe them in words.
 */
const HIDDEN = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Default_Ignorable_Code_Point}`;
const VARIATION_SELECTORS = String.raw`\uFE00-\uFE0F`;

/** At least one letter, nothing hidden. */
export const RECIPIENT_NAME = new RegExp(String.raw`^(?=.*\p{L})(?:[${VARIATION_SELECTORS}]|[^${HIDDEN}])*$`, 'u');
/** Nothing hidden, but line breaks are allowed. */
export const CUSTOMER_TEXT = new RegExp(String.raw`^(?:[${VARIATION_SELECTORS}]|[\n\r\u2028\u2029]|[^${HIDDEN}])*$`, 'u');

/**
 * Text a customer reads that another system wrote: customer text that cannot be taken for markup
 * anywhere it lands. A `<` may not open a tag, a comment or a declaration (a letter, `/`, `!` or
 * `?` after it); "a < b" and "<3" stay allowed.
 */
export const PLAIN_TEXT = new RegExp(String.raw`^(?!.*<[A-Za-z/!?])(?:[${VARIATION_SELECTORS}]|[\n\r\u2028\u2029]|[^${HIDDEN}])*$`, 'su');

/**
 * The formats the schemas use: the same object for Ajv at run time (tests) and for the
 * validators generated at build time (the bundles).
 */
export const formats = {
  date: fullFormats.date,
  'date-time': fullFormats['date-time'],
  // Not ajv-formats' uuid: with its `urn:uuid:` prefix, `urn:uuid:<k>` would be another key than `<k>`.
  uuid: UUID_PATTERN,
  'recipient-name': RECIPIENT_NAME,
  'customer-text': CUSTOMER_TEXT,
  'plain-text': PLAIN_TEXT,
};
