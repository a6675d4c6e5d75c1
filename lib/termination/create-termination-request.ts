import { v7 as timeOrderedUuid } from 'uuid';
import { isAccountKeyValid } from './control-key';
import { CallForm } from './call-form';
import { contractRefusal } from './contract-access';
import { contractConditionFor, judgeContract } from './contract-rules';
import { documentConditionFor, documentsRefusal } from './documents';
import type { Problem } from '../api-model/problems';
import { STATUS_SUBMITTED, type TerminationRequest, type TerminationRequestInput } from '../api-model/schemas';
import { validateTerminationInput } from '../api-model/validator';
import { businessToday, isBeforeBusinessToday } from './business-date';
import type { IdempotencyRecord, RequestLimit, TerminationStore, WriteOutcome } from './ports/store';
import { requestFingerprint } from './fingerprint';
import { erasedKeyRefusal, refuse, type Refusal, type Refused } from './refusals';
import { hasOwnWords, needsComment } from './reason-rules';
import { countedFromSeconds, limitConditionFor, limitRefusal, nextRequestAllowedAt } from './request-limit';
import { newRequestNumber } from './request-number';
import { withinBudget } from './within-budget';
import type { CallContext, Messages } from './call-context';
import { AGAIN, AGAIN_AT_ONCE, RETRY, retrying, triesBy, type Again } from '../retry';

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
  /** The edge's problems, reported with the body's; the created request's message; the time left. */
  context: CallContext;
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
  createdMessage: Messages['created'];
  /** Set when the only problem is a date before today: a replay may still answer 200. */
  pastDateProblem: Problem | undefined;
}

/** The key's presence alone, then every problem of the form at once (0013-order-of-checks.md, steps 4 and 5). */
function validateCall(call: CreateCall, timeZone: string, now: Date): ValidCall | Refused {
  const form = CallForm.ofWrite(call);
  if (!(form instanceof CallForm)) return form;
  const contractId = form.uuid(call.contractId, 'contractId');
  const idempotencyKey = form.uuid(call.idempotencyKey, 'Idempotency-Key');
  const validation = validateTerminationInput(call.body);
  if (!validation.ok) form.add(...validation.problems);

  const date = call.body['desiredTerminationDate'];
  const pastDateProblem: Problem | undefined =
    typeof date === 'string' && !form.concerns('desiredTerminationDate') && isBeforeBusinessToday(date, timeZone, now)
      ? { field: 'desiredTerminationDate', code: 'dateInPast', today: businessToday(timeZone, now) }
      : undefined;

  if (!validation.ok || form.failed) return pastDateProblem ? form.refusal(pastDateProblem) : form.refusal();
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
    createdMessage: call.context.messages.created,
    pastDateProblem,
  };
}

function canonicalInput(input: TerminationRequestInput): TerminationRequestInput {
  return input.documentIds === undefined ? input : { ...input, documentIds: input.documentIds.map((id) => id.toLowerCase()) };
}

/** Business rules that need no stored data. */
function staticRuleBreach(input: TerminationRequestInput): Refused | undefined {
  if (!isAccountKeyValid(input.bankDetails.bik, input.bankDetails.accountNumber)) {
    return refuse('BANK_ACCOUNT_KEY_MISMATCH', [{ field: 'bankDetails.accountNumber', code: 'accountKeyMismatch' }]);
  }
  if (needsComment(input.reasonCode) && !hasOwnWords(input.comment)) {
    return refuse('COMMENT_REQUIRED', [{ field: 'comment', code: 'commentRequired' }]);
  }
  return undefined;
}

function answerFromRecord(record: IdempotencyRecord, call: ValidCall): CreateOutcome {
  if (record.fingerprint !== call.fingerprint) return refuse('IDEMPOTENCY_KEY_REUSED', [{ field: 'Idempotency-Key', code: 'keyReused' }]);
  return { kind: 'replayed', request: record.response, refundAccount: call.input.bankDetails.accountNumber };
}

/**
 * What a write that did not go through means (0005-one-atomic-write.md): a replay or one of the
 * refusals, or another attempt: at once with a new number, or after a pause when the cause has
 * gone by now (a race that resolved itself) or another write got in the way. It returns every
 * answer; it throws only on a bug (a contract the condition refused that the rules accept).
 */
function meaningOf(
  outcome: Exclude<WriteOutcome, { kind: 'created' }>,
  call: ValidCall,
  limit: RequestLimit,
  nowSeconds: number,
  timeZone: string,
): CreateOutcome | Again {
  switch (outcome.kind) {
    case 'key-taken':
      return outcome.record ? answerFromRecord(outcome.record, call) : AGAIN;
    case 'key-erased':
      return erasedKeyRefusal(outcome.fingerprint, call.fingerprint);
    case 'contract-condition-failed': {
      const verdict = judgeContract(outcome.contract, call.customerId, call.input.desiredTerminationDate);
      if (verdict.kind !== 'ok') return contractRefusal(verdict);
      // The very item the condition refused looks fine to us: not a race but a rule we do not know.
      if (!outcome.readAfter) throw new Error('Contract condition failed on a contract judged acceptable');
      return AGAIN;
    }
    case 'slot-taken': {
      if (outcome.holder === undefined) return AGAIN;
      // Another customer's request (the contract changed owner) is not named to the caller.
      const requestNumber = outcome.holder.customerId === call.customerId ? outcome.holder.requestNumber : undefined;
      return refuse(
        'ACTIVE_REQUEST_ALREADY_EXISTS',
        [{ field: 'contractId', code: 'activeRequestExists', ...(requestNumber === undefined ? {} : { requestNumber }) }],
        requestNumber,
      );
    }
    case 'number-taken':
      // A taken number draws again at once.
      return AGAIN_AT_ONCE;
    case 'documents-refused':
      return documentsRefusal(outcome.positions);
    case 'limit-reached': {
      const allowedAt = nextRequestAllowedAt(outcome.createdAtSeconds, limit, nowSeconds);
      // Times that leave room by now (a read after the refusal found them moved on): try again.
      if (allowedAt === undefined) return AGAIN;
      return limitRefusal(limit, allowedAt, timeZone);
    }
    case 'conflict':
      return AGAIN;
  }
}

/** Writes the request, tried again (lib/retry.ts) until it decides or the budget's signal ends it as unavailable. */
function createOrExplain(deps: CreateDeps, call: ValidCall, now: Date, abortSignal: AbortSignal): Promise<CreateOutcome> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return retrying<CreateOutcome>(triesBy(RETRY.write, abortSignal), async () => {
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
        limit: limitConditionFor(deps.requestLimit, countedFromSeconds(response.createdAt), nowSeconds),
      },
      nowSeconds,
      abortSignal,
    );
    if (outcome.kind === 'created') return { kind: 'created', request: response, refundAccount: call.input.bankDetails.accountNumber };
    return meaningOf(outcome, call, deps.requestLimit, nowSeconds, deps.businessTimeZone);
  });
}

async function decide(deps: CreateDeps, call: CreateCall, now: Date, abortSignal: AbortSignal): Promise<CreateOutcome> {
  const valid = validateCall(call, deps.businessTimeZone, now);
  if ('kind' in valid) return valid;
  const refusal = valid.pastDateProblem ? refuse('VALIDATION_ERROR', [valid.pastDateProblem]) : staticRuleBreach(valid.input);
  if (!refusal) return createOrExplain(deps, valid, now, abortSignal);
  // The key decides first: an accepted call replays even if its date has passed since, and a key
  // reused with another body is IDEMPOTENCY_KEY_REUSED whatever else is wrong.
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const record = await deps.store.findIdempotencyRecord(valid.customerId, valid.idempotencyKey, nowSeconds, abortSignal);
  if (record) return answerFromRecord(record, valid);
  return refusal;
}

/** The whole use case: validate, apply the rules in order, write once. Anything else it throws is a bug. */
export async function createTerminationRequest(deps: CreateDeps, call: CreateCall): Promise<CreateOutcome> {
  return withinBudget(deps.budgetMs, call.context.invocation, (abortSignal) => decide(deps, call, deps.now?.() ?? new Date(), abortSignal));
}
