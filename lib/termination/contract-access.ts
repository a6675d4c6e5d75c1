import { ownershipOf, type ContractVerdict } from './contract-rules';
import type { TerminationStore } from './ports/store';
import { refuse, type Refused } from './refusals';

/** The refusal a contract's verdict answers with (0007-contracts.md): the create's, and the 404 or 403 of the other routes. */
export function contractRefusal(verdict: Exclude<ContractVerdict, { kind: 'ok' }>): Refused {
  switch (verdict.kind) {
    case 'not-found':
      return refuse('CONTRACT_NOT_FOUND', [{ field: 'contractId', code: 'contractNotFound' }]);
    case 'access-denied':
      return refuse('CONTRACT_ACCESS_DENIED', [{ field: 'contractId', code: 'contractAccessDenied' }]);
    case 'not-active':
      return refuse('CONTRACT_NOT_ACTIVE', [{ field: 'contractId', code: 'contractNotActive' }]);
    case 'date-after-end':
      return refuse('TERMINATION_DATE_AFTER_CONTRACT_END', [
        { field: 'desiredTerminationDate', code: 'dateAfterContractEnd', endDate: verdict.endDate },
      ]);
  }
}

/**
 * The contract's 404 or 403 when the caller may not see it, else nothing: what a read or a
 * withdrawal answers when the request is not the caller's (0015-reading-requests.md).
 */
export async function accessRefusal(
  store: Pick<TerminationStore, 'findContract'>,
  contractId: string,
  customerId: string,
  abortSignal: AbortSignal,
): Promise<Refused | undefined> {
  const ownership = ownershipOf(await store.findContract(contractId, abortSignal), customerId);
  return ownership.kind === 'owner' ? undefined : contractRefusal(ownership);
}
