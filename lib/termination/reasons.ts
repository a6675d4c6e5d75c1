import type { CallContext } from './call-context';
import { REASON_CODES, type ReasonCode } from '../api-model/schemas';
import type { Refusal } from './refusals';
import { needsComment } from './reason-rules';

/*
 * The reasons a customer may give, from the very list the create's validator takes
 * (REASON_CODES of the API model): the page and the apps read them instead of keeping their
 * own copy. Labels are the edge's, in the caller's language (lib/http/texts.ts).
 */

export interface ReasonRule {
  reasonCode: ReasonCode;
  /** A create with this reason needs the customer's own words (COMMENT_REQUIRED). */
  commentRequired: boolean;
}

export type ReasonsOutcome = { kind: 'reasons'; reasons: ReasonRule[] } | { kind: 'refused'; refusal: Refusal };

/** The reasons, unless the call's headers have problems (a VALIDATION_ERROR, as on every route). */
export function listTerminationReasons(context?: Pick<CallContext, 'problems'>): ReasonsOutcome {
  const problems = context?.problems ?? [];
  if (problems.length > 0) return { kind: 'refused', refusal: { code: 'VALIDATION_ERROR', problems: [...problems] } };
  return {
    kind: 'reasons',
    reasons: REASON_CODES.map((reasonCode) => ({ reasonCode, commentRequired: needsComment(reasonCode) })),
  };
}
