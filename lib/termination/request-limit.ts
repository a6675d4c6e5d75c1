import type { LimitCondition, RequestLimit } from './ports/store';
import type { Refused } from './refusals';
import { SECONDS_PER_DAY } from '../time';

/*
 * How many requests one customer may make on one contract within a rolling period
 * (docs/decisions/0020-request-limit.md). Every request made counts, whatever became of it
 * (withdrawn, rejected, completed); a previous owner's do not. The write keeps the creation
 * times of the caller's latest `count` requests on the contract and refuses a new one while the
 * oldest of them is within the period; this module judges what a refused write found.
 */

/** The most a setting may allow: the write keeps one time per allowed request (lib/dynamodb/request-limit.ts). */
export const MAX_LIMIT_COUNT = 10;

/** The limit's period in seconds: where the write's window starts and when a new request is possible. */
export const periodSecondsOf = (limit: RequestLimit): number => limit.periodDays * SECONDS_PER_DAY;

/**
 * The second a request counts from (epoch seconds): its creation time rounded up, never down.
 * A create is accepted once the whole seconds elapsed since then reach the period, so the first
 * moment accepted is this second plus the period: never earlier than a period after the request
 * itself, and exactly the nextRequestAllowedAt a refusal names.
 */
export const countedFromSeconds = (createdAt: string): number => Math.ceil(Date.parse(createdAt) / 1000);

/**
 * The limit as a create's write checks it at `nowSeconds`, for a request counted from
 * `countsFrom`: the window ends at now (whole seconds), and the record, which the request's time
 * renews, holds nothing that counts a period after it.
 */
export function limitConditionFor(limit: RequestLimit, countsFrom: number, nowSeconds: number): LimitCondition {
  const periodSeconds = periodSecondsOf(limit);
  return { ...limit, windowStart: nowSeconds - periodSeconds, countsFrom, expiresAt: countsFrom + periodSeconds };
}

/**
 * When the caller may make a new request (epoch seconds): `period` after the oldest of their
 * latest `count` requests on the contract; undefined when those times leave room now (the
 * refusal came from times that have passed since, or a record that is no longer there).
 */
export function nextRequestAllowedAt(
  createdAtSeconds: readonly number[] | undefined,
  limit: RequestLimit,
  nowSeconds: number,
): number | undefined {
  const oldest = createdAtSeconds?.[limit.count - 1];
  if (oldest === undefined) return undefined;
  const allowedAt = oldest + periodSecondsOf(limit);
  return allowedAt > nowSeconds ? allowedAt : undefined;
}

/**
 * REQUEST_LIMIT_REACHED: how many, in how many days, and from when a new request is possible,
 * with the bank's business time zone, in which the texts give that time to a reader.
 */
export function limitRefusal(limit: RequestLimit, allowedAtSeconds: number, timeZone: string): Refused {
  const nextRequestAllowedAt = new Date(allowedAtSeconds * 1000).toISOString();
  return {
    kind: 'refused',
    refusal: {
      code: 'REQUEST_LIMIT_REACHED',
      problems: [
        {
          field: 'contractId',
          code: 'requestLimitReached',
          limit: limit.count,
          days: limit.periodDays,
          from: nextRequestAllowedAt,
          timeZone,
        },
      ],
      nextRequestAllowedAt,
      timeZone,
    },
  };
}
