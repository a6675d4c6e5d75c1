import type { DocumentCondition } from './ports/store';
import { refuse, type Refused } from './refusals';

/*
 * The documents a create names (docs/decisions/0019-documents.md). The documents service owns
 * its table and writes it; this service only checks it, inside its own write (lib/dynamodb),
 * under the condition written here, so ownership and state hold at the instant of the write.
 */

/** The documents service's status of a document that is stored, has passed its checks and may be attached. */
export const USABLE_DOCUMENT_STATUS = 'UPLOADED';

/** What the create's write requires of every document it names: the caller's, and usable. */
export function documentConditionFor(customerId: string): DocumentCondition {
  return { customerId, status: USABLE_DOCUMENT_STATUS };
}

/**
 * The refusal for the documents that failed the condition, by their place in documentIds. An
 * unknown id, another customer's document and one of the caller's that is not usable all read
 * alike, so the answer tells nothing about other customers' documents.
 */
export function documentsRefusal(positions: readonly number[]): Refused {
  if (positions.length === 0) throw new Error('A documents refusal names no document');
  return refuse(
    'DOCUMENT_NOT_AVAILABLE',
    positions.map((i) => ({ field: `documentIds[${i}]`, code: 'documentNotAvailable' })),
  );
}
