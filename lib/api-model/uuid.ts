/** A UUID of any version, any case. (ajv-formats' own uuid also takes a `urn:uuid:` prefix.) */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
