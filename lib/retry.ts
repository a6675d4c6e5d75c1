import { setTimeout as sleep } from 'node:timers/promises';

/*
 * The one retry policy of the service (docs/decisions/0012-failures-and-logging.md): how many
 * tries, how long to pause between them, and how long the invocation has left. Every use case
 * that tries again (the create, the withdrawal, the decision) runs through `retrying`; the
 * publisher's pauses are `pauseBefore` with its own policy. What is transient is the caller's
 * to say: a write's outcome that asks for another try, or an AWS error that may pass
 * (lib/aws/transient-errors.ts).
 */

export interface RetryPolicy {
  /** Tries, the first included; the budget may end them sooner. */
  maxAttempts: number;
  /** The pause after the first failure is at most this; it doubles with each, up to capMs. */
  baseMs: number;
  capMs: number;
}

/** The policies, in one place. */
export const RETRY = {
  /** A create or a withdrawal that met a race: tried again until it decides; only the budget ends it. */
  write: { maxAttempts: Number.POSITIVE_INFINITY, baseMs: 10, capMs: 200 },
  /** A decision that kept meeting concurrent writes on its request: a few tries, then Lambda's own retry. */
  decision: { maxAttempts: 5, baseMs: 20, capMs: 500 },
  /** The publisher's reads of unprocessed keys, its signings and its PutEvents entries that failed (PUBLISH_MAX_ATTEMPTS tries). */
  publisher: { baseMs: 100, capMs: 2000 },
} as const satisfies Record<string, Partial<RetryPolicy>>;

/** What an entry point knows of its invocation: the time it has left (Lambda's context). */
export interface Invocation {
  remainingMs: () => number;
}

/** An invocation with no Lambda context (a tool or a test calling a handler or a use case directly): no time limit known. */
export const NO_TIME_LIMIT: Invocation = { remainingMs: () => Number.POSITIVE_INFINITY };

/** Time kept back from the invocation's remaining time, for the answer to be logged and sent. */
export const RESERVE_MS = 500;

/**
 * Waits after the `attempt`th failure (1 for the first): "full jitter", a random delay up to
 * baseMs * 2^attempt, at most capMs, so that writers that collided do not collide again in step.
 * A signal that aborts ends the wait with its reason.
 */
export function pauseBefore(policy: Pick<RetryPolicy, 'baseMs' | 'capMs'>, attempt: number, signal?: AbortSignal): Promise<void> {
  return sleep(Math.random() * Math.min(policy.capMs, policy.baseMs * 2 ** attempt), undefined, signal ? { signal } : undefined);
}

/**
 * The signal that ends a piece of work: at its own budget, or when the invocation has only
 * RESERVE_MS left, whichever comes first; none when neither is known.
 */
export function budgetSignal(budgetMs: number | undefined, remainingMs: number | undefined): AbortSignal | undefined {
  const limits = [budgetMs, remainingMs === undefined ? undefined : remainingMs - RESERVE_MS].filter(
    (limit): limit is number => limit !== undefined && Number.isFinite(limit),
  );
  return limits.length === 0 ? undefined : AbortSignal.timeout(Math.max(0, Math.min(...limits)));
}

/** What a try may ask instead of an answer: another try, at once or after a pause. */
export interface Again {
  again: 'at-once' | 'after-pause';
}

const isAgain = (answer: object): answer is Again => 'again' in answer;

export const AGAIN: Again = { again: 'after-pause' };
export const AGAIN_AT_ONCE: Again = { again: 'at-once' };

export class RetriesExhaustedError extends Error {
  constructor(attempts: number) {
    super(`Still undecided after ${attempts} tries`);
    this.name = 'RetriesExhaustedError';
  }
}

/**
 * Tries `attempt` until it answers, by the policy and within the signal: a try may ask for
 * another at once (a number drawn again) or after a pause (a race). When the tries run out,
 * `exhausted` answers (by default it throws RetriesExhaustedError); when the signal ends the
 * wait, its reason is thrown.
 */
export async function retrying<T extends object>(
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  attempt: (signal: AbortSignal | undefined) => Promise<T | Again>,
  exhausted: () => T = () => {
    throw new RetriesExhaustedError(policy.maxAttempts);
  },
): Promise<T> {
  for (let tried = 1; tried <= policy.maxAttempts; tried++) {
    const answer = await attempt(signal);
    if (!isAgain(answer)) return answer;
    if (tried === policy.maxAttempts) break;
    if (answer.again === 'after-pause') await pauseBefore(policy, tried, signal);
    else signal?.throwIfAborted();
  }
  return exhausted();
}
