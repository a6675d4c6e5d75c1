import type { Tries } from '../../lib/retry';

/**
 * A loop's pause and signal (lib/retry.ts) for a test: pauses take no time and are counted, until
 * the `endsAt`th, where the invocation's time runs out: the signal aborts and the wait ends with
 * the AbortError a real pause (pauseBefore) ends with. No clock, no sleep.
 */
export function timeRunsOutAt(endsAt: number): Pick<Tries, 'pause' | 'signal'> & { pauses: number[] } {
  const controller = new AbortController();
  const pauses: number[] = [];
  return {
    signal: controller.signal,
    pauses,
    pause: (attempt) => {
      pauses.push(attempt);
      if (pauses.length < endsAt) return Promise.resolve();
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      return Promise.reject(new DOMException('The operation was aborted', 'AbortError'));
    },
  };
}
