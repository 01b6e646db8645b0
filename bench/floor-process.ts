/**
 * The floors' own process (bench/floor-worker.ts, forked with tsx): with the stack's functions in
 * the functions host (local/functions-host.ts), a figure's sends go out from a process where the
 * bench's receiver, the API and the emulators are not; the floor's sends do the same from here, so
 * figure and floor keep one process shape (docs/performance.md). One process for the whole run,
 * warmed by an unmeasured floor as the functions host is by the warm-up burst. It has the stack's
 * environment (the platform clients, the token key, the tables), and is guarded like every child.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guardChild } from '../local/child-guard.js';
import type { FloorSends, FloorSpec } from './burst-floor.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export type FloorRequest = { type: 'run'; spec: FloorSpec } | { type: 'exit' };
export type FloorReply = { type: 'ready' } | { type: 'result'; sends: FloorSends } | { type: 'error'; message: string };

export class FloorProcess {
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  private pending: { resolve: (sends: FloorSends) => void; reject: (error: Error) => void } | null = null;

  constructor(env: Record<string, string>) {
    this.child = fork(join(HERE, 'floor-worker.ts'), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const guard = guardChild(this.child);
    this.ready = new Promise((resolveReady, rejectReady) => {
      this.child.once('error', rejectReady);
      this.child.on('message', (reply: FloorReply) => {
        if (reply.type === 'ready') resolveReady();
        else if (reply.type === 'result') this.pending?.resolve(reply.sends);
        else this.pending?.reject(new Error(`floor process: ${reply.message}`));
        if (reply.type !== 'ready') this.pending = null;
      });
      this.child.once('exit', (code) => {
        guard.release();
        const error = new Error(`floor process exited (${code})`);
        rejectReady(error);
        this.pending?.reject(error);
      });
    });
    // A start that fails is reported by the first run.
    this.ready.catch(() => undefined);
  }

  async run(spec: FloorSpec): Promise<FloorSends> {
    await this.ready;
    return new Promise<FloorSends>((resolveRun, rejectRun) => {
      this.pending = { resolve: resolveRun, reject: rejectRun };
      this.child.send({ type: 'run', spec } satisfies FloorRequest);
    });
  }

  stop(): void {
    if (this.child.connected) this.child.send({ type: 'exit' } satisfies FloorRequest);
    setTimeout(() => this.child.kill(), 1000).unref();
  }
}
