import { fullFormats } from 'ajv-formats/dist/formats';

/**
 * The formats the schemas use: the same object for Ajv at run time (tests) and for the
 * validators generated at build time (the bundles).
 */
export const formats = {
  date: fullFormats.date,
  'date-time': fullFormats['date-time'],
  // ajv-formats' uuid also takes a `urn:uuid:` prefix, which would make `urn:uuid:<k>` another key than `<k>`.
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};
