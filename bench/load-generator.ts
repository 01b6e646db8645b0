/**
 * The load generator's process (bench/load-worker.ts, autocannon) seen from the bench: one run at
 * a time, and a run that got anything but 2xx answers fails the bench.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec, WorkerReply } from './load-protocol.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export class LoadGenerator {
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  private pending: { resolve: (result: LoadResult) => void; reject: (error: Error) => void } | null = null;

  constructor() {
    this.child = fork(join(HERE, 'load-worker.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.ready = new Promise((resolveReady, rejectReady) => {
      this.child.once('error', rejectReady);
      this.child.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') resolveReady();
        else if (reply.type === 'result') this.pending?.resolve(reply.result);
        else this.pending?.reject(new Error(`load worker: ${reply.message}`));
        if (reply.type !== 'ready') this.pending = null;
      });
      this.child.once('exit', (code) => {
        const error = new Error(`load worker exited (${code})`);
        rejectReady(error);
        this.pending?.reject(error);
      });
    });
  }

  async run(spec: LoadSpec): Promise<LoadResult> {
    await this.ready;
    const result = await new Promise<LoadResult>((resolveRun, rejectRun) => {
      this.pending = { resolve: resolveRun, reject: rejectRun };
      this.child.send({ type: 'run', spec });
    });
    const failed = Object.entries(result.statusCounts).filter(([status]) => !status.startsWith('2'));
    if (failed.length > 0 || result.errors > 0) {
      throw new Error(`${spec.name}: ${JSON.stringify(result.statusCounts)} errors=${result.errors}; e.g. ${result.sampleError ?? ''}`);
    }
    // Not one answer in the run (a busy hour held every request past its end): no latency to
    // compare, so the phase fails with this reason instead of printing a ratio of Infinity.
    if (result.requests === 0) throw new Error(`${spec.name}: no response within the run (${result.sent} sent, ${result.timeouts} timed out)`);
    return result;
  }

  stop(): void {
    if (this.child.connected) this.child.send({ type: 'exit' });
    setTimeout(() => this.child.kill(), 1000).unref();
  }
}
