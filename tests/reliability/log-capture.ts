type Write = typeof process.stdout.write;

/**
 * Collects every structured log line this process writes (Powertools Logger writes INFO to
 * stdout and WARN/ERROR to stderr), keeping them out of the test output; other output passes.
 */
export function captureLogs(): { lines: () => string[]; restore: () => void } {
  const captured: string[] = [];
  const patch = (stream: NodeJS.WriteStream): (() => void) => {
    const original: Write = stream.write.bind(stream);
    let pending = '';
    const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      const passOn = parts.filter((line) => {
        if (!line.startsWith('{"level"')) return true;
        captured.push(line);
        return false;
      });
      if (passOn.length > 0) original(`${passOn.join('\n')}\n`);
      rest.find((r): r is () => void => typeof r === 'function')?.();
      return true;
    };
    stream.write = write;
    return () => {
      stream.write = original;
    };
  };
  const restores = [patch(process.stdout), patch(process.stderr)];
  return {
    lines: () => captured,
    restore: () => restores.forEach((restore) => restore()),
  };
}

const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}/;
const ACCOUNT_NUMBER = /(?<!\d)\d{20}(?!\d)/;

/** Lines that leak a JWT or a full account number, or an error line without its correlationId. */
export function logLeaks(lines: string[]): string[] {
  return lines.filter((line) => {
    if (JWT.test(line) || ACCOUNT_NUMBER.test(line)) return true;
    // Wherever the JSON starts on the line (serverless offline may prefix what a function prints).
    const start = line.indexOf('{"level":');
    if (start < 0 || !/^\{"level":"(ERROR|CRITICAL)"/.test(line.slice(start))) return false;
    const parsed: unknown = JSON.parse(line.slice(start));
    return !(parsed !== null && typeof parsed === 'object' && 'correlationId' in parsed && typeof parsed.correlationId === 'string');
  });
}
