import { describe, expect, it, vi } from 'vitest';

/*
 * The unit project shares its workers between files (isolate: false in vitest.config.ts): what a
 * test stubs must be put back before the next test, in this file or the next one, without each
 * test remembering to. The tests below run in order; each second one fails if the first one's
 * change survives.
 */

const VARIABLE = 'UNIT_ISOLATION_PROBE';
const spied = { probe: () => 'original' };

describe('between two tests of the unit project', () => {
  it('a test stubs an environment variable, a global and a spy', () => {
    vi.stubEnv(VARIABLE, 'left over');
    vi.stubGlobal('unitIsolationProbe', 'left over');
    vi.spyOn(spied, 'probe').mockReturnValue('spied');
    expect(process.env[VARIABLE]).toBe('left over');
    expect(Reflect.get(globalThis, 'unitIsolationProbe')).toBe('left over');
    expect(spied.probe()).toBe('spied');
  });

  it('the next test sees none of them', () => {
    expect(process.env[VARIABLE]).toBeUndefined();
    expect(Reflect.has(globalThis, 'unitIsolationProbe')).toBe(false);
    expect(spied.probe()).toBe('original');
  });
});
