import createFetchClient from 'openapi-fetch';
import type { components, paths } from './api-types';

/*
 * The TypeScript client for the web and mobile teams: typed from the API description
 * (api-types.ts, made by `npm run client:types` from docs/openapi.yaml), running in browsers and
 * Node with fetch. Its retry rules are docs/clients.md's:
 *   - one Idempotency-Key (and one X-Correlation-Id) per user action, reused on every retry;
 *   - retry network errors, time-outs, 429, 500, 502, 503 and 504, with exponential backoff and full
 *     jitter, waiting at least Retry-After when the answer names it, within an overall deadline;
 *   - never retry another 4xx: the same call would get the same answer;
 *   - a retry answered 200 (the write had committed, its answer was lost) is the same success.
 */

export type TerminationRequest = components['schemas']['TerminationRequest'];
export type TerminationRequestInput = components['schemas']['TerminationRequestInput'];
export type TerminationRequestList = components['schemas']['TerminationRequestList'];
export type TerminationRequestDetails = components['schemas']['TerminationRequestDetails'];
export type CustomerTerminationRequestList = components['schemas']['CustomerTerminationRequestList'];
export type TerminationRequestStatus = components['schemas']['TerminationRequestStatus'];
export type Withdrawal = components['schemas']['Withdrawal'];
export type TerminationReasonList = components['schemas']['TerminationReasonList'];
export type ReasonCode = components['schemas']['ReasonCode'];
/** Every errorCode of the API; each operation's error body narrows it to its own list. */
export type ErrorCode = components['schemas']['ErrorCode'];

const COLLECTION = '/api/v1/contracts/{contractId}/termination-requests';
const ONE = '/api/v1/contracts/{contractId}/termination-requests/{requestId}';
const WITHDRAWAL = '/api/v1/contracts/{contractId}/termination-requests/{requestId}/withdrawal';
const DETAILS = '/api/v1/contracts/{contractId}/termination-requests/{requestId}/details';
const MINE = '/api/v1/termination-requests';
const REASONS = '/api/v1/termination-reasons';

/** The error bodies of each route, each with the literal errorCodes that route answers with. */
export type CreateError = components['schemas']['CreateErrorBody'];
export type ListError = components['schemas']['ListErrorBody'];
export type GetError = components['schemas']['GetErrorBody'];
/** The details answer a GET's refusals; the customer's own list, which names no contract, the reasons dictionary's. */
export type DetailsError = GetError;
export type CustomerListError = ReasonsError;
export type WithdrawError = components['schemas']['WithdrawErrorBody'];
export type ReasonsError = components['schemas']['ReasonsErrorBody'];
export type CreateErrorCode = components['schemas']['CreateErrorCode'];

/** What a call came to: the answer, a refusal the API gave, or no answer at all. */
export type Result<Value, Error> =
  | { ok: true; value: Value; status: number; correlationId: string; attempts: number }
  | { ok: false; reason: 'refused'; status: number; error: Error; correlationId: string; attempts: number }
  | { ok: false; reason: 'unreachable'; cause: unknown; correlationId: string; attempts: number };

export interface RetryOptions {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Each attempt is abandoned (and retried) after this long. */
  attemptTimeoutMs: number;
  /** No retry starts after this long from the first attempt. */
  deadlineMs: number;
}

export interface ClientOptions {
  baseUrl: string;
  /** The customer's access token (a fresh one on each attempt, if it can change). */
  token: () => string | Promise<string>;
  language?: 'en' | 'ru';
  retry?: Partial<RetryOptions>;
  fetch?: typeof globalThis.fetch;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_RETRY: RetryOptions = {
  attempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  attemptTimeoutMs: 10_000,
  deadlineMs: 30_000,
};

/** The answers retried with the same key (docs/clients.md): after them a write's outcome is unknown. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Whole seconds of a Retry-After header; an HTTP date or garbage counts as none. */
function retryAfterMs(response: Response | undefined): number {
  const value = response?.headers.get('Retry-After');
  return value !== null && value !== undefined && /^\d+$/.test(value) ? Number(value) * 1000 : 0;
}

/** The caller's token() failed: its error is handed back as it is, never retried. */
class TokenUnavailableError extends Error {
  constructor(override readonly cause: unknown) {
    super('token() failed');
  }
}

/** A v4 UUID; randomUUID exists only on secure (https or localhost) pages, getRandomValues everywhere. */
export function newUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

type Attempt<Data, Error> = { data?: Data; error?: Error; response: Response };

export function createTerminationClient(options: ClientOptions) {
  const api = createFetchClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...options.retry };
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;

  async function headers(correlationId: string): Promise<Record<string, string>> {
    const token = await Promise.resolve()
      .then(options.token)
      .catch((cause: unknown) => {
        throw new TokenUnavailableError(cause);
      });
    return {
      Authorization: `Bearer ${token}`,
      'X-Correlation-Id': correlationId,
      ...(options.language ? { 'Accept-Language': options.language } : {}),
    };
  }

  /** Runs one user action's attempts until an answer that is not worth retrying, or the budget ends. */
  async function withRetries<Data, Error>(
    correlationId: string,
    attempt: (signal: AbortSignal) => Promise<Attempt<Data, Error>>,
  ): Promise<Result<Data, Error>> {
    const started = Date.now();
    let last: Result<Data, Error> | undefined;
    for (let n = 1; n <= retry.attempts; n++) {
      const left = retry.deadlineMs - (Date.now() - started);
      if (left <= 0 && last) return last;
      let retryable: boolean;
      let floorMs = 0;
      let answer: Attempt<Data, Error> | undefined;
      let unreachable: unknown;
      try {
        answer = await attempt(AbortSignal.timeout(Math.max(1, Math.min(retry.attemptTimeoutMs, left))));
      } catch (cause) {
        // The caller's own token could not be had: not the network's fault, not worth a retry.
        if (cause instanceof TokenUnavailableError) throw cause.cause;
        // No answer: the network failed or the attempt timed out.
        unreachable = cause;
      }
      let outcome: Result<Data, Error>;
      if (answer === undefined) {
        outcome = { ok: false, reason: 'unreachable', cause: unreachable, correlationId, attempts: n };
        retryable = true;
      } else {
        const { data, error, response } = answer;
        if (data !== undefined && response.ok) return { ok: true, value: data, status: response.status, correlationId, attempts: n };
        // An answer decides by its status, body or not (a proxy's empty 413 is not retried).
        retryable = RETRIED_STATUSES.has(response.status);
        floorMs = retryAfterMs(response);
        outcome =
          error === undefined
            ? { ok: false, reason: 'unreachable', cause: new Error(`HTTP ${response.status} without a body`), correlationId, attempts: n }
            : { ok: false, reason: 'refused', status: response.status, error, correlationId, attempts: n };
      }
      last = outcome;
      const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (n - 1)) * random();
      const wait = Math.max(floorMs, backoff);
      if (!retryable || n === retry.attempts || Date.now() - started + wait >= retry.deadlineMs) return outcome;
      await sleep(wait);
    }
    return last ?? { ok: false, reason: 'unreachable', cause: new Error('no attempt'), correlationId, attempts: 0 };
  }

  return {
    /**
     * One user action: ask to terminate the contract. Pass the same idempotencyKey again only to
     * repeat this very action (e.g. after the page reloaded); the client reuses it on its retries.
     */
    async createTerminationRequest(
      contractId: string,
      input: TerminationRequestInput,
      action: { idempotencyKey?: string; correlationId?: string } = {},
    ): Promise<Result<TerminationRequest, CreateError> & { replayed?: boolean; location?: string }> {
      const idempotencyKey = action.idempotencyKey ?? newUuid();
      const correlationId = action.correlationId ?? newUuid();
      let replayed = false;
      let location: string | undefined;
      const result = await withRetries<TerminationRequest, CreateError>(correlationId, async (signal) => {
        const answer = await api.POST(COLLECTION, {
          params: { path: { contractId }, header: { 'Idempotency-Key': idempotencyKey } },
          headers: await headers(correlationId),
          body: input,
          signal,
        });
        replayed = answer.response.headers.get('Idempotent-Replayed') === 'true';
        location = answer.response.headers.get('Location') ?? undefined;
        return answer;
      });
      return result.ok ? { ...result, replayed, ...(location ? { location } : {}) } : result;
    },

    /**
     * One user action: withdraw the request (while it may be: see TerminationRequestStatus). As
     * for a create, pass the same idempotencyKey again only to repeat this very action; the client
     * reuses it on its retries, and a retry answered 200 with `replayed` is the same success.
     */
    async withdrawTerminationRequest(
      contractId: string,
      requestId: string,
      action: { idempotencyKey?: string; correlationId?: string } = {},
    ): Promise<Result<Withdrawal, WithdrawError> & { replayed?: boolean }> {
      const idempotencyKey = action.idempotencyKey ?? newUuid();
      const correlationId = action.correlationId ?? newUuid();
      let replayed = false;
      const result = await withRetries<Withdrawal, WithdrawError>(correlationId, async (signal) => {
        const answer = await api.POST(WITHDRAWAL, {
          params: { path: { contractId, requestId }, header: { 'Idempotency-Key': idempotencyKey } },
          headers: await headers(correlationId),
          signal,
        });
        replayed = answer.response.headers.get('Idempotent-Replayed') === 'true';
        return answer;
      });
      return result.ok ? { ...result, replayed } : result;
    },

    /** The reasons a customer may give, labelled in the client's language: a form's choices. */
    listTerminationReasons(): Promise<Result<TerminationReasonList, ReasonsError>> {
      const correlationId = newUuid();
      return withRetries<TerminationReasonList, ReasonsError>(correlationId, async (signal) =>
        api.GET(REASONS, { headers: await headers(correlationId), signal }),
      );
    },

    /** One request of the contract, with its current status. */
    getTerminationRequest(contractId: string, requestId: string): Promise<Result<TerminationRequest, GetError>> {
      const correlationId = newUuid();
      return withRetries<TerminationRequest, GetError>(correlationId, async (signal) =>
        api.GET(ONE, { params: { path: { contractId, requestId } }, headers: await headers(correlationId), signal }),
      );
    },

    /** One request with what the customer submitted (the account by its last 4 digits) and every status it reached. */
    getTerminationRequestDetails(contractId: string, requestId: string): Promise<Result<TerminationRequestDetails, DetailsError>> {
      const correlationId = newUuid();
      return withRetries<TerminationRequestDetails, DetailsError>(correlationId, async (signal) =>
        api.GET(DETAILS, { params: { path: { contractId, requestId } }, headers: await headers(correlationId), signal }),
      );
    },

    /**
     * One page of the caller's requests on every contract, newest first; pass the page's
     * nextCursor for the next. A request made a moment ago may show a moment later.
     */
    listCustomerTerminationRequests(
      page: { limit?: number; cursor?: string } = {},
    ): Promise<Result<CustomerTerminationRequestList, CustomerListError>> {
      const correlationId = newUuid();
      return withRetries<CustomerTerminationRequestList, CustomerListError>(correlationId, async (signal) =>
        api.GET(MINE, { params: { query: page }, headers: await headers(correlationId), signal }),
      );
    },

    /** One page of the contract's requests, newest first; pass the page's nextCursor for the next. */
    listTerminationRequests(
      contractId: string,
      page: { limit?: number; cursor?: string } = {},
    ): Promise<Result<TerminationRequestList, ListError>> {
      const correlationId = newUuid();
      return withRetries<TerminationRequestList, ListError>(correlationId, async (signal) =>
        api.GET(COLLECTION, { params: { path: { contractId }, query: page }, headers: await headers(correlationId), signal }),
      );
    },
  };
}

export type TerminationClient = ReturnType<typeof createTerminationClient>;
