import { fullFormats } from 'ajv-formats/dist/formats';
import { UUID_PATTERN } from './uuid';

/**
 * The formats the schemas use: the same object for Ajv at run time (tests) and for the
 * validators generated at build time (the bundles).
 */
export const formats = {
  date: fullFormats.date,
  'date-time': fullFormats['date-time'],
  // Not ajv-formats' uuid: with its `urn:uuid:` prefix, `urn:uuid:<k>` would be another key than `<k>`.
  uuid: UUID_PATTERN,
};
