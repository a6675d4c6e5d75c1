import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

type ConditionCheck = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['ConditionCheck']>;

/*
 * The contracts table belongs to another system (docs/decisions/0007-contracts.md); this service only reads it, and only
 * inside its own transaction, so ownership and state are checked at the instant of the write.
 */

export interface Contract {
  contractId: string;
  customerId: string;
  status: string;
  endDate?: string;
}

export const ACTIVE_STATUS = 'ACTIVE';

export type ContractVerdict =
  { kind: 'ok' } | { kind: 'not-found' } | { kind: 'access-denied' } | { kind: 'not-active' } | { kind: 'date-after-end'; endDate: string };

/**
 * The latest contract end date this service judges; a later one counts as malformed data. The
 * bound is what keeps a 10-character text such as "31.12.2045" from being compared as a date.
 */
const LATEST_END_DATE = '2999-12-31';

/**
 * The ConditionCheck that lets the write go through only for an active contract of this
 * customer whose end date, if any, is not before the desired date. An end date that is not a
 * 10-character string between the desired date and 2999-12-31 fails it, so a malformed one
 * (a number, NULL, "31.12.2045") reaches judgeContract instead of being compared as text.
 * Two comparisons, not BETWEEN: DynamoDB refuses a BETWEEN whose lower bound is above its upper
 * one, which any desired date above the upper bound would make (a 500 any customer could cause).
 */
export function contractConditionCheck(
  tableName: string,
  contractId: string,
  customerId: string,
  desiredTerminationDate: string,
): ConditionCheck {
  return {
    TableName: tableName,
    Key: { contractId },
    ConditionExpression:
      'attribute_exists(contractId) AND customerId = :customerId AND #status = :active AND ' +
      '(attribute_not_exists(endDate) OR (attribute_type(endDate, :string) AND size(endDate) = :dateLength AND endDate >= :desired AND endDate <= :latest))',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':customerId': customerId,
      ':active': ACTIVE_STATUS,
      ':desired': desiredTerminationDate,
      ':latest': LATEST_END_DATE,
      ':string': 'S',
      ':dateLength': 10,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** Contract data this service cannot judge: a bug of the system that owns the table, never compared. */
export class MalformedContractError extends Error {
  constructor(
    readonly contractId: unknown,
    readonly problem: string,
  ) {
    super(`Malformed contract ${String(contractId)}: ${problem}`);
    this.name = 'MalformedContractError';
  }
}

/** A real calendar date written YYYY-MM-DD. */
function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
}

/**
 * Why the contract refuses the request, in the order a client should learn it: existence, then
 * ownership (so nothing about another customer's contract leaks), then state, then end date.
 * Data of the wrong type or format is never compared: MalformedContractError (a 500).
 */
export function judgeContract(
  contract: Record<string, unknown> | undefined,
  customerId: string,
  desiredTerminationDate: string,
): ContractVerdict {
  if (!contract) return { kind: 'not-found' };
  const { contractId, status, endDate } = contract;
  if (typeof contract['customerId'] !== 'string') throw new MalformedContractError(contractId, 'customerId is not a string');
  if (contract['customerId'] !== customerId) return { kind: 'access-denied' };
  if (typeof status !== 'string') throw new MalformedContractError(contractId, 'status is not a string');
  if (endDate !== undefined && !isIsoDate(endDate)) throw new MalformedContractError(contractId, 'endDate is not a YYYY-MM-DD date');
  if (typeof endDate === 'string' && endDate > LATEST_END_DATE)
    throw new MalformedContractError(contractId, `endDate is after ${LATEST_END_DATE}`);
  if (status !== ACTIVE_STATUS) return { kind: 'not-active' };
  if (endDate !== undefined && endDate < desiredTerminationDate) return { kind: 'date-after-end', endDate };
  return { kind: 'ok' };
}

/** Whether the caller may see the contract's requests: the same 404/403 rules as a create. */
export function ownershipOf(contract: Record<string, unknown> | undefined, customerId: string): 'not-found' | 'access-denied' | 'owner' {
  if (!contract) return 'not-found';
  if (typeof contract['customerId'] !== 'string') throw new MalformedContractError(contract['contractId'], 'customerId is not a string');
  return contract['customerId'] === customerId ? 'owner' : 'access-denied';
}
