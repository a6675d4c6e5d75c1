/*
 * How long a request's personal data is kept (docs/decisions/0021-retention.md): for the
 * retention period, counted from the moment the request became final. The write that makes it
 * final sets the time on the request item, and DynamoDB's TTL deletes the item after it. A
 * request still active has none: it never expires.
 */

/** Epoch seconds after which a request that became final at `finalAt` may be deleted. */
export const retainedUntil = (finalAt: Date, retentionSeconds: number): number => Math.floor(finalAt.getTime() / 1000) + retentionSeconds;
