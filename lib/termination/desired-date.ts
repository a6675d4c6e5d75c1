/*
 * Where the desired termination date may fall: not before today, the business date
 * (business-date.ts; docs/decisions/0013-order-of-checks.md), and not after the contract's end
 * date (docs/decisions/0008-business-rules.md). Dates are YYYY-MM-DD, compared as text. Pure, so
 * that the create and the demo page's own check (web/fields.ts) apply the same two rules.
 */

/** Whether the date is before today. */
export const isBeforeToday = (date: string, today: string): boolean => date < today;

/** Whether the date is after the contract's end date. */
export const isAfterContractEnd = (date: string, endDate: string): boolean => date > endDate;
