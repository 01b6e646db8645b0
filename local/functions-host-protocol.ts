/**
 * What the stack (local/functions-host.ts) and its functions host (local/functions-host-main.ts)
 * say to each other over the fork's IPC channel: a request carries an id its reply repeats.
 */
import type { CommandMeter } from '../lib/store/sdk-metering.js';
import type { ConsumerOptions, SweeperOptions } from './queue-consumers.js';
import type { StreamRouterOptions } from './stream-router.js';

/** What a runner is given in the host: its options without what cannot cross a process (functions). */
export type HostedRunner =
  | { kind: 'consumers'; options: Omit<ConsumerOptions, 'log'> }
  | { kind: 'sweeper'; options: Omit<SweeperOptions, 'log'> }
  | { kind: 'streams'; options: Omit<StreamRouterOptions, 'log' | 'invoke'> };

export type HostRequest =
  | { type: 'start'; id: number; runner: HostedRunner }
  | { type: 'stop'; id: number; runnerId: number }
  /** The host's SDK meter (lib/store/sdk-metering.ts): its counts, then reset when asked. */
  | { type: 'meter'; id: number; reset: boolean }
  /** Stop every runner and exit. */
  | { type: 'exit'; id: number };

export type HostReply =
  | { type: 'ready' }
  | { type: 'done'; id: number; runnerId?: number; meter?: Record<string, CommandMeter> | null }
  | { type: 'failed'; id: number; message: string }
  | { type: 'log'; message: string; error?: string };
