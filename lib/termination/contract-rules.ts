import type { ContractCondition } from './ports';

/*
 * The rules a contract must meet (docs/decisions/0007-contracts.md). The contracts table belongs
 * to another system; this service reads it only inside its own write (lib/dynamodb), under the
 * condition written here, and judges here what it read, without knowing how it was read.
 */

export const ACTIVE_STATUS = 'ACTIVE';

export type Ownership = { kind: 'not-found' } | { kind: 'access-denied' } | { kind: 'owner' };

export type ContractVerdict =
  Exclude<Ownership, { kind: 'owner' }> | { kind: 'ok' } | { kind: 'not-active' } | { kind: 'date-after-end'; endDate: string };

/**
 * The latest contract end date this service judges; a later one counts as malformed data. The
 * bound is what keeps a 10-character text such as "31.12.2045" from being compared as a date.
 */
export const LATEST_END_DATE = '2999-12-31';

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

/**
 * What the create's write requires of the contract: what judgeContract calls ok, for a contract
 * whose data is well formed. Data it cannot trust fails it, and is then judged below.
 */
export function contractConditionFor(customerId: string, desiredTerminationDate: string): ContractCondition {
  return { customerId, status: ACTIVE_STATUS, earliestEndDate: desiredTerminationDate, latestEndDate: LATEST_END_DATE };
}

/** A real calendar date written YYYY-MM-DD. */
function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
}

/** Whether the caller may see the contract's requests: existence, then ownership. */
export function ownershipOf(contract: Record<string, unknown> | undefined, customerId: string): Ownership {
  if (!contract) return { kind: 'not-found' };
  if (typeof contract['customerId'] !== 'string') throw new MalformedContractError(contract['contractId'], 'customerId is not a string');
  return contract['customerId'] === customerId ? { kind: 'owner' } : { kind: 'access-denied' };
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
  const ownership = ownershipOf(contract, customerId);
  if (ownership.kind !== 'owner') return ownership;
  const { contractId, status, endDate } = contract;
  if (typeof status !== 'string') throw new MalformedContractError(contractId, 'status is not a string');
  if (endDate !== undefined && !isIsoDate(endDate)) throw new MalformedContractError(contractId, 'endDate is not a YYYY-MM-DD date');
  if (typeof endDate === 'string' && endDate > LATEST_END_DATE)
    throw new MalformedContractError(contractId, `endDate is after ${LATEST_END_DATE}`);
  if (status !== ACTIVE_STATUS) return { kind: 'not-active' };
  if (endDate !== undefined && endDate < desiredTerminationDate) return { kind: 'date-after-end', endDate };
  return { kind: 'ok' };
}
