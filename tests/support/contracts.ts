import { randomUUID } from 'node:crypto';
import { DEMO_CUSTOMERS, type Contract } from '../../scripts/local/demo-data';

/** Where a test's contracts go: the contracts table of its own tables. */
export interface ContractsTarget {
  addContracts: (contracts: Contract[]) => Promise<void>;
}

/**
 * A contract of its own for one test (Anna's and active unless told otherwise), so tests never
 * share an active-request slot. Returns its id.
 */
export async function newContract(
  target: ContractsTarget,
  fields: { customerId?: string; status?: string; endDate?: string } = {},
): Promise<string> {
  const contractId = randomUUID();
  await target.addContracts([
    {
      contractId,
      customerId: fields.customerId ?? DEMO_CUSTOMERS.anna.customerId,
      status: fields.status ?? 'ACTIVE',
      ...(fields.endDate ? { endDate: fields.endDate } : {}),
    },
  ]);
  return contractId;
}
