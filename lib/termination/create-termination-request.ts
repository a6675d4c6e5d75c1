import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAccountKeyValid } from '../banking/control-key';
import {
  ActiveRequestExistsError,
  ApiError,
  BusinessRuleError,
  ContractAccessDeniedError,
  ContractNotFoundError,
  ServiceUnavailableError,
  ValidationError,
} from '../http/errors';
import type { Texts } from '../http/texts';
import { isDynamoDbUnavailable } from '../storage/dynamodb-client';
import { isUuid, validateTerminationInput } from '../validation/validator';
import type { ErrorDetail, TerminationRequest, TerminationRequestInput } from '../validation/schemas';
import { businessToday, isBeforeBusinessToday } from './business-date';
import { requestFingerprint } from './fingerprint';
import { REASON_NEEDING_COMMENT } from './reasons';
import { newRequestNumber } from './request-number';
import { STATUS_SUBMITTED, type IdempotencyRecord, type TerminationStore, type WriteOutcome } from './termination-store';

export interface CreateDeps {
  store: TerminationStore;
  businessTimeZone: string;
  idempotencyTtlSeconds: number;
  /** All DynamoDB work of one invocation, retries included, ends by then with a 503 (D9). */
  budgetMs: number;
  now?: () => Date;
}

/** What the handler read from the event; nothing here is trusted yet except customerId. */
export interface CreateCall {
  customerId: string;
  contractId: string | undefined;
  idempotencyKey: string | undefined;
  body: Record<string, unknown>;
  texts: Texts;
  /** Problems the handler already found in headers (e.g. X-Correlation-Id). */
  headerProblems: ErrorDetail[];
}

export interface CreateResult {
  statusCode: 200 | 201;
  request: TerminationRequest;
  replayed: boolean;
  /** The refund account of the call, for the caller to log masked. */
  accountNumber: string;
}

interface ValidCall {
  customerId: string;
  contractId: string;
  contractLookupId: string;
  idempotencyKey: string;
  input: TerminationRequestInput;
  fingerprint: string;
  /** Set when the only problem is a date before today: a replay may still answer 200 (D2). */
  pastDateProblem: ErrorDetail | undefined;
}

/** D2 and D7: structure first, listing every problem, with the key's presence checked alone. */
function validateCall(call: CreateCall, timeZone: string, now: Date): ValidCall {
  const { texts } = call;
  if (call.idempotencyKey === undefined || call.idempotencyKey.trim() === '')
    throw new ApiError('IDEMPOTENCY_KEY_MISSING', [{ field: 'Idempotency-Key', reason: texts.reason.required }]);
  const details: ErrorDetail[] = [...call.headerProblems];
  if (!isUuid(call.contractId)) details.push({ field: 'contractId', reason: texts.reason.mustBeUuid });
  if (!isUuid(call.idempotencyKey)) details.push({ field: 'Idempotency-Key', reason: texts.reason.mustBeUuid });
  const validation = validateTerminationInput(call.body, texts);
  if (!validation.ok) details.push(...validation.details);

  const date = call.body['desiredTerminationDate'];
  const pastDateProblem =
    typeof date === 'string' && !details.some((d) => d.field === 'desiredTerminationDate') && isBeforeBusinessToday(date, timeZone, now)
      ? { field: 'desiredTerminationDate', reason: texts.reason.dateInPast(businessToday(timeZone, now)) }
      : undefined;

  if (details.length > 0 || !validation.ok || call.contractId === undefined) {
    throw new ValidationError(pastDateProblem ? [...details, pastDateProblem] : details);
  }
  const contractId = call.contractId.toLowerCase();
  return {
    customerId: call.customerId,
    contractId,
    contractLookupId: call.contractId,
    idempotencyKey: call.idempotencyKey.toLowerCase(),
    input: validation.input,
    fingerprint: requestFingerprint(contractId, call.body),
    pastDateProblem,
  };
}

/** Business rules that need no stored data (D6). */
function staticRuleBreach(input: TerminationRequestInput, texts: Texts): BusinessRuleError | undefined {
  if (!isAccountKeyValid(input.bankDetails.bik, input.bankDetails.accountNumber)) {
    return new BusinessRuleError('BANK_ACCOUNT_KEY_MISMATCH', {
      field: 'bankDetails.accountNumber',
      reason: texts.reason.accountKeyMismatch,
    });
  }
  if (input.reasonCode === REASON_NEEDING_COMMENT && (input.comment ?? '').trim() === '') {
    return new BusinessRuleError('COMMENT_REQUIRED', { field: 'comment', reason: texts.reason.commentRequired });
  }
  return undefined;
}

function answerFromRecord(record: IdempotencyRecord, call: ValidCall, texts: Texts): CreateResult {
  if (record.fingerprint !== call.fingerprint) {
    throw new BusinessRuleError('IDEMPOTENCY_KEY_REUSED', { field: 'Idempotency-Key', reason: texts.reason.keyReused });
  }
  return { statusCode: 200, request: record.response, replayed: true, accountNumber: call.input.bankDetails.accountNumber };
}

function refusal(outcome: Exclude<WriteOutcome, { kind: 'created' | 'key-used' | 'number-taken' | 'retry' }>, texts: Texts): ApiError {
  const r = texts.reason;
  if (outcome.kind === 'slot-taken') {
    return new ActiveRequestExistsError(outcome.requestNumber, {
      field: 'contractId',
      reason: r.activeRequestExists(outcome.requestNumber),
    });
  }
  const verdict = outcome.verdict;
  switch (verdict.kind) {
    case 'not-found':
      return new ContractNotFoundError({ field: 'contractId', reason: r.contractNotFound });
    case 'access-denied':
      return new ContractAccessDeniedError({ field: 'contractId', reason: r.contractAccessDenied });
    case 'not-active':
      return new BusinessRuleError('CONTRACT_NOT_ACTIVE', { field: 'contractId', reason: r.contractNotActive });
    case 'date-after-end':
      return new BusinessRuleError('TERMINATION_DATE_AFTER_CONTRACT_END', {
        field: 'desiredTerminationDate',
        reason: r.dateAfterContractEnd(verdict.endDate),
      });
  }
}

async function createOrExplain(
  deps: CreateDeps,
  call: ValidCall,
  texts: Texts,
  now: Date,
  abortSignal: AbortSignal,
): Promise<CreateResult> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (let attempt = 0; ; attempt++) {
    const requestId = randomUUID();
    const requestNumber = newRequestNumber();
    const response: TerminationRequest = {
      requestId,
      requestNumber,
      status: STATUS_SUBMITTED,
      createdAt: new Date().toISOString(),
      message: texts.created(requestNumber),
    };
    const outcome = await deps.store.create(
      { ...call, requestId, requestNumber, response, expiresAt: nowSeconds + deps.idempotencyTtlSeconds },
      nowSeconds,
      abortSignal,
    );
    switch (outcome.kind) {
      case 'created':
        return { statusCode: 201, request: response, replayed: false, accountNumber: call.input.bankDetails.accountNumber };
      case 'key-used':
        return answerFromRecord(outcome.record, call, texts);
      case 'number-taken':
      case 'retry': {
        // Exponential backoff with full jitter; the budget's signal ends it with a 503 (D3, D9).
        const pause = outcome.kind === 'retry' ? Math.random() * Math.min(200, 10 * 2 ** attempt) : 0;
        await sleep(pause, undefined, { signal: abortSignal });
        continue;
      }
      default:
        throw refusal(outcome, texts);
    }
  }
}

/** The whole use case: validate, apply the rules in the order D2-D7 give, write once. */
export async function createTerminationRequest(deps: CreateDeps, call: CreateCall): Promise<CreateResult> {
  const now = deps.now?.() ?? new Date();
  const valid = validateCall(call, deps.businessTimeZone, now);
  const refusal = valid.pastDateProblem ? new ValidationError([valid.pastDateProblem]) : staticRuleBreach(valid.input, call.texts);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const abortSignal = AbortSignal.timeout(deps.budgetMs);
  try {
    if (refusal) {
      // The key decides first (D2): an accepted call replays with 200 even if its date has passed
      // since, and a key reused with another body is IDEMPOTENCY_KEY_REUSED whatever else is wrong.
      const record = await deps.store.findIdempotencyRecord(valid.customerId, valid.idempotencyKey, nowSeconds, abortSignal);
      if (record) return answerFromRecord(record, valid, call.texts);
      throw refusal;
    }
    return await createOrExplain(deps, valid, call.texts, now, abortSignal);
  } catch (error) {
    if (isDynamoDbUnavailable(error) || abortSignal.aborted) throw new ServiceUnavailableError(error);
    throw error;
  }
}
