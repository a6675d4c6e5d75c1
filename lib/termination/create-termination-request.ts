import { backoff } from '../backoff';
import { v7 as timeOrderedUuid } from 'uuid';
import { isAccountKeyValid } from './control-key';
import type { ContractVerdict } from './contract-rules';
import type { Problem } from '../api-model/problems';
import type { ReasonCode, TerminationRequest, TerminationRequestInput } from '../api-model/schemas';
import { isUuid, validateTerminationInput } from '../api-model/validator';
import { businessToday, isBeforeBusinessToday } from './business-date';
import { STATUS_SUBMITTED } from './lifecycle';
import { type IdempotencyRecord, type TerminationStore, type WriteOutcome } from './ports';
import { requestFingerprint } from './fingerprint';
import { refuse, RefusedError, type Refusal } from './refusals';
import { newRequestNumber } from './request-number';
import { withinBudget } from './within-budget';

/*
 * Creating a termination request. The rules and their order: docs/decisions/0013-order-of-checks.md;
 * the write: docs/decisions/0005-one-atomic-write.md. This module speaks no HTTP and no language.
 */

/** A reason that needs the customer's own words in `comment`: a letter or digit at least (COMMENT_REQUIRED). */
export const REASON_NEEDING_COMMENT: ReasonCode = 'OTHER';

export interface CreateDeps {
  store: Pick<TerminationStore, 'create' | 'findIdempotencyRecord'>;
  businessTimeZone: string;
  idempotencyTtlSeconds: number;
  /** All DynamoDB work of one invocation, retries included, ends by then as unavailable. */
  budgetMs: number;
  now?: () => Date;
}

/** What the edge read from the call; nothing here is trusted yet except customerId. */
export interface CreateCall {
  customerId: string;
  contractId: string | undefined;
  idempotencyKey: string | undefined;
  body: Record<string, unknown>;
  /** The created request's message; stored with it, so a replay answers with the same bytes. */
  createdMessage: (requestNumber: string) => string;
  /** Field problems the edge already found (e.g. in headers), reported with the body's. */
  edgeProblems: Problem[];
}

export type CreateOutcome =
  | { kind: 'created' | 'replayed'; request: TerminationRequest; refundAccount: string }
  | { kind: 'refused'; refusal: Refusal }
  /** DynamoDB throttled, unreachable or too slow: nothing was written that the caller cannot retry. */
  | { kind: 'unavailable'; cause: unknown };

interface ValidCall {
  customerId: string;
  contractId: string;
  idempotencyKey: string;
  input: TerminationRequestInput;
  fingerprint: string;
  createdMessage: (requestNumber: string) => string;
  /** Set when the only problem is a date before today: a replay may still answer 200. */
  pastDateProblem: Problem | undefined;
}

/** Structure first, listing every problem, with the key's presence checked alone. */
function validateCall(call: CreateCall, timeZone: string, now: Date): ValidCall {
  if (call.idempotencyKey === undefined || call.idempotencyKey.trim() === '') {
    throw refuse('IDEMPOTENCY_KEY_MISSING', [{ field: 'Idempotency-Key', code: 'required' }]);
  }
  const problems: Problem[] = [...call.edgeProblems];
  if (!isUuid(call.contractId)) problems.push({ field: 'contractId', code: 'mustBeUuid' });
  if (!isUuid(call.idempotencyKey)) problems.push({ field: 'Idempotency-Key', code: 'mustBeUuid' });
  const validation = validateTerminationInput(call.body);
  if (!validation.ok) problems.push(...validation.problems);

  const date = call.body['desiredTerminationDate'];
  const pastDateProblem: Problem | undefined =
    typeof date === 'string' && !problems.some((p) => p.field === 'desiredTerminationDate') && isBeforeBusinessToday(date, timeZone, now)
      ? { field: 'desiredTerminationDate', code: 'dateInPast', today: businessToday(timeZone, now) }
      : undefined;

  if (problems.length > 0 || !validation.ok || call.contractId === undefined) {
    throw refuse('VALIDATION_ERROR', pastDateProblem ? [...problems, pastDateProblem] : problems);
  }
  // UUIDs are case-insensitive; lower case is their one form (docs/decisions/0007-contracts.md).
  const contractId = call.contractId.toLowerCase();
  const input = canonicalInput(validation.input);
  return {
    customerId: call.customerId,
    contractId,
    idempotencyKey: call.idempotencyKey.toLowerCase(),
    input,
    fingerprint: requestFingerprint(
      contractId,
      input.documentIds === undefined ? call.body : { ...call.body, documentIds: input.documentIds },
    ),
    createdMessage: call.createdMessage,
    pastDateProblem,
  };
}

function canonicalInput(input: TerminationRequestInput): TerminationRequestInput {
  return input.documentIds === undefined ? input : { ...input, documentIds: input.documentIds.map((id) => id.toLowerCase()) };
}

/** Business rules that need no stored data. */
function staticRuleBreach(input: TerminationRequestInput): RefusedError | undefined {
  if (!isAccountKeyValid(input.bankDetails.bik, input.bankDetails.accountNumber)) {
    return refuse('BANK_ACCOUNT_KEY_MISMATCH', [{ field: 'bankDetails.accountNumber', code: 'accountKeyMismatch' }]);
  }
  if (input.reasonCode === REASON_NEEDING_COMMENT && !/[\p{L}\p{N}]/u.test(input.comment ?? '')) {
    return refuse('COMMENT_REQUIRED', [{ field: 'comment', code: 'commentRequired' }]);
  }
  return undefined;
}

function answerFromRecord(record: IdempotencyRecord, call: ValidCall): CreateOutcome {
  if (record.fingerprint !== call.fingerprint) throw refuse('IDEMPOTENCY_KEY_REUSED', [{ field: 'Idempotency-Key', code: 'keyReused' }]);
  return { kind: 'replayed', request: record.response, refundAccount: call.input.bankDetails.accountNumber };
}

function contractRefusal(verdict: Exclude<ContractVerdict, { kind: 'ok' }>): RefusedError {
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

function refusalOf(outcome: Extract<WriteOutcome, { kind: 'contract' | 'slot-taken' }>): RefusedError {
  if (outcome.kind === 'contract') return contractRefusal(outcome.verdict);
  const { requestNumber } = outcome;
  return refuse(
    'ACTIVE_REQUEST_ALREADY_EXISTS',
    [{ field: 'contractId', code: 'activeRequestExists', ...(requestNumber === undefined ? {} : { requestNumber }) }],
    requestNumber,
  );
}

async function createOrExplain(deps: CreateDeps, call: ValidCall, now: Date, abortSignal: AbortSignal): Promise<CreateOutcome> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (let attempt = 0; ; attempt++) {
    // Time-ordered, so a contract's requests list newest first by their key (keys.ts).
    const requestId = timeOrderedUuid();
    const requestNumber = newRequestNumber();
    const response: TerminationRequest = {
      requestId,
      requestNumber,
      status: STATUS_SUBMITTED,
      createdAt: new Date().toISOString(),
      message: call.createdMessage(requestNumber),
    };
    const outcome = await deps.store.create(
      { ...call, requestId, requestNumber, response, expiresAt: nowSeconds + deps.idempotencyTtlSeconds },
      nowSeconds,
      abortSignal,
    );
    switch (outcome.kind) {
      case 'created':
        return { kind: 'created', request: response, refundAccount: call.input.bankDetails.accountNumber };
      case 'key-used':
        return answerFromRecord(outcome.record, call);
      case 'number-taken':
      case 'retry': {
        // A taken number draws again at once; a conflict waits. The budget's signal ends it as unavailable.
        if (outcome.kind === 'retry') await backoff(attempt, 10, 200, abortSignal);
        else abortSignal.throwIfAborted();
        continue;
      }
      default:
        throw refusalOf(outcome);
    }
  }
}

async function decide(deps: CreateDeps, call: CreateCall, now: Date, abortSignal: AbortSignal): Promise<CreateOutcome> {
  const valid = validateCall(call, deps.businessTimeZone, now);
  const refusal = valid.pastDateProblem ? refuse('VALIDATION_ERROR', [valid.pastDateProblem]) : staticRuleBreach(valid.input);
  if (!refusal) return createOrExplain(deps, valid, now, abortSignal);
  // The key decides first: an accepted call replays even if its date has passed since, and a key
  // reused with another body is IDEMPOTENCY_KEY_REUSED whatever else is wrong.
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const record = await deps.store.findIdempotencyRecord(valid.customerId, valid.idempotencyKey, nowSeconds, abortSignal);
  if (record) return answerFromRecord(record, valid);
  throw refusal;
}

/** The whole use case: validate, apply the rules in order, write once. Anything else it throws is a bug. */
export async function createTerminationRequest(deps: CreateDeps, call: CreateCall): Promise<CreateOutcome> {
  return withinBudget(deps.budgetMs, (abortSignal) => decide(deps, call, deps.now?.() ?? new Date(), abortSignal));
}
