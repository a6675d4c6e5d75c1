/** The reasons dictionary (D7): the only place the allowed reasonCode values are listed. */
export const REASON_CODES = [
  'RELOCATION',
  'FINANCIAL_HARDSHIP',
  'SERVICE_DISSATISFACTION',
  'BETTER_OFFER_ELSEWHERE',
  'NO_LONGER_NEEDED',
  'OTHER',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/** A reason that needs the customer's own words in `comment` (D6 COMMENT_REQUIRED). */
export const REASON_NEEDING_COMMENT: ReasonCode = 'OTHER';
