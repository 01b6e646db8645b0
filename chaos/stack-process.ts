/**
 * The local stack as `npm start` runs it (local/main.ts), but as a process group of its own on
 * free ports with its own DATA_DIR, so the crash test can kill -9 all of it at once (the group)
 * or only its main process, and then look for anything that survived.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { guardChild } from '../local/child-guard.js';
import { listenOnLoopback } from '../local/free-port.js';
import { REPO_ROOT } from '../local/lambda-runtime.js';
import type { StackInfo } from '../local/stack.js';

export interface StackProcess {
  pid: number;
  info: StackInfo;
  /** When the process was spawned and when it printed that it is ready (Date.now()). */
  spawnedAt: number;
  readyAt: number;
  exited: Promise<void>;
}

const READY_LINE = 'Press Ctrl+C to stop.';

/**
 * A free port for the stack's API that every restart can listen on again: below the kernel's
 * ephemeral range, which the outgoing connections of every process on the machine draw their local
 * ports from. A port picked by listening on 0 is in that range, and between a kill and the restart
 * a connection (of this run, or of anything else the machine runs) took it as its own local port
 * and the restart failed with EADDRINUSE (two chaos runs in three, on a busy machine).
 */
export async function restartablePort(): Promise<number> {
  let ephemeralLow = 32768;
  try {
    const [low] = (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low > 2048) ephemeralLow = low;
  } catch {
    // Not Linux: the usual default.
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * Math.max(1, ephemeralLow - 20_000));
    const probe = createServer();
    try {
      await listenOnLoopback(probe, port);
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      return port;
    } catch {
      probe.close();
    }
  }
  throw new Error(`no free port found below ${ephemeralLow}`);
}

/**
 * Starts local/main.ts in a new process group; its output goes to `logFile`, its API on `port`
 * (restartablePort's); a restart passes the first run's, because media URLs (and so the bodies a client sends
 * again) carry the API's origin, as they carry the domain on AWS.
 */
export async function startStack(dataDir: string, logFile: string, port = 0, timeoutMs = 120_000): Promise<StackProcess> {
  const spawnedAt = Date.now();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      // The burst and the polling come from one key: the per-key rate limit is not under test here.
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_DAY: '100000000',
    },
  });
  // If this harness dies, the stack's main process dies with it (and its own guards take the rest).
  guardChild(child);
  const log = createWriteStream(logFile, { flags: 'a' });
  let seen = '';
  let ready = false;
  const onData = (chunk: Buffer): void => {
    log.write(chunk);
    if (!ready) seen = (seen + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => log.end());
  const deadline = Date.now() + timeoutMs;
  while (!seen.includes(READY_LINE)) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the stack exited during start-up; see ${logFile}`);
    if (Date.now() > deadline) {
      killGroup(child.pid ?? -1);
      throw new Error(`the stack did not start within ${timeoutMs} ms; see ${logFile}`);
    }
    await sleep(100);
  }
  ready = true;
  const readyAt = Date.now();
  const info = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackInfo;
  return { pid: child.pid ?? -1, info, spawnedAt, readyAt, exited };
}

export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function killMainOnly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Live (not zombie) members of the process group `pgid`, from /proc/<pid>/stat. */
export async function groupMembers(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after its closing paren.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return members;
}

/** Processes whose command line mentions `text`: DynamoDB Local has -dbPath <DATA_DIR>/dynamodb, the sandbox <DATA_DIR>/sandbox. */
export async function processesMentioning(text: string): Promise<{ pid: number; cmdline: string }[]> {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      // A zombie has an empty command line: it is dead, only not reaped yet.
      if (cmdline.includes(text)) found.push({ pid: Number(entry), cmdline: cmdline.slice(0, 160) });
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

/** What is left of a stack `waitMs` after its kill: its DynamoDB Local JVM or sandbox process, if any. */
export async function survivorsOf(dataDir: string, waitMs = 10_000): Promise<{ pid: number; cmdline: string }[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = [...(await processesMentioning(join(dataDir, 'dynamodb'))), ...(await processesMentioning(join(dataDir, 'sandbox')))];
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(200);
  }
}

/** SIGTERM, as Ctrl+C would; SIGKILL to the group when it has not stopped within `graceMs`. */
export async function stopStack(stack: StackProcess, graceMs = 20_000): Promise<void> {
  try {
    process.kill(stack.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  await Promise.race([stack.exited, sleep(graceMs)]);
  killGroup(stack.pid);
  const deadline = Date.now() + 10_000;
  while ((await groupMembers(stack.pid)).length > 0 && Date.now() < deadline) await sleep(100);
}
