/*
 * EventBridge's event-pattern matching, for the patterns this stack deploys: an EventBridge
 * rule's EventPattern and a stream mapping's FilterCriteria use the same language. Only exact
 * matching is implemented (nested fields, arrays of allowed values); any other operator
 * (prefix, anything-but, numeric, exists, ...) fails loudly rather than match by guess.
 *
 * Why not a package: AWS's own matcher, event-ruler, is Java. On npm, serverless-offline-aws-eventbridge
 * (2.2.4) matches most of the language, but as methods of its serverless offline plugin, whose
 * constructor wants the framework, not as a function to import; it matches only the `eventBridge`
 * events of serverless.yml's functions, not a rule in resources/ nor a stream's FilterCriteria;
 * it reads a pattern's source, detail-type and detail alone, so the decision rule's `account`
 * would be ignored; and it brings an HTTP server and an MQTT broker this stack does not use.
 */

export class UnsupportedPatternError extends Error {
  constructor(path: string, detail: string) {
    super(`Event pattern at ${path || '(root)'}: ${detail}; the local matcher knows exact values only`);
    this.name = 'UnsupportedPatternError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** Whether an event value (a scalar, or an array of them: any element may match) is one of `allowed`. */
function valueMatches(value: unknown, allowed: unknown[], path: string): boolean {
  for (const candidate of allowed) {
    if (!isScalar(candidate)) throw new UnsupportedPatternError(path, `the operator ${JSON.stringify(candidate)}`);
  }
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => allowed.includes(v));
}

/** Checks that a pattern uses only what this matcher implements, so a pattern is refused before any event. */
export function assertSupportedPattern(pattern: unknown, path = ''): void {
  if (!isObject(pattern)) throw new UnsupportedPatternError(path, 'a pattern must be an object');
  for (const [key, allowed] of Object.entries(pattern)) {
    const at = path ? `${path}.${key}` : key;
    if (Array.isArray(allowed)) valueMatches(undefined, allowed, at);
    else assertSupportedPattern(allowed, at);
  }
}

/** Whether `event` matches `pattern`: every field the pattern names matches (EventBridge's rules). */
export function matchesPattern(pattern: unknown, event: unknown, path = ''): boolean {
  if (!isObject(pattern)) throw new UnsupportedPatternError(path, 'a pattern must be an object');
  return Object.entries(pattern).every(([key, allowed]) => {
    const at = path ? `${path}.${key}` : key;
    const value = isObject(event) ? event[key] : undefined;
    if (Array.isArray(allowed)) return value !== undefined && valueMatches(value, allowed, at);
    return isObject(value) && matchesPattern(allowed, value, at);
  });
}
