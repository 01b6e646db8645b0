/**
 * DynamoDB Local is a JVM child process. A JVM left behind keeps its port and its database file
 * locked, so the next `npm start` or test run fails in confusing ways. Every child registered here
 * is killed however this process ends:
 *
 * - normal exit, process.exit(), an uncaught exception or an unhandled rejection: the 'exit' event
 *   (which Node emits in all of these cases) kills the children synchronously;
 * - SIGINT / SIGTERM / SIGHUP: Node's default action ends the process without an 'exit' event, so
 *   a listener is installed. When someone else also listens (npm start's clean shutdown, vitest),
 *   they own the shutdown and the 'exit' event still covers us; when nobody does, the children are
 *   killed and the signal is re-raised so the process ends exactly as it would have;
 * - SIGKILL of this process (nothing runs in-process then): a tiny `sh` watchdog per child blocks
 *   reading a pipe from us. When we die the kernel closes the pipe, `read` returns, and the
 *   watchdog kills the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const guarded = new Map<ChildProcess, ChildProcess | null>();
let installed = false;

function killAllNow(): void {
  for (const [child, watchdog] of guarded) {
    // SIGKILL: we may be inside an 'exit' listener, where nothing asynchronous runs any more.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    watchdog?.kill('SIGKILL');
  }
  guarded.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAllNow();
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
}

function startWatchdog(pid: number): ChildProcess | null {
  try {
    const watchdog = spawn('sh', ['-c', `read _ignored; kill -9 ${pid} 2>/dev/null`], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watchdog.on('error', () => undefined);
    // Neither the watchdog nor its pipe may keep this process alive.
    watchdog.unref();
    watchdog.stdin?.on('error', () => undefined);
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return watchdog;
  } catch {
    // No `sh` (unusual): the in-process guards still cover everything but SIGKILL.
    return null;
  }
}

/** Kills `child` whenever this process ends, until `release` is called. */
export function guardChild(child: ChildProcess): { release(): void } {
  install();
  const watchdog = child.pid === undefined ? null : startWatchdog(child.pid);
  guarded.set(child, watchdog);
  const release = (): void => {
    if (!guarded.has(child)) return;
    guarded.delete(child);
    watchdog?.kill('SIGKILL');
  };
  child.once('exit', release);
  return { release };
}
