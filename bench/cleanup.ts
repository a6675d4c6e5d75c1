import { readdirSync, readFileSync } from 'node:fs';

/*
 * Everything the bench starts (DynamoDB Local, servers, child processes) registers how to stop
 * it here. stopAll() runs on the way out, on success, error, Ctrl-C or SIGTERM; a last
 * synchronous sweep on 'exit' kills any child process of ours that is still alive, by its id.
 */

type Stopper = () => Promise<void> | void;

const stoppers: { name: string; stop: Stopper }[] = [];
let stopping: Promise<void> | undefined;
let interrupted = false;

/** True once Ctrl-C or SIGTERM asked the bench to stop: failures after that are its echo. */
export const wasInterrupted = (): boolean => interrupted;

export function onCleanup(name: string, stop: Stopper): void {
  stoppers.push({ name, stop });
}

export function stopAll(): Promise<void> {
  stopping ??= (async () => {
    for (const { name, stop } of stoppers.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        console.error(`bench: could not stop ${name}:`, error);
      }
    }
  })();
  return stopping;
}

/** The ids of this process's direct children, read from /proc (Linux); empty elsewhere. */
function childPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'.
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
          return Number(ppid) === process.pid;
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

export function installExitHandlers(): void {
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    console.error(`\nbench: ${signal}, stopping DynamoDB Local and child processes...`);
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', () => {
    for (const pid of childPids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}
