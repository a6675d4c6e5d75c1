/*
 * The errors a port may throw besides its facts: the store out of reach (a 503), or stored data
 * that breaks the service's own rules (a 500).
 */

/** The store was throttled, unreachable or too slow: nothing was decided, the caller may retry. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** Stored data that breaks the service's own rules: a bug, never guessed about (a 500). */
export class MalformedItemError extends Error {
  constructor(what: string) {
    super(`Malformed ${what}`);
    this.name = 'MalformedItemError';
  }
}
