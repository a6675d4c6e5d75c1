import { fullFormats } from 'ajv-formats/dist/formats';
import { CUSTOMER_TEXT, HIDDEN, LINE_BREAKS, RECIPIENT_NAME, VARIATION_SELECTORS } from './characters';
import { UUID_PATTERN } from './uuid';

/*
 * The formats of a person's text are the character rule of characters.ts. They are formats
 * rather than patterns because they need Unicode property escapes, which some OpenAPI tools
 * compile without Unicode mode; the schemas describe them in words.
 */

/**
 * Text a customer reads that another system wrote: customer text that cannot be taken for markup
 * anywhere it lands. A `<` may not open a tag, a comment or a declaration (a letter, `/`, `!` or
 * `?` after it); "a < b" and "<3" stay allowed.
 */
export const PLAIN_TEXT = new RegExp(String.raw`^(?!.*<[A-Za-z/!?])(?:[${VARIATION_SELECTORS}]|[${LINE_BREAKS}]|[^${HIDDEN}])*$`, 'su');

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
