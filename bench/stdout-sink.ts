/*
 * The service logs one JSON line per request and publishes one EMF metrics line (both to stdout,
 * as in Lambda, where the runtime ships stdout to CloudWatch Logs). While the bench measures, those
 * lines are counted and dropped, so they cost the handlers what a write costs them and the tables
 * stay readable; the bench's own report goes through print().
 */

export interface StdoutSink {
  print: (text: string) => void;
  /** Bytes the handlers wrote to stdout so far. */
  bytes: () => number;
  restore: () => void;
}

export function captureStdout(): StdoutSink {
  const stream = process.stdout;
  const original = stream.write;
  let bytes = 0;
  Object.defineProperty(stream, 'write', {
    configurable: true,
    writable: true,
    value: (chunk: unknown, ...rest: unknown[]): boolean => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0;
      const callback = rest.find((arg) => typeof arg === 'function');
      if (typeof callback === 'function') queueMicrotask(() => callback());
      return true;
    },
  });
  return {
    print: (text) => {
      Reflect.apply(original, stream, [text]);
    },
    bytes: () => bytes,
    restore: () => {
      Object.defineProperty(stream, 'write', { configurable: true, writable: true, value: original });
    },
  };
}
