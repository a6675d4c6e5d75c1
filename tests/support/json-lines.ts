/**
 * The JSON lines this process writes to stdout and stderr (log lines, EMF metric lines), pushed
 * to `into` and kept out of the test output; other output passes. Returns what puts the streams
 * back.
 */
export function keepJsonLines(into: Record<string, unknown>[]): () => void {
  const restores = [process.stdout, process.stderr].map((stream) => {
    const original = stream.write.bind(stream);
    stream.write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const others = text.split('\n').filter((line) => {
        if (!line.startsWith('{')) return line !== '';
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) into.push({ ...parsed });
        return false;
      });
      if (others.length > 0) original(`${others.join('\n')}\n`);
      rest.find((r): r is () => void => typeof r === 'function')?.();
      return true;
    };
    return () => {
      stream.write = original;
    };
  });
  return () => restores.forEach((restore) => restore());
}
