/**
 * Starts the sandbox platforms (main.ts) as a guarded child process, as DynamoDB Local is: the
 * child is killed however this process ends (child-guard.ts), and it also stops by itself when
 * its stdin, held by us, closes. Its record lives in `journalDir` and outlives both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { guardChild } from '../child-guard.js';
import { REPO_ROOT } from '../lambda-runtime.js';

export interface SandboxProcessOptions {
  /** Where its record of posts is kept; null: none, memory only (the bench's). */
  journalDir: string | null;
  /** directory-behaviour.ts `reuseMs` (the bench's); 0 by default. */
  behaviourReuseMs?: number;
  /** Where account behaviours are read (the directory table); every account is `ok` without it. */
  directory?: { dynamodbEndpoint: string; tableName: string };
  port?: number;
  startTimeoutMs?: number;
}

export interface SandboxProcess {
  origin: string;
  xBaseUrl: string;
  linkedinBaseUrl: string;
  pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the child has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export class SandboxProcessError extends Error {
  readonly code = 'sandbox_process_failed';
  constructor(message: string) {
    super(message);
    this.name = 'SandboxProcessError';
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startSandboxProcess(options: SandboxProcessOptions): Promise<SandboxProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/sandbox/main.ts', options.journalDir ?? '-'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      SANDBOX_PORT: String(options.port ?? 0),
      SANDBOX_BEHAVIOUR_REUSE_MS: String(options.behaviourReuseMs ?? 0),
      ...(options.directory
        ? { SANDBOX_DYNAMODB_ENDPOINT: options.directory.dynamodbEndpoint, SANDBOX_DIRECTORY_TABLE: options.directory.tableName }
        : {}),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const guard = guardChild(child);
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new SandboxProcessError('The sandbox process did not start in time')), options.startTimeoutMs ?? 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(String((JSON.parse(line) as { origin: unknown }).origin));
      } catch {
        reject(new SandboxProcessError(`The sandbox process said something unexpected: ${line.slice(0, 200)}`));
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new SandboxProcessError(`The sandbox process could not be started: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new SandboxProcessError(`The sandbox process exited during start-up (code ${code}, signal ${signal})`));
    });
  }).catch(async (error: unknown) => {
    await stopChild(child);
    guard.release();
    throw error;
  });
  // Nothing more is read; its output must not fill a pipe nobody drains.
  child.stdout?.resume();
  let stopping: Promise<void> | undefined;
  return {
    origin,
    xBaseUrl: `${origin}/x`,
    linkedinBaseUrl: `${origin}/linkedin`,
    pid: child.pid ?? -1,
    stop: () => (stopping ??= stopChild(child).finally(() => guard.release())),
  };
}
