/** A problem code whose text needs no values. */
type NoParams = object;

/** The values each problem's text needs, by problem code. */
interface ProblemParams {
  required: NoParams;
  unknownField: NoParams;
  customerIdForbidden: NoParams;
  mustBeUuid: NoParams;
  mustBeString: NoParams;
  mustBeObject: NoParams;
  mustBeArray: NoParams;
  notInDictionary: { allowed: readonly string[] };
  date: NoParams;
  dateInPast: { today: string };
  digits: { limit: number };
  recipientName: NoParams;
  commentText: NoParams;
  maxLength: { limit: number };
  maxItems: { limit: number };
  duplicate: NoParams;
  invalid: NoParams;
  contractNotFound: NoParams;
  contractAccessDenied: NoParams;
  contractNotActive: NoParams;
  dateAfterContractEnd: { endDate: string };
  accountKeyMismatch: NoParams;
  commentRequired: NoParams;
  keyReused: NoParams;
  /** No number when the active request is another customer's (a contract that changed owner). */
  activeRequestExists: { requestNumber?: string };
  notJson: NoParams;
  notObject: NoParams;
  contentType: NoParams;
  /** application/json with a charset parameter that is not UTF-8. */
  charsetNotUtf8: NoParams;
  tooLarge: { limit: number };
  /** A body sent to a call that takes none (the withdrawal). */
  bodyNotAllowed: NoParams;
  bearerTokenRequired: NoParams;
  requestNotFound: NoParams;
  /** A withdrawal of a request the bank has moved on (or that is final): its status now. */
  notWithdrawable: { status: string };
  range: { min: number; max: number };
  /** A documentIds item that is not one of the caller's usable documents (unknown, another's, or not usable alike). */
  documentNotAvailable: NoParams;
  /** The caller's requests on the contract reached `limit` in `days`; a new one is possible `from` (ISO 8601 UTC). */
  requestLimitReached: { limit: number; days: number; from: string };
}

export type ProblemCode = keyof ProblemParams;

export type ProblemOf<C extends ProblemCode> = { field: string; code: C } & ProblemParams[C];

/**
 * What is wrong with one field, said without words: a code and the values a text needs. The
 * edge (lib/http/texts.ts) turns each into English or Russian; nothing below it knows a language.
 * `field` is the path as the client wrote it: `bankDetails.bik`, `documentIds[3]`, `Idempotency-Key`.
 */
export type Problem = { [C in ProblemCode]: ProblemOf<C> }[ProblemCode];
