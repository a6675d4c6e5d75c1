import { isAfterContractEnd } from './desired-date';
import type { ContractCondition } from './ports/store';

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
 * What the create's write requires of the contract: the caller's, ACTIVE, and an end date the
 * condition inside the write can check (meetsCondition).
 */
export function contractConditionFor(customerId: string, desiredTerminationDate: string): ContractCondition {
  return { customerId, status: ACTIVE_STATUS, earliestEndDate: desiredTerminationDate, latestEndDate: LATEST_END_DATE };
}

/** Text ordered as DynamoDB orders it: by its UTF-8 bytes. */
const compareText = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The one statement of the condition a create's write puts on the contract: the customer's, in
 * the status, and no endDate, or an endDate that is a text of 10 characters between the two
 * bounds, compared by its UTF-8 bytes as DynamoDB compares text. Characters are counted as
 * DynamoDB Local's size() counts them, in UTF-16 units (JavaScript's length); for ASCII, and so
 * for every date, all counts agree. Its DynamoDB form (lib/dynamodb/contract-condition.ts) is a
 * second copy on purpose, so that a create costs one call;
 * tests/integration/contract-condition.test.ts holds the two to the same verdict over generated
 * contracts. A check inside a write cannot read a date's shape, so a text such as 2030/07/01
 * within the bounds passes it, compared as text.
 */
export function meetsCondition(contract: Record<string, unknown> | undefined, condition: ContractCondition): boolean {
  if (contract?.['customerId'] !== condition.customerId || contract['status'] !== condition.status) return false;
  const endDate = contract['endDate'];
  return (
    endDate === undefined ||
    (typeof endDate === 'string' &&
      endDate.length === 10 &&
      compareText(endDate, condition.earliestEndDate) >= 0 &&
      compareText(endDate, condition.latestEndDate) <= 0)
  );
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
 * ownership (so nothing about another customer's contract leaks), then state, then end date. A
 * contract is ok exactly when it meets the write's condition; one that does not is never judged
 * on data of the wrong type or format: MalformedContractError (a 500).
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
  if (meetsCondition(contract, contractConditionFor(customerId, desiredTerminationDate))) return { kind: 'ok' };
  if (endDate !== undefined && !isIsoDate(endDate)) throw new MalformedContractError(contractId, 'endDate is not a YYYY-MM-DD date');
  if (typeof endDate === 'string' && endDate > LATEST_END_DATE)
    throw new MalformedContractError(contractId, `endDate is after ${LATEST_END_DATE}`);
  if (status !== ACTIVE_STATUS) return { kind: 'not-active' };
  if (endDate !== undefined && isAfterContractEnd(desiredTerminationDate, endDate)) return { kind: 'date-after-end', endDate };
  return { kind: 'ok' };
}
