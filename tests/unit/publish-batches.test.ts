import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import type { PutEventsRequestEntry, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import {
  batchesOf,
  entrySize,
  MAX_BYTES_PER_CALL,
  MAX_ENTRIES_PER_CALL,
  publishInOrder,
  type PendingEntry,
  type PublishDeps,
} from '../../lib/events/publish-batches';
import { timeRunsOutAt } from '../support/tries';

/** An entry of exactly `size` bytes as EventBridge counts them (Source and DetailType take one each). */
const entryOf = (size: number): PutEventsRequestEntry => ({
  EventBusName: 'termination-events',
  Source: 's',
  DetailType: 't',
  Detail: 'x'.repeat(size - 2),
});

const pendingOf = (sizes: number[]): PendingEntry[] => sizes.map((size, i) => ({ sequenceNumber: `seq-${i}`, entry: entryOf(size) }));
const small = (count: number) => pendingOf(Array.from({ length: count }, () => 100));

const batchSize = (batch: PendingEntry[]) => batch.reduce((sum, item) => sum + entrySize(item.entry), 0);

class CallError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

const throttled = () => new CallError('ThrottlingException', 'Rate exceeded');
const refused = () => new CallError('ValidationException', 'Total size of the entries in the request is over the limit');

type Answer = (sequenceNumbers: string[], call: number) => (PutEventsResultEntry | undefined)[];

/**
 * EventBridge as a script: `answer` sees the sequence numbers of the entries of each call (its
 * 1-based number too) and returns their results, or throws. Every call is recorded.
 */
function fakeBus(pending: PendingEntry[], answer: Answer = (sent) => sent.map(ok)) {
  const sequenceOf = new Map(pending.map((item) => [item.entry, item.sequenceNumber]));
  const calls: string[][] = [];
  /** Entries EventBridge accepted, in the order it accepted them. */
  const delivered: string[] = [];
  const putEvents = async (entries: PutEventsRequestEntry[]): Promise<PutEventsResultEntry[]> => {
    const sent = entries.map((entry) => sequenceOf.get(entry) ?? 'unknown entry');
    calls.push(sent);
    const results = answer(sent, calls.length);
    sent.forEach((sequenceNumber, i) => {
      if (results[i]?.EventId !== undefined) delivered.push(sequenceNumber);
    });
    return results.filter((result) => result !== undefined);
  };
  return { putEvents, calls, delivered };
}

const ok = (sequenceNumber: string): PutEventsResultEntry => ({ EventId: `event-${sequenceNumber}` });
const entryFailed = (code = 'ThrottlingException', message = 'Rate exceeded'): PutEventsResultEntry => ({
  ErrorCode: code,
  ErrorMessage: message,
});

function depsFor(
  putEvents: PublishDeps['putEvents'],
  maxAttempts = 3,
  isTransient = (error: unknown) => error instanceof CallError && error.name === 'ThrottlingException',
) {
  const pause = vi.fn(async (_attempt: number) => undefined);
  const transient = vi.fn(isTransient);
  const deps: PublishDeps = { putEvents, maxAttempts, pause, isTransient: transient };
  return { deps, pause, isTransient: transient };
}

describe('entrySize', () => {
  it('counts Source, DetailType, Detail and Resources in UTF-8 bytes, and 14 for a Time', () => {
    const entry: PutEventsRequestEntry = {
      EventBusName: 'a-long-bus-name-that-is-not-counted',
      Source: 'ab',
      DetailType: 'cde',
      Detail: '{"r":"ж"}',
      Resources: ['r1', 'r22'],
    };
    expect(entrySize(entry)).toBe(2 + 3 + 10 + 2 + 3);
    expect(entrySize({ ...entry, Time: new Date('2030-01-01T00:00:00Z') })).toBe(2 + 3 + 10 + 2 + 3 + 14);
  });

  it('is 0 for an empty entry', () => {
    expect(entrySize({})).toBe(0);
  });

  it('counts what entryOf builds to the byte', () => {
    expect(entrySize(entryOf(2))).toBe(2);
    expect(entrySize(entryOf(MAX_BYTES_PER_CALL))).toBe(MAX_BYTES_PER_CALL);
  });
});

describe('batchesOf', () => {
  it('makes no batch of nothing', () => {
    expect(batchesOf([])).toEqual([]);
  });

  it('cuts small entries into batches of 10', () => {
    const pending = small(25);
    expect(batchesOf(pending).map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(batchesOf(small(10)).map((batch) => batch.length)).toEqual([10]);
    expect(batchesOf(small(11)).map((batch) => batch.length)).toEqual([10, 1]);
  });

  it('fills a batch up to exactly 256 KiB, and one byte more starts a new one', () => {
    const half = MAX_BYTES_PER_CALL / 2;
    expect(batchesOf(pendingOf([half, half])).map((batch) => batch.length)).toEqual([2]);
    expect(batchesOf(pendingOf([half, half + 1])).map((batch) => batch.length)).toEqual([1, 1]);
    expect(batchesOf(pendingOf([100 * 1024, 100 * 1024, 100 * 1024, 10])).map((batch) => batch.length)).toEqual([2, 2]);
  });

  it('puts an entry over 256 KiB alone, so that only it fails', () => {
    const batches = batchesOf(pendingOf([10, MAX_BYTES_PER_CALL + 1, 10]));
    expect(batches.map((batch) => batch.map((item) => item.sequenceNumber))).toEqual([['seq-0'], ['seq-1'], ['seq-2']]);
  });

  it('never exceeds 10 entries or 256 KiB, keeps every entry in order, and fills each batch as far as it can', () => {
    const size = fc.oneof(fc.integer({ min: 2, max: 2000 }), fc.integer({ min: 2, max: MAX_BYTES_PER_CALL }));
    fc.assert(
      fc.property(fc.array(size, { maxLength: 40 }), (sizes) => {
        const pending = pendingOf(sizes);
        const batches = batchesOf(pending);
        expect(batches.flat()).toEqual(pending);
        for (const [i, batch] of batches.entries()) {
          expect(batch.length).toBeGreaterThanOrEqual(1);
          expect(batch.length).toBeLessThanOrEqual(MAX_ENTRIES_PER_CALL);
          expect(batchSize(batch)).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
          // Greedy: the next entry did not fit, or there is none.
          const next = batches[i + 1]?.[0];
          if (next)
            expect(batch.length === MAX_ENTRIES_PER_CALL || batchSize(batch) + entrySize(next.entry) > MAX_BYTES_PER_CALL).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the very objects it was given', () => {
    const pending = small(12);
    const batches = batchesOf(pending);
    expect(batches[0]?.[0]).toBe(pending[0]);
    expect(batches[1]?.[1]).toBe(pending[11]);
  });
});

describe('publishInOrder', () => {
  it('publishes nothing without a call when nothing is pending', async () => {
    const bus = fakeBus([]);
    const { deps } = depsFor(bus.putEvents);
    expect(await publishInOrder([], deps)).toEqual({ published: 0, calls: 0 });
    expect(bus.calls).toEqual([]);
  });

  it('all succeed: one call per batch of at most 10, in order, without a pause', async () => {
    const pending = small(25);
    const bus = fakeBus(pending);
    const { deps, pause } = depsFor(bus.putEvents);
    expect(await publishInOrder(pending, deps)).toEqual({ published: 25, calls: 3 });
    expect(bus.calls.map((call) => call.length)).toEqual([10, 10, 5]);
    expect(bus.calls.flat()).toEqual(pending.map((item) => item.sequenceNumber));
    expect(pause).not.toHaveBeenCalled();
  });

  it('resends only the entries that failed, after a pause, until they succeed', async () => {
    const pending = small(10);
    const bus = fakeBus(pending, (sent, call) => sent.map((seq) => (seq === 'seq-3' && call < 3 ? entryFailed() : ok(seq))));
    const { deps, pause } = depsFor(bus.putEvents);
    expect(await publishInOrder(pending, deps)).toEqual({ published: 10, calls: 3 });
    expect(bus.calls.slice(1)).toEqual([['seq-3'], ['seq-3']]);
    expect(pause.mock.calls).toEqual([[1], [2]]);
  });

  it('an entry failing every attempt: reported with its sequence number and reason after maxAttempts calls', async () => {
    const pending = small(10);
    const bus = fakeBus(pending, (sent) => sent.map((seq) => (seq === 'seq-3' ? entryFailed('InternalFailure', 'try later') : ok(seq))));
    const { deps, pause } = depsFor(bus.putEvents, 4);
    expect(await publishInOrder(pending, deps)).toEqual({
      published: 3,
      calls: 4,
      failed: { sequenceNumber: 'seq-3', reason: 'InternalFailure: try later' },
    });
    expect(bus.calls).toHaveLength(4);
    expect(pause).toHaveBeenCalledTimes(3);
  });

  it('several entries failing: the first of them is reported, with its own reason', async () => {
    const pending = small(10);
    const bus = fakeBus(pending, (sent) =>
      sent.map((seq) => (seq === 'seq-5' ? entryFailed('A', 'five') : seq === 'seq-2' ? entryFailed('B', 'two') : ok(seq))),
    );
    const { deps } = depsFor(bus.putEvents, 2);
    expect(await publishInOrder(pending, deps)).toEqual({ published: 2, calls: 2, failed: { sequenceNumber: 'seq-2', reason: 'B: two' } });
    expect(bus.calls[1]).toEqual(['seq-2', 'seq-5']);
  });

  it('an entry without a result counts as failed', async () => {
    const pending = small(3);
    const bus = fakeBus(pending, (sent) => sent.map((seq) => (seq === 'seq-2' ? undefined : ok(seq))));
    const { deps } = depsFor(bus.putEvents, 2);
    const result = await publishInOrder(pending, deps);
    expect(result).toMatchObject({ published: 2, failed: { sequenceNumber: 'seq-2' } });
    expect(result.failed?.reason).toMatch(/^NoResult/);
  });

  it('a failed entry: the entries after it in the same call were delivered all the same (order is per call)', async () => {
    const pending = small(5);
    const bus = fakeBus(pending, (sent) => sent.map((seq) => (seq === 'seq-1' ? entryFailed() : ok(seq))));
    const { deps } = depsFor(bus.putEvents, 1);
    expect(await publishInOrder(pending, deps)).toMatchObject({ published: 1, failed: { sequenceNumber: 'seq-1' } });
    // Those later records go back to the stream with seq-1 and will be sent again: hence stable event ids.
    expect(bus.delivered).toEqual(['seq-0', 'seq-2', 'seq-3', 'seq-4']);
  });

  it('a transient call error: the same batch again after a pause', async () => {
    const pending = small(4);
    const bus = fakeBus(pending, (sent, call) => {
      if (call === 1) throw throttled();
      return sent.map(ok);
    });
    const { deps, pause, isTransient } = depsFor(bus.putEvents);
    expect(await publishInOrder(pending, deps)).toEqual({ published: 4, calls: 2 });
    expect(bus.calls).toEqual([
      ['seq-0', 'seq-1', 'seq-2', 'seq-3'],
      ['seq-0', 'seq-1', 'seq-2', 'seq-3'],
    ]);
    expect(isTransient).toHaveBeenCalledWith(expect.any(CallError));
    expect(pause.mock.calls).toEqual([[1]]);
  });

  it('a transient call error every time: the batch fails from its first entry, after maxAttempts calls and no split', async () => {
    const pending = small(14);
    const bus = fakeBus(pending, (sent, call) => {
      if (call > 1) throw throttled();
      return sent.map(ok);
    });
    const { deps, pause } = depsFor(bus.putEvents, 3);
    expect(await publishInOrder(pending, deps)).toEqual({
      published: 10,
      calls: 4,
      failed: { sequenceNumber: 'seq-10', reason: 'ThrottlingException: Rate exceeded' },
    });
    expect(bus.calls.slice(1).map((call) => call.length)).toEqual([4, 4, 4]);
    expect(pause).toHaveBeenCalledTimes(2);
  });

  it('a call refused as a whole: halves until the bad entry stands alone, publishing the rest before it', async () => {
    const pending = small(8);
    const bus = fakeBus(pending, (sent) => {
      if (sent.includes('seq-5')) throw refused();
      return sent.map(ok);
    });
    const { deps, pause } = depsFor(bus.putEvents);
    expect(await publishInOrder(pending, deps)).toEqual({
      published: 5,
      calls: 6,
      failed: { sequenceNumber: 'seq-5', reason: 'ValidationException: Total size of the entries in the request is over the limit' },
    });
    expect(bus.calls).toEqual([
      ['seq-0', 'seq-1', 'seq-2', 'seq-3', 'seq-4', 'seq-5', 'seq-6', 'seq-7'],
      ['seq-0', 'seq-1', 'seq-2', 'seq-3'],
      ['seq-4', 'seq-5', 'seq-6', 'seq-7'],
      ['seq-4', 'seq-5'],
      ['seq-4'],
      ['seq-5'],
    ]);
    expect(bus.delivered).toEqual(['seq-0', 'seq-1', 'seq-2', 'seq-3', 'seq-4']);
    expect(pause).not.toHaveBeenCalled();
  });

  it('a refused single entry is not sent again', async () => {
    const pending = small(1);
    const bus = fakeBus(pending, () => {
      throw refused();
    });
    const { deps } = depsFor(bus.putEvents, 5);
    expect(await publishInOrder(pending, deps)).toMatchObject({ published: 0, calls: 1, failed: { sequenceNumber: 'seq-0' } });
  });

  it('a non-Error thrown by the call is reported as text', async () => {
    const pending = small(1);
    const bus = fakeBus(pending, () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- what this test is about
      throw 'socket hang up';
    });
    const { deps } = depsFor(bus.putEvents, 2, () => false);
    expect(await publishInOrder(pending, deps)).toEqual({
      published: 0,
      calls: 1,
      failed: { sequenceNumber: 'seq-0', reason: 'socket hang up' },
    });
  });

  it('splitting publishes exactly the entries before the bad one, each once and in order, whatever its place', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: MAX_ENTRIES_PER_CALL })
          .chain((count) => fc.tuple(fc.constant(count), fc.integer({ min: 0, max: count - 1 }))),
        async ([count, bad]) => {
          const pending = small(count);
          const bus = fakeBus(pending, (sent) => {
            if (sent.includes(`seq-${bad}`)) throw refused();
            return sent.map(ok);
          });
          const { deps } = depsFor(bus.putEvents);
          const result = await publishInOrder(pending, deps);
          expect(result.published).toBe(bad);
          expect(result.failed?.sequenceNumber).toBe(`seq-${bad}`);
          expect(result.calls).toBe(bus.calls.length);
          expect(bus.delivered).toEqual(pending.slice(0, bad).map((item) => item.sequenceNumber));
          // Halving: about 2 calls per level, never more than 2 * ceil(log2(10)) + 1.
          expect(bus.calls.length).toBeLessThanOrEqual(9);
        },
      ),
    );
  });

  it('after a failed batch, later batches are not sent', async () => {
    const pending = small(25);
    const bus = fakeBus(pending, (sent) => {
      if (sent.includes('seq-13')) throw refused();
      return sent.map(ok);
    });
    const { deps } = depsFor(bus.putEvents);
    const result = await publishInOrder(pending, deps);
    expect(result).toMatchObject({ published: 13, failed: { sequenceNumber: 'seq-13' } });
    expect(bus.calls.flat()).not.toContain('seq-20');
    expect(new Set(bus.calls.flat())).toEqual(new Set(pending.slice(0, 20).map((item) => item.sequenceNumber)));
    expect(bus.delivered).toEqual(pending.slice(0, 13).map((item) => item.sequenceNumber));
  });

  it("the invocation's time ending a pause: the entries still failing are handed back then, the reason saying so; later batches are not sent", async () => {
    const pending = small(14);
    const bus = fakeBus(pending, (sent) => sent.map((seq) => (seq === 'seq-3' ? entryFailed('InternalFailure', 'try later') : ok(seq))));
    const { deps } = depsFor(bus.putEvents, 10);
    const time = timeRunsOutAt(2);
    expect(await publishInOrder(pending, { ...deps, ...time })).toEqual({
      published: 3,
      calls: 2,
      failed: { sequenceNumber: 'seq-3', reason: 'InternalFailure: try later (no time left for another try)' },
    });
    expect(bus.calls).toEqual([pending.slice(0, 10).map((item) => item.sequenceNumber), ['seq-3']]);
    expect(time.pauses).toEqual([1, 2]);
  });

  it("the invocation's time ending a pause after a throttled call: the whole batch is handed back from its first entry", async () => {
    const pending = small(4);
    const bus = fakeBus(pending, () => {
      throw throttled();
    });
    const { deps } = depsFor(bus.putEvents, 10);
    expect(await publishInOrder(pending, { ...deps, ...timeRunsOutAt(1) })).toEqual({
      published: 0,
      calls: 1,
      failed: { sequenceNumber: 'seq-0', reason: 'ThrottlingException: Rate exceeded (no time left for another try)' },
    });
  });

  it('counts every call, across batches, retries and halves', async () => {
    const pending = small(12);
    const bus = fakeBus(pending, (sent, call) => {
      if (call === 1) throw throttled();
      return sent.map((seq) => (seq === 'seq-11' && call === 3 ? entryFailed() : ok(seq)));
    });
    const { deps, pause } = depsFor(bus.putEvents);
    expect(await publishInOrder(pending, deps)).toEqual({ published: 12, calls: 4 });
    expect(bus.calls.map((call) => call.length)).toEqual([10, 10, 2, 1]);
    expect(pause.mock.calls).toEqual([[1], [1]]);
  });
});
