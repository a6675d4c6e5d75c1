import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { MalformedItemError } from '../termination/ports/errors';
import type { LimitCondition, RequestLimit } from '../termination/ports/store';
import type { Item } from './items';
import { limitKeyOf } from './keys';

type Update = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']>;

/*
 * The limit of one customer's requests on one contract, as the create's write checks it
 * (docs/decisions/0020-request-limit.md): one item per contract and customer, in the contract's
 * partition (keys.ts), holding the creation times of the customer's latest `count` requests on
 * it in fixed attributes, t0 the newest. The create's transaction updates it: the times shift
 * by one and t0 takes now, under the condition that the oldest kept time is outside the period.
 * DynamoDB evaluates every right-hand side against the item as it was before the update, so
 * `t1 = if_not_exists(t0, :none)` takes the old t0 (checked on DynamoDB Local:
 * tests/integration/request-limit.test.ts). 0 stands for "no request", which every window
 * start exceeds. The item expires a period after the latest request: by then no time it holds
 * counts any more.
 */

type Put = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Put']>;

/** The record's `kind`; the stream's filter publishes only REQUEST items. */
export const LIMIT_KIND = 'REQUEST_LIMIT';

const timeAttribute = (i: number): string => `t${i}`;

/** The Update of the create's transaction that records this request and holds the customer to the limit. */
export function requestLimitUpdate(tableName: string, contractId: string, customerId: string, limit: LimitCondition): Update {
  const shifts = Array.from({ length: limit.count - 1 }, (_, i) => `${timeAttribute(i + 1)} = if_not_exists(${timeAttribute(i)}, :none)`);
  const oldest = timeAttribute(limit.count - 1);
  return {
    TableName: tableName,
    Key: { ...limitKeyOf(contractId, customerId) },
    // customerId too, besides the key: what the list's one Query filters the caller's own record by (termination-table.ts).
    UpdateExpression: `SET #kind = :kind, customerId = :customerId, expiresAt = :expiresAt, ${[`${timeAttribute(0)} = :now`, ...shifts].join(', ')}`,
    ConditionExpression: `attribute_not_exists(${oldest}) OR ${oldest} <= :windowStart`,
    ExpressionAttributeNames: { '#kind': 'kind' },
    ExpressionAttributeValues: {
      ':kind': LIMIT_KIND,
      ':customerId': customerId,
      // The request counts from its creation rounded up; the window ends at now rounded down (lib/termination/request-limit.ts).
      ':now': limit.countsFrom,
      // Only where a time shifts: DynamoDB refuses a value the expressions do not use (one request allowed shifts none).
      ...(shifts.length > 0 ? { ':none': 0 } : {}),
      ':windowStart': limit.windowStart,
      ':expiresAt': limit.expiresAt,
    },
    // The refused item says when a new request is possible: one call, no read after.
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** The creation times a limit record holds, newest first, up to the first it has none for; undefined for no record. */
export function createdAtSecondsOf(item: Item | undefined, limit: RequestLimit): number[] | undefined {
  return item === undefined ? undefined : timesUpTo(item, limit.count);
}

/** Every creation time a record holds, newest first, however many the setting counts now; none for no record. */
export const everyCreatedAtSecondsOf = (item: Item | undefined): number[] =>
  item === undefined ? [] : timesUpTo(item, Number.POSITIVE_INFINITY);

function timesUpTo(item: Item, count: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const time = item[timeAttribute(i)];
    if (time === undefined || time === 0) break;
    if (typeof time !== 'number' || !Number.isSafeInteger(time)) throw new MalformedItemError(`request limit record: ${timeAttribute(i)}`);
    times.push(time);
  }
  return times;
}

/** A record's expiry; 0 when it has none. */
export const expiryOf = (item: Item | undefined): number => (typeof item?.['expiresAt'] === 'number' ? item['expiresAt'] : 0);

/**
 * The Put of a customer's record on a contract holding exactly `times` (newest first) and
 * `expiresAt`, on condition that the record is as `asRead` found it: absent, or with the same
 * latest time and expiry (limit-record-move.ts, which merges a record kept under the earlier key).
 */
export function limitRecordPut(
  tableName: string,
  contractId: string,
  customerId: string,
  record: { times: readonly number[]; expiresAt: number },
  asRead: Item | undefined,
): Put {
  const latest = timeAttribute(0);
  return {
    TableName: tableName,
    Item: {
      ...limitKeyOf(contractId, customerId),
      kind: LIMIT_KIND,
      customerId,
      expiresAt: record.expiresAt,
      ...Object.fromEntries(record.times.map((time, i) => [timeAttribute(i), time])),
    },
    ...(asRead === undefined
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : {
          ConditionExpression: `${latest} = :latest AND expiresAt = :expiry`,
          ExpressionAttributeValues: { ':latest': everyCreatedAtSecondsOf(asRead)[0] ?? 0, ':expiry': expiryOf(asRead) },
        }),
  };
}
