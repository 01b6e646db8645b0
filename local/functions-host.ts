/**
 * The functions host: the stack's functions that are not the API (queue consumers, sweeper,
 * metrics collector, the webhook router's stream mapping) in a child process of their own
 * (local/functions-host-main.ts, forked with tsx), as on AWS each function runs on a CPU of its
 * own and the API's requests never share a thread with a burst's publishes. startStackServices
 * starts it with `functions: 'process'` (the bench, npm start); the tests keep every function in
 * their own process, where they read its state.
 *
 * The child gets the stack's environment at the fork (every handler reads its configuration from
 * there). It is guarded as DynamoDB Local is (local/child-guard.ts: killed however this process
 * ends, SIGKILL included) and also exits by itself when the IPC channel to this process closes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { CommandMeter } from '../lib/store/sdk-metering.js';
import { guardChild } from './child-guard.js';
import type { HostReply, HostRequest, HostedRunner } from './functions-host-protocol.js';
import { entryPath } from './lambda-runtime.js';
import type { ConsumerOptions, Runner, SweeperOptions } from './queue-consumers.js';
import type { StreamRouterOptions } from './stream-router.js';

export interface FunctionsHost {
  pid: number;
  startConsumers(options: Omit<ConsumerOptions, 'log'>): Promise<Runner>;
  startSweeper(options: Omit<SweeperOptions, 'log'>): Promise<Runner>;
  startStreamRouter(options: Omit<StreamRouterOptions, 'log' | 'invoke'>): Promise<Runner>;
  /** The host's SDK counts (null when metering is off), reset afterwards when `reset`. */
  meter(reset: boolean): Promise<Record<string, CommandMeter> | null>;
  /** Stops every runner (in-flight invocations finish), then the process; SIGKILL after 10 s. Safe to call twice. */
  stop(): Promise<void>;
}

export class FunctionsHostError extends Error {
  readonly code = 'functions_host_failed';
  constructor(message: string) {
    super(message);
    this.name = 'FunctionsHostError';
  }
}

type Request = HostRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export async function startFunctionsHost(options: {
  /** The handlers' environment (the stack's, computed in this process). */
  env: Record<string, string>;
  log: (message: string, error?: unknown) => void;
  startTimeoutMs?: number;
}): Promise<FunctionsHost> {
  const child: ChildProcess = fork(entryPath('local/functions-host-main.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const guard = guardChild(child);
  const pending = new Map<number, { resolve: (reply: Extract<HostReply, { type: 'done' }>) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exited = false;
  child.on('message', (message: HostReply) => {
    if (message.type === 'log') options.log(message.message, message.error);
    else if (message.type === 'done') pending.get(message.id)?.resolve(message);
    else if (message.type === 'failed') pending.get(message.id)?.reject(new FunctionsHostError(message.message));
    if (message.type === 'done' || message.type === 'failed') pending.delete(message.id);
  });
  const gone = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      for (const waiting of pending.values()) waiting.reject(new FunctionsHostError(`the functions host exited (code ${code}, signal ${signal})`));
      pending.clear();
      guard.release();
      resolve();
    });
  });

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new FunctionsHostError('the functions host did not start in time')), options.startTimeoutMs ?? 60_000);
    const onMessage = (message: HostReply): void => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve();
    };
    child.on('message', onMessage);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new FunctionsHostError(`the functions host could not be started: ${error.message}`));
    });
    void gone.then(() => {
      clearTimeout(timer);
      reject(new FunctionsHostError('the functions host exited during start-up'));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });

  const ask = (request: Request): Promise<Extract<HostReply, { type: 'done' }>> =>
    new Promise((resolve, reject) => {
      if (exited || !child.connected) {
        reject(new FunctionsHostError('the functions host is not running'));
        return;
      }
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...request, id } as HostRequest);
    });
  const startRunner = async (runner: HostedRunner): Promise<Runner> => {
    const { runnerId } = await ask({ type: 'start', runner });
    let stopping: Promise<void> | undefined;
    return {
      stop: () =>
        (stopping ??= exited ? Promise.resolve() : ask({ type: 'stop', runnerId: runnerId ?? 0 }).then(
            () => undefined,
            () => undefined,
          )),
    };
  };

  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid ?? -1,
    startConsumers: (consumers) => startRunner({ kind: 'consumers', options: consumers }),
    startSweeper: (sweeper) => startRunner({ kind: 'sweeper', options: sweeper }),
    startStreamRouter: (router) => startRunner({ kind: 'streams', options: router }),
    meter: async (reset) => (await ask({ type: 'meter', reset })).meter ?? null,
    stop: () =>
      (stopping ??= (async () => {
        if (exited) return;
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await ask({ type: 'exit' }).catch(() => undefined);
        await gone;
        clearTimeout(force);
      })()),
  };
}
