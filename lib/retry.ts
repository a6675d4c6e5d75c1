import { setTimeout as sleep } from 'node:timers/promises';

/*
 * The one retry policy of the service (docs/decisions/0012-failures-and-logging.md): how many
 * tries, how long to pause between them, and how long the invocation has left. Everything in
 * the service that tries again runs through `retrying`, with its policy from RETRY: the create,
 * the withdrawal and the decision, and the publisher's reads of unprocessed keys, signings and
 * PutEvents entries, whose tries hand the next what they left undone and, when the tries or the
 * invocation's time run out, hand it back to the stream, and its redrive's stream iterator that
 * expired; and the operator commands' reads and moves (RETRY.operator). What is transient is
 * the caller's to say: a write's outcome that asks for another try, or an AWS error that may
 * pass (lib/aws/transient-errors.ts).
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
  /** The publisher's reads of unprocessed keys, its signings and its PutEvents entries that failed (PUBLISH_MAX_ATTEMPTS tries each). */
  publisher: { baseMs: 100, capMs: 2000 },
  /** An operator command's reads of unprocessed keys (npm run subject-access, npm run erase) and the migration's moves of limit records (npm run migrate): no invocation limits them. */
  operator: { maxAttempts: 5, baseMs: 100, capMs: 2000 },
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

/**
 * A loop's tries: how many, and the pause after each failure, ended by the signal (triesBy makes
 * them from a policy; a test may pause its own way, to count the pauses or end them).
 */
export interface Tries {
  /** Tries, the first included; the signal may end them sooner. */
  maxAttempts: number;
  /** Waits after the `attempt`th failure (1 for the first); rejects when the signal ends the wait. */
  pause: (attempt: number) => Promise<void>;
  /** Ends the pauses: at a budget, or when the invocation has only RESERVE_MS left (budgetSignal); none, no limit. */
  signal?: AbortSignal | undefined;
}

/** A policy's tries, its pauses ended by the signal. */
export function triesBy(policy: RetryPolicy, signal: AbortSignal | undefined): Tries {
  return { maxAttempts: policy.maxAttempts, pause: (attempt) => pauseBefore(policy, attempt, signal), signal };
}

/**
 * What a try may ask instead of an answer: another try, at once or after a pause, and what it
 * leaves for that try (a try that made some progress: what is still to do, and why).
 */
export interface Again<Left = undefined> {
  again: 'at-once' | 'after-pause';
  left: Left;
}

const isAgain = <Left>(answer: object): answer is Again<Left> => 'again' in answer;

export const AGAIN: Again = { again: 'after-pause', left: undefined };
export const AGAIN_AT_ONCE: Again = { again: 'at-once', left: undefined };

/** Another try after a pause, for what this one left. */
export const againFor = <Left>(left: Left): Again<Left> => ({ again: 'after-pause', left });

export class RetriesExhaustedError extends Error {
  constructor(attempts: number) {
    super(`Still undecided after ${attempts} tries`);
    this.name = 'RetriesExhaustedError';
  }
}

/** How the tries end without an answer; each, by what the last try left. */
export interface Ends<T, Left> {
  /** The tries ran out: by default RetriesExhaustedError is thrown. */
  exhausted?: (left: Left) => T;
  /** The signal ended a pause: by default the abort is thrown. */
  outOfTime?: (left: Left) => T;
}

/** The reason of a failure whose tries the signal ended, for a log line: why the last try failed, and why none followed. */
export const outOfTimeReason = (reason: string): string => `${reason} (no time left for another try)`;

/**
 * Tries `attempt` until it answers, by the tries and within their signal: a try may ask for
 * another at once (a number drawn again) or after a pause (a race, a throttled call, what a call
 * left undone), handing the next try what it left (undefined for the first). When the tries run
 * out or the signal ends the wait, `ends` answers, from what the last try left.
 */
export async function retrying<T extends object, Left = undefined>(
  tries: Tries,
  attempt: (left: Left | undefined) => Promise<T | Again<Left>>,
  ends: Ends<T, Left> = {},
): Promise<T> {
  let left: Left | undefined;
  for (let tried = 1; ; tried++) {
    const answer = await attempt(left);
    if (!isAgain<Left>(answer)) return answer;
    left = answer.left;
    if (tried >= tries.maxAttempts) {
      if (ends.exhausted === undefined) throw new RetriesExhaustedError(tried);
      return ends.exhausted(answer.left);
    }
    try {
      if (answer.again === 'after-pause') await tries.pause(tried);
      else tries.signal?.throwIfAborted();
    } catch (error) {
      if (ends.outOfTime === undefined || tries.signal?.aborted !== true) throw error;
      return ends.outOfTime(answer.left);
    }
  }
}
