import { backoff } from '../backoff';
import { v7 as timeOrderedUuid } from 'uuid';
import { isAccountKeyValid } from './control-key';
import { CallForm, requireKey } from './call-form';
import { contractRefusal } from './contract-access';
import { contractConditionFor, judgeContract } from './contract-rules';
import { documentConditionFor, documentsRefusal } from './documents';
import type { Problem } from '../api-model/problems';
import type { TerminationRequest, TerminationRequestInput } from '../api-model/schemas';
import { validateTerminationInput } from '../api-model/validator';
import { businessToday, isBeforeBusinessToday } from './business-date';
import { STATUS_SUBMITTED } from './lifecycle';
import { type IdempotencyRecord, type RequestLimit, type TerminationStore, type WriteOutcome } from './ports';
import { requestFingerprint } from './fingerprint';
import { erasedKeyRefusal, refuse, RefusedError, type Refusal } from './refusals';
import { hasOwnWords, needsComment } from './reason-rules';
import { limitRefusal, nextRequestAllowedAt } from './request-limit';
import { newRequestNumber } from './request-number';
import { withinBudget } from './within-budget';

/*
 * Creating a termination request. The rules and their order: docs/decisions/0013-order-of-checks.md;
 * the write: docs/decisions/0005-one-atomic-write.md. This module speaks no HTTP and no language.
 */

export interface CreateDeps {
  store: Pick<TerminationStore, 'create' | 'findIdempotencyRecord'>;
  businessTimeZone: string;
  idempotencyTtlSeconds: number;
  /** How many requests one customer may make on one contract, in how many days (0020-request-limit.md). */
  requestLimit: RequestLimit;
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

/** The key's presence alone, then every problem of the form at once (0013-order-of-checks.md, steps 4 and 5). */
function validateCall(call: CreateCall, timeZone: string, now: Date): ValidCall {
  requireKey(call.idempotencyKey);
  const form = new CallForm(call.edgeProblems);
  const contractId = form.uuid(call.contractId, 'contractId');
  const idempotencyKey = form.uuid(call.idempotencyKey, 'Idempotency-Key');
  const validation = validateTerminationInput(call.body);
  if (!validation.ok) form.add(...validation.problems);

  const date = call.body['desiredTerminationDate'];
  const pastDateProblem: Problem | undefined =
    typeof date === 'string' && !form.concerns('desiredTerminationDate') && isBeforeBusinessToday(date, timeZone, now)
      ? { field: 'desiredTerminationDate', code: 'dateInPast', today: businessToday(timeZone, now) }
      : undefined;

  if (!validation.ok || form.failed) throw pastDateProblem ? form.refusal(pastDateProblem) : form.refusal();
  const input = canonicalInput(validation.input);
  return {
    customerId: call.customerId,
    contractId,
    idempotencyKey,
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
  if (needsComment(input.reasonCode) && !hasOwnWords(input.comment)) {
    return refuse('COMMENT_REQUIRED', [{ field: 'comment', code: 'commentRequired' }]);
  }
  return undefined;
}

function answerFromRecord(record: IdempotencyRecord, call: ValidCall): CreateOutcome {
  if (record.fingerprint !== call.fingerprint) throw refuse('IDEMPOTENCY_KEY_REUSED', [{ field: 'Idempotency-Key', code: 'keyReused' }]);
  return { kind: 'replayed', request: record.response, refundAccount: call.input.bankDetails.accountNumber };
}

/**
 * What a write that did not go through means (0005-one-atomic-write.md): a replay or one of the
 * refusals, or another attempt: at once with a new number, or after a pause when the cause has
 * gone by now (a race that resolved itself) or another write got in the way.
 */
function meaningOf(
  outcome: Exclude<WriteOutcome, { kind: 'created' }>,
  call: ValidCall,
  limit: RequestLimit,
  nowSeconds: number,
): CreateOutcome | 'new-number' | 'again' {
  switch (outcome.kind) {
    case 'key-taken':
      return outcome.record ? answerFromRecord(outcome.record, call) : 'again';
    case 'key-erased':
      throw erasedKeyRefusal(outcome.fingerprint, call.fingerprint);
    case 'contract-condition-failed': {
      const verdict = judgeContract(outcome.contract, call.customerId, call.input.desiredTerminationDate);
      if (verdict.kind !== 'ok') throw contractRefusal(verdict);
      // The very item the condition refused looks fine to us: not a race but a rule we do not know.
      if (!outcome.readAfter) throw new Error('Contract condition failed on a contract judged acceptable');
      return 'again';
    }
    case 'slot-taken': {
      if (outcome.holder === undefined) return 'again';
      // Another customer's request (the contract changed owner) is not named to the caller.
      const requestNumber = outcome.holder.customerId === call.customerId ? outcome.holder.requestNumber : undefined;
      throw refuse(
        'ACTIVE_REQUEST_ALREADY_EXISTS',
        [{ field: 'contractId', code: 'activeRequestExists', ...(requestNumber === undefined ? {} : { requestNumber }) }],
        requestNumber,
      );
    }
    case 'number-taken':
      return 'new-number';
    case 'documents-refused':
      throw documentsRefusal(outcome.positions);
    case 'limit-reached': {
      const allowedAt = nextRequestAllowedAt(outcome.createdAtSeconds, limit, nowSeconds);
      // Times that leave room by now (a read after the refusal found them moved on): try again.
      if (allowedAt === undefined) return 'again';
      throw limitRefusal(limit, allowedAt);
    }
    case 'conflict':
      return 'again';
  }
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
      createdAt: now.toISOString(),
      message: call.createdMessage(requestNumber),
    };
    const outcome = await deps.store.create(
      {
        ...call,
        requestId,
        requestNumber,
        response,
        expiresAt: nowSeconds + deps.idempotencyTtlSeconds,
        contract: contractConditionFor(call.customerId, call.input.desiredTerminationDate),
        documents: documentConditionFor(call.customerId),
        limit: deps.requestLimit,
      },
      nowSeconds,
      abortSignal,
    );
    if (outcome.kind === 'created') return { kind: 'created', request: response, refundAccount: call.input.bankDetails.accountNumber };
    const meaning = meaningOf(outcome, call, deps.requestLimit, nowSeconds);
    if (typeof meaning !== 'string') return meaning;
    // A taken number draws again at once; anything else waits. The budget's signal ends it as unavailable.
    if (meaning === 'again') await backoff(attempt, 10, 200, abortSignal);
    else abortSignal.throwIfAborted();
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
