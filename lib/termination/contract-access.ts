import { ownershipOf } from './contract-rules';
import type { TerminationStore } from './ports';
import { refuse, type RefusedError } from './refusals';

/**
 * The contract's 404 or 403 when the caller may not see it, else nothing: what a read or a
 * withdrawal answers when the request is not the caller's (0015-reading-requests.md).
 */
export async function contractRefusal(
  store: Pick<TerminationStore, 'findContract'>,
  contractId: string,
  customerId: string,
  abortSignal: AbortSignal,
): Promise<RefusedError | undefined> {
  const ownership = ownershipOf(await store.findContract(contractId, abortSignal), customerId);
  if (ownership === 'not-found') return refuse('CONTRACT_NOT_FOUND', [{ field: 'contractId', code: 'contractNotFound' }]);
  if (ownership === 'access-denied') return refuse('CONTRACT_ACCESS_DENIED', [{ field: 'contractId', code: 'contractAccessDenied' }]);
  return undefined;
}
