import { describe, expect, it, vi } from 'vitest';
import {
  AGAIN,
  AGAIN_AT_ONCE,
  againFor,
  budgetSignal,
  RESERVE_MS,
  RetriesExhaustedError,
  retrying,
  triesBy,
  type Again,
  type Tries,
} from '../../lib/retry';
import { timeRunsOutAt } from '../support/tries';

/*
 * The one retry loop (lib/retry.ts) every use case and the publisher run through: how many tries,
 * what a try hands the next, and how the tries end without an answer (run out, or out of time).
 */

/** Tries whose pauses are counted and take no time. */
function counted(maxAttempts: number, signal?: AbortSignal): Tries & { pauses: number[] } {
  const pauses: number[] = [];
  return { maxAttempts, pause: (attempt) => Promise.resolve(void pauses.push(attempt)), signal, pauses };
}

/** How a loop over items ended: all done, or not, why, and what was left. */
interface Ended {
  done: boolean;
  why?: string;
  left?: string[];
}

/** A try that takes one item off what is left each time and asks again until nothing is. */
const oneAtATime =
  (items: string[]) =>
  async (left: string[] | undefined): Promise<Ended | Again<string[]>> => {
    const rest = (left ?? items).slice(1);
    return rest.length === 0 ? { done: true } : againFor(rest);
  };

describe('retrying', () => {
  it('answers with the first try that answers, without a pause', async () => {
    const tries = counted(3);
    expect(await retrying(tries, () => Promise.resolve({ answer: 1 }))).toEqual({ answer: 1 });
    expect(tries.pauses).toEqual([]);
  });

  it('hands each try what the one before left, pausing after each failure, numbered from 1', async () => {
    const tries = counted(5);
    const seen: (string[] | undefined)[] = [];
    const attempt = oneAtATime(['a', 'b', 'c', 'd']);
    const answer = await retrying(tries, (left: string[] | undefined) => {
      seen.push(left);
      return attempt(left);
    });
    expect(answer).toEqual({ done: true });
    expect(seen).toEqual([undefined, ['b', 'c', 'd'], ['c', 'd'], ['d']]);
    expect(tries.pauses).toEqual([1, 2, 3]);
  });

  it('tries maxAttempts times, then answers with `exhausted`, from what the last try left', async () => {
    const tries = counted(2);
    const exhausted = vi.fn((left: string[]) => ({ done: false, left }));
    expect(await retrying(tries, oneAtATime(['a', 'b', 'c', 'd']), { exhausted })).toEqual({ done: false, left: ['c', 'd'] });
    expect(exhausted).toHaveBeenCalledTimes(1);
    expect(tries.pauses).toEqual([1]);
  });

  it('throws RetriesExhaustedError when the tries run out and nothing else is said', async () => {
    const attempt = vi.fn(() => Promise.resolve(AGAIN));
    await expect(retrying(counted(3), attempt)).rejects.toThrow(RetriesExhaustedError);
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('tries again at once when asked to, without a pause', async () => {
    const tries = counted(3);
    const answers = [AGAIN_AT_ONCE, AGAIN_AT_ONCE, { answer: 'drawn again' }];
    expect(await retrying(tries, () => Promise.resolve(answers.shift() ?? AGAIN))).toEqual({ answer: 'drawn again' });
    expect(tries.pauses).toEqual([]);
  });

  it('a signal that ends a pause ends the tries with `outOfTime`, from what the last try left, however many were left', async () => {
    const tries = { maxAttempts: 10, ...timeRunsOutAt(2) };
    const exhausted = vi.fn(() => ({ done: false, why: 'tries' }));
    const answer = await retrying(tries, oneAtATime(['a', 'b', 'c', 'd']), {
      exhausted,
      outOfTime: (left) => ({ done: false, why: 'time', left }),
    });
    expect(answer).toEqual({ done: false, why: 'time', left: ['c', 'd'] });
    expect(tries.pauses).toEqual([1, 2]);
    expect(exhausted).not.toHaveBeenCalled();
  });

  it("without `outOfTime`, the wait's abort is thrown (a use case's budget: 503)", async () => {
    await expect(retrying({ maxAttempts: 10, ...timeRunsOutAt(1) }, () => Promise.resolve(AGAIN))).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('a signal already ended stops a try asked again at once', async () => {
    const tries = counted(10, AbortSignal.abort());
    const attempt = vi.fn(() => Promise.resolve(AGAIN_AT_ONCE));
    expect(await retrying(tries, attempt, { outOfTime: () => ({ ended: true }) })).toEqual({ ended: true });
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('a pause that fails while the signal has not ended is thrown as it is, not taken for the time running out', async () => {
    const broken: Tries = { maxAttempts: 3, signal: new AbortController().signal, pause: () => Promise.reject(new Error('broken clock')) };
    await expect(retrying(broken, () => Promise.resolve(AGAIN), { outOfTime: () => ({ ended: true }) })).rejects.toThrow('broken clock');
  });
});

describe('triesBy', () => {
  it("a policy's pauses end when the invocation has only RESERVE_MS left, however long the policy would wait", async () => {
    // Pauses of up to a minute each: only the invocation's time (20 ms beyond the reserve) ends them within the test's timeout.
    const tries = triesBy({ maxAttempts: 5, baseMs: 60_000, capMs: 60_000 }, budgetSignal(undefined, RESERVE_MS + 20));
    const attempt = vi.fn(() => Promise.resolve(againFor('still to do')));
    expect(await retrying(tries, attempt, { outOfTime: (left) => ({ left }) })).toEqual({ left: 'still to do' });
    expect(attempt.mock.calls.length).toBeLessThan(5);
  });

  it('with no signal, a policy with no pause to speak of runs its tries out', async () => {
    const attempt = vi.fn(() => Promise.resolve(againFor('still to do')));
    expect(
      await retrying(triesBy({ maxAttempts: 3, baseMs: 0, capMs: 0 }, undefined), attempt, { exhausted: (left) => ({ left }) }),
    ).toEqual({
      left: 'still to do',
    });
    expect(attempt).toHaveBeenCalledTimes(3);
  });
});
