import type { Status } from '../../api-model/schemas';

/** What an erasure may take, which the store's erasing writes are conditioned on (lib/termination/erasure.ts). */
export interface ErasureRules {
  /** The statuses a request may be erased in. */
  erasable: readonly Status[];
  /** Why a request in any other status is left. */
  keptBecause: string;
}
