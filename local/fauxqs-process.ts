/**
 * fauxqs in a guarded child process (fauxqs-main.ts), as the sandbox platforms are
 * (sandbox/process.ts): killed however this process ends (child-guard.ts), and stopping by
 * itself when its stdin, held by us, closes.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { guardChild } from './child-guard.js';
import { REPO_ROOT } from './lambda-runtime.js';
import { sqsEndpointFor } from './messaging.js';
import { resolveLocalhostSubdomains } from './local-aws.js';

export interface FauxqsProcess {
  /** S3 endpoint (path-style requests). */
  endpoint: string;
  /** SQS endpoint: the host fauxqs puts in its queue URLs. */
  sqsEndpoint: string;
  port: number;
  pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the child has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export class FauxqsProcessError extends Error {
  readonly code = 'fauxqs_process_failed';
  constructor(message: string) {
    super(message);
    this.name = 'FauxqsProcessError';
  }
}

export async function startFauxqsProcess(options: { startTimeoutMs?: number } = {}): Promise<FauxqsProcess> {
  resolveLocalhostSubdomains();
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/fauxqs-main.ts'], { cwd: REPO_ROOT, env: process.env, stdio: ['pipe', 'pipe', 'inherit'] });
  const guard = guardChild(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(force);
    }
    guard.release();
  };
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new FauxqsProcessError('The fauxqs process did not start in time')), options.startTimeoutMs ?? 30_000);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      const port = Number((JSON.parse(line) as { port?: unknown }).port);
      if (Number.isInteger(port) && port > 0) resolve(port);
      else reject(new FauxqsProcessError(`The fauxqs process said something unexpected: ${line.slice(0, 200)}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new FauxqsProcessError(`The fauxqs process could not be started: ${error.message}`));
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new FauxqsProcessError(`The fauxqs process exited during start-up (code ${child.exitCode})`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  child.stdout?.resume();
  let stopping: Promise<void> | undefined;
  return { endpoint: `http://127.0.0.1:${port}`, sqsEndpoint: sqsEndpointFor(port), port, pid: child.pid ?? -1, stop: () => (stopping ??= stop()) };
}
