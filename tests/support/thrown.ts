import { expect } from 'vitest';
import { ConfigError } from '../../lib/config';

/** What the function threw (undefined when it did not throw), so that assertions stay outside any catch. */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The ConfigError's message of a config loader that must refuse its environment. */
export function configProblems(fn: () => unknown): string {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(ConfigError);
  return error instanceof ConfigError ? error.message : '';
}
