/**
 * The functions host's process (local/functions-host.ts starts it): the stack's functions that
 * are not the API (queue consumers, sweeper, metrics collector, the webhook router's stream
 * mapping) run here, on a thread of their own as each Lambda function has its own CPU on AWS.
 * Their environment is the stack's, given at the fork. It ends when its parent goes (the IPC
 * channel closes), and leaves SIGINT to the parent, which stops it cleanly.
 */
// First: the switches for runtime notices must be set before any AWS SDK client exists.
import './runtime-notices.js';
import { sdkMeter } from '../lib/store/sdk-metering.js';
import type { HostReply, HostRequest, HostedRunner } from './functions-host-protocol.js';
import { startQueueConsumers, startSweeper, type Runner } from './queue-consumers.js';
import { startStreamRouter } from './stream-router.js';

const runners = new Map<number, Runner>();
let nextRunner = 1;

function reply(message: HostReply): void {
  if (process.connected) process.send?.(message);
}

const log = (message: string, error?: unknown): void =>
  reply({ type: 'log', message, ...(error === undefined ? {} : { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }) });

async function start(runner: HostedRunner): Promise<Runner> {
  switch (runner.kind) {
    case 'consumers':
      return startQueueConsumers({ ...runner.options, log });
    case 'sweeper':
      return startSweeper({ ...runner.options, log });
    case 'streams':
      return startStreamRouter({ ...runner.options, log });
  }
}

async function stopAll(): Promise<void> {
  const all = [...runners.values()].reverse();
  runners.clear();
  await Promise.allSettled(all.map((runner) => runner.stop()));
}

async function handle(request: HostRequest): Promise<HostReply> {
  switch (request.type) {
    case 'start': {
      const id = nextRunner++;
      runners.set(id, await start(request.runner));
      return { type: 'done', id: request.id, runnerId: id };
    }
    case 'stop': {
      const runner = runners.get(request.runnerId);
      runners.delete(request.runnerId);
      await runner?.stop();
      return { type: 'done', id: request.id };
    }
    case 'meter': {
      const meter = sdkMeter();
      const commands = meter ? structuredClone(meter.commands) : null;
      if (request.reset) meter?.reset();
      return { type: 'done', id: request.id, meter: commands };
    }
    case 'exit':
      await stopAll();
      return { type: 'done', id: request.id };
  }
}

process.on('message', (request: HostRequest) => {
  handle(request).then(
    (answer) => {
      reply(answer);
      if (request.type === 'exit') process.disconnect();
    },
    (error: unknown) => reply({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) }),
  );
});
// The parent owns the shutdown: a Ctrl-C reaches the whole process group, and the parent then
// asks for a clean stop (in-flight batches finish, as a stopping stack lets them).
process.on('SIGINT', () => undefined);
// The parent is gone (exited, killed): nothing is left to serve.
process.on('disconnect', () => {
  void stopAll().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 5_000).unref();
});
reply({ type: 'ready' });
