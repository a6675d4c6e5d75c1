import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NO_TIME_LIMIT, pauseBefore, RESERVE_MS } from '../../lib/retry';
import { answerCall } from '../../lib/http/edge';
import { StoreUnavailableError } from '../../lib/termination/ports/errors';
import { refuse } from '../../lib/termination/refusals';
import { withinBudget } from '../../lib/termination/within-budget';
import { logger } from '../../lib/observability/logger';
import { apiEvent } from '../../scripts/local/api-event';
import { parsedObject } from '../support/json';

/*
 * How a use case ends besides its own outcomes (lib/termination/within-budget.ts): the store
 * unavailable or the budget's own abort (503), and anything else as the bug it is (500), also
 * when it is thrown after the budget ran out. A refusal is a value the use case returns.
 */

const BUDGET_MS = 20;
/** Waits until the budget has run out. */
const pastTheBudget = () => sleep(BUDGET_MS + 30);

afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel('SILENT');
});

describe('withinBudget', () => {
  it("a refusal is the use case's own value, returned as it is", async () => {
    const refused = refuse('CONTRACT_NOT_FOUND', [{ field: 'contractId', code: 'contractNotFound' }]);
    expect(await withinBudget(BUDGET_MS, undefined, () => Promise.resolve(refused))).toEqual({
      kind: 'refused',
      refusal: { code: 'CONTRACT_NOT_FOUND', problems: [{ field: 'contractId', code: 'contractNotFound' }] },
    });
  });

  it("the budget's own abort is unavailable: a wait it cut short, or its reason thrown", async () => {
    expect(await withinBudget(BUDGET_MS, undefined, (signal) => pauseBefore({ baseMs: 1000, capMs: 60_000 }, 20, signal))).toMatchObject({
      kind: 'unavailable',
    });
    expect(
      await withinBudget(BUDGET_MS, undefined, async (signal) => {
        await pastTheBudget();
        signal.throwIfAborted();
      }),
    ).toMatchObject({ kind: 'unavailable' });
  });

  it("ends at the invocation's remaining time, less the reserve, when that comes before the budget", async () => {
    const invocation = { remainingMs: () => RESERVE_MS + BUDGET_MS };
    // Only the signal ends this wait: with the 60 s budget alone the test would time out.
    const untilAborted = (signal: AbortSignal) =>
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))),
      );
    expect(await withinBudget(60_000, invocation, untilAborted)).toMatchObject({ kind: 'unavailable' });
  });

  it('the store unavailable is unavailable, before the budget ran out or after', async () => {
    const unavailable = new StoreUnavailableError(new Error('throttled'));
    expect(await withinBudget(BUDGET_MS, undefined, () => Promise.reject(unavailable))).toEqual({
      kind: 'unavailable',
      cause: unavailable,
    });
    expect(
      await withinBudget(BUDGET_MS, undefined, async () => {
        await pastTheBudget();
        throw unavailable;
      }),
    ).toEqual({ kind: 'unavailable', cause: unavailable });
  });

  it('a TypeError thrown after the budget ran out is thrown as it is: a bug, not unavailable', async () => {
    const bug = new TypeError('Cannot read properties of undefined');
    await expect(
      withinBudget(BUDGET_MS, undefined, async () => {
        await pastTheBudget();
        throw bug;
      }),
    ).rejects.toBe(bug);
  });

  it('at the edge, that TypeError is a 500 whose ERROR log line carries its stack', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    logger.setLogLevel('ERROR');
    const bug = new TypeError('Cannot read properties of undefined (reading "status")');
    const event = apiEvent({ method: 'GET', customerId: 'customer-anna' });
    const answer = await answerCall(event, NO_TIME_LIMIT, { retryAfterSeconds: 1, allowedOrigins: [] }, () =>
      withinBudget(BUDGET_MS, undefined, async () => {
        await pastTheBudget();
        throw bug;
      }),
    );
    expect(answer.statusCode).toBe(500);
    const logged = lines.map(parsedObject).find((line) => line['message'] === 'request failed');
    expect(logged).toMatchObject({ level: 'ERROR', statusCode: 500, error: { name: 'TypeError', stack: bug.stack } });
  });
});
