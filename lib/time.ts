/* Units of time, for the epoch seconds that records, limits and DynamoDB's TTL count in. */

export const SECONDS_PER_DAY = 86_400;
