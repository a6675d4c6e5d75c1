/*
 * Patterns of values the service writes, written out here rather than taken from lib/, so a
 * test that uses them checks the service against the rule, not against itself.
 */

/** A UUID as a client may write it: either case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID as the service makes one (requestId, a correlation id it made up): lower case. */
export const SERVICE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An instant in UTC with milliseconds, as Date.toISOString writes it (createdAt). */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
