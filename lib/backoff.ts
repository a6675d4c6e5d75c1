import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits after the `attempt`th failure: "full jitter", a random delay up to baseMs * 2^attempt,
 * at most capMs, so that writers that collided do not collide again in step. The one backoff of
 * the service: the create, the decision consumer and the publisher. A signal that aborts ends
 * the wait with its reason.
 */
export function backoff(attempt: number, baseMs: number, capMs = Number.POSITIVE_INFINITY, signal?: AbortSignal): Promise<void> {
  return sleep(Math.random() * Math.min(capMs, baseMs * 2 ** attempt), undefined, signal ? { signal } : undefined);
}
