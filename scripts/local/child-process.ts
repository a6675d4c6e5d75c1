import type { ChildProcess } from 'node:child_process';

/** Everything a child prints (its last `keep` characters, when given), kept for error reports. */
export function collectOutput(child: ChildProcess, keep = Infinity): () => string {
  let output = '';
  const add = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > keep) output = output.slice(-keep);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => output;
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the child has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
