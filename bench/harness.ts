/**
 * What every phase of `npm run bench` shares: the log line, the users and the running stack a
 * phase is given, and the API calls that set a measurement up (never measured themselves).
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunningStack } from '../local/stack.js';
import type { FloorProcess } from './floor-process.js';
import type { LoadGenerator } from './load-generator.js';
import type { S3Meter } from './s3-meter.js';

export const started = Date.now();
export const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s`;
export const log = (line: string): void => console.error(`[bench ${elapsed()}] ${line}`);
export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export interface BenchUser {
  userId: string;
  apiKey: string;
  workspaceId: string;
  accountIds: string[];
}

export interface PostResult {
  id: string | null;
  status: string;
  reason: string | null;
}

export async function call<T>(stack: RunningStack, user: BenchUser, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${user.apiKey}` };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['idempotency-key'] = randomUUID();
  }
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as T };
}

/** POST /posts; throws unless every target was accepted. Returns the post ids. */
export async function createPosts(stack: RunningStack, user: BenchUser, body: Record<string, unknown>): Promise<string[]> {
  const out = await call<{ posts: PostResult[] }>(stack, user, 'POST', '/posts', body);
  const posts = out.body.posts ?? [];
  if (out.status !== 202 || posts.some((post) => post.status !== 'accepted' || post.id === null)) {
    throw new Error(`create failed: ${out.status} ${JSON.stringify(out.body).slice(0, 400)}`);
  }
  return posts.map((post) => post.id as string);
}

/** Runs `tasks` with at most `width` at once. */
export async function inParallel<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        const task = tasks[index];
        if (task) results[index] = await task();
      }
    }),
  );
  return results;
}

export function inMinutes(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}

export type BenchUsers = Record<'api' | 'warmUp' | 'burst' | 'burstLarge' | 'floor' | 'floorLarge' | 'spread' | 'cost' | 'scale', BenchUser>;

export async function provisionUsers(): Promise<BenchUsers> {
  // Imported only now: the provisioning helper reads the stack's configuration from the environment.
  const { provisionUser } = await import('../test/support/provision.js');
  const make = async (accounts: number): Promise<BenchUser> => {
    const user = await provisionUser({
      quota: 1_000_000_000,
      accounts: Array.from({ length: accounts }, (_, index) => ({ platform: index % 2 === 0 ? 'x' : 'linkedin' })),
    });
    return { userId: user.userId, apiKey: user.apiKey, workspaceId: user.workspaceIds[0] ?? '', accountIds: user.accounts.map((account) => account.id) };
  };
  // burstLarge: the 2,000-post burst on accounts of its own (80 posts each, within X's 100 per 15 minutes);
  // warmUp: the burst phase's unmeasured first burst (bench/phases/burst.ts), on accounts of its own too;
  // floor and floorLarge: the bursts' floors (bench/burst-floor.ts), their bare sends within X's window too.
  return {
    api: await make(25),
    warmUp: await make(25),
    burst: await make(25),
    burstLarge: await make(25),
    floor: await make(25),
    floorLarge: await make(25),
    spread: await make(2),
    cost: await make(25),
    scale: await make(2),
  };
}

/** What a phase that needs the stack is given. */
export interface BenchContext {
  stack: RunningStack;
  /** A client of this process on the stack's DynamoDB Local, for setup and direct reads. */
  db: DynamoDBClient;
  load: LoadGenerator;
  users: BenchUsers;
  /** DynamoDB Local's JVM, for its CPU use; null when unknown. */
  jvmPid: number | null;
  /** The stack's S3 requests and the bytes they read (bench/s3-meter.ts). */
  s3: S3Meter;
  /** The floors' own process when the stack's functions run in the functions host; null: floors are sent from this process. */
  floors: FloorProcess | null;
}
