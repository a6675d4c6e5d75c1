import type { ReasonCode } from '../api-model/schemas';

/*
 * What a reason asks of the request besides its code: the one home of "OTHER needs a comment".
 * The create applies it (COMMENT_REQUIRED); the reasons dictionary tells the apps of it.
 */

/** A reason that needs the customer's own words in `comment`. */
export const REASON_NEEDING_COMMENT: ReasonCode = 'OTHER';

/** Whether a create with this reason needs a comment in the customer's own words. */
export const needsComment = (reasonCode: ReasonCode): boolean => reasonCode === REASON_NEEDING_COMMENT;

/** A comment in the customer's own words: a letter or a digit at least. */
export const hasOwnWords = (comment: string | undefined): boolean => /[\p{L}\p{N}]/u.test(comment ?? '');
