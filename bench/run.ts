/**
 * `npm run bench`: the performance figures of issue 6 against the local stack, with budgets.
 *
 *   1. publish lag      500 posts due at the same second; 200 posts spread over two minutes
 *   2. API              create (1 and 25 targets), get, list, delete at concurrency 1 and 16
 *   3. scale            list page and get with 1,000 and with 100,000 posts in the table
 *   4. cost             DynamoDB requests and capacity units, SQS and Scheduler calls, per
 *                       operation; the AWS bill per 1,000 published posts
 *   5. cold start       minified bundle size and import time of every function
 *   6. overhead         p50 of GET /posts/{id} over p50 of a bare GetItem
 *
 * The stack runs in this process (DynamoDB Local as a JVM child with its full JIT, in memory;
 * fauxqs, the Scheduler stand-in, the sandbox platforms, the queue pollers and the API server
 * here), with its own data folder (.bench-data, wiped at start). Load comes from autocannon in a
 * child process (bench/load-worker.ts), so the server never shares its event loop with the load.
 * Results: a table on stdout and bench/results.json.
 *
 * BENCH_ONLY=cold,scale,burst,spread,api,cost runs a subset (for working on one figure).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetItemCommand, QueryCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { measureColdStart, type BundleFigures } from './cold-start.js';
import type { LatencySummary, LoadResult, LoadSpec, WorkerReply } from './load-protocol.js';
import { PRICES, PRICES_CHECKED_ON } from './prices.js';
import { seedPosts, type SeedOwner } from './seed.js';
import { round, summarize } from './stats.js';
import { ENV } from '../lib/config.js';
import type { Post } from '../lib/domain/model.js';
import { publishMessage } from '../lib/dispatch/messages.js';
import { newId } from '../lib/ids.js';
import { itemToPost, POST_INDEXES, statusPartitionKey } from '../lib/store/post-item.js';
import { sdkMeter, type CommandMeter } from '../lib/store/sdk-metering.js';
import { SWEEPER } from '../functions/catalogue.js';
import { dynamoDbClientFor, startDynamoDbLocal, type DynamoDbLocal } from '../local/dynamodb-local.js';
import { lambdaContext, loadHandler } from '../local/lambda-runtime.js';
import { sqsClientFor, startFauxqsServer, type Fauxqs } from '../local/messaging.js';
import { startSweeper, type Runner } from '../local/queue-consumers.js';
import { startStackServices, type RunningStack } from '../local/stack.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const DATA_DIR = resolve('.bench-data');
const RESULTS_FILE = join(HERE, 'results.json');
const PHASES = ['cold', 'scale', 'burst', 'spread', 'api', 'cost'] as const;
type Phase = (typeof PHASES)[number];
const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const runs = (phase: Phase): boolean => only.length === 0 || only.includes(phase);

const BUDGETS = {
  publishLagP99Ms: 1000,
  scaleRatio: 1.5,
  createDynamoRequests: 8,
  bundleBytes: 500_000,
  importMs: 150,
  overheadRatio: 3,
};

/** Lambda memory sizes of infra/stacks/api-stack.ts, for the GB-second estimate. */
const MEMORY_MB = { api: 512, worker: 1024 };
/** The platform call dominates the worker's billed time on AWS and cannot be measured here. */
const ASSUMED_WORKER_MS_PER_PUBLISH = 500;

const started = Date.now();
const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s`;
const log = (line: string): void => console.error(`[bench ${elapsed()}] ${line}`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/* ------------------------------------------------------------------ load generator process */

class LoadGenerator {
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
    return result;
  }

  stop(): void {
    if (this.child.connected) this.child.send({ type: 'exit' });
    setTimeout(() => this.child.kill(), 1000).unref();
  }
}

/* ------------------------------------------------------------------ API helpers (setup, not measured) */

interface BenchUser {
  userId: string;
  apiKey: string;
  workspaceId: string;
  accountIds: string[];
}

interface PostResult {
  id: string | null;
  status: string;
  reason: string | null;
}

async function call<T>(stack: RunningStack, user: BenchUser, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${user.apiKey}` };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['idempotency-key'] = randomUUID();
  }
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as T };
}

/** POST /posts; throws unless every target was accepted. Returns the post ids. */
async function createPosts(stack: RunningStack, user: BenchUser, body: Record<string, unknown>): Promise<string[]> {
  const out = await call<{ posts: PostResult[] }>(stack, user, 'POST', '/posts', body);
  const posts = out.body.posts ?? [];
  if (out.status !== 202 || posts.some((post) => post.status !== 'accepted' || post.id === null)) {
    throw new Error(`create failed: ${out.status} ${JSON.stringify(out.body).slice(0, 400)}`);
  }
  return posts.map((post) => post.id as string);
}

/** Runs `tasks` with at most `width` at once. */
async function inParallel<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
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

function inMinutes(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}

/* ------------------------------------------------------------------ posts read straight from DynamoDB */

async function countByStatus(db: DynamoDBClient, table: string, userId: string, status: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, never> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: POST_INDEXES.byUserStatus,
        KeyConditionExpression: 'statusPk = :pk',
        ExpressionAttributeValues: { ':pk': { S: statusPartitionKey(userId, status) } },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    count += out.Count ?? 0;
    startKey = out.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey);
  return count;
}

async function postsOf(db: DynamoDBClient, table: string, userId: string): Promise<Post[]> {
  const posts: Post[] = [];
  let startKey: Record<string, never> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: POST_INDEXES.byUser,
        KeyConditionExpression: 'listPk = :pk',
        ExpressionAttributeValues: { ':pk': { S: userId } },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) posts.push(itemToPost(unmarshall(item)));
    startKey = out.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey);
  return posts;
}

/* ------------------------------------------------------------------ CPU use of this process and of the JVM */

interface CpuSnapshot {
  at: number;
  /** Core-seconds used so far. */
  node: number;
  jvm: number | null;
}

const CLOCK_TICKS_PER_SECOND = 100;

async function cpuSnapshot(jvmPid: number | null): Promise<CpuSnapshot> {
  const usage = process.cpuUsage();
  let jvm: number | null = null;
  if (jvmPid !== null) {
    try {
      // /proc/<pid>/stat: utime and stime are fields 14 and 15 (after the parenthesised name).
      const stat = await readFile(`/proc/${jvmPid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      jvm = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    } catch {
      jvm = null;
    }
  }
  return { at: Date.now(), node: (usage.user + usage.system) / 1e6, jvm };
}

interface CpuUse {
  wallSeconds: number;
  /** Cores busy on average over the window. */
  nodeCores: number;
  jvmCores: number | null;
}

function cpuUse(from: CpuSnapshot, to: CpuSnapshot): CpuUse {
  const wallSeconds = (to.at - from.at) / 1000;
  return {
    wallSeconds,
    nodeCores: (to.node - from.node) / wallSeconds,
    jvmCores: from.jvm === null || to.jvm === null ? null : (to.jvm - from.jvm) / wallSeconds,
  };
}

/* ------------------------------------------------------------------ 1. publish lag */

interface LagFigures {
  posts: number;
  published: number;
  failed: number;
  lagMs: LatencySummary;
  lagMsByPlatform: Record<string, LatencySummary>;
  /** First publishedAt to last, and the posts per second over it. */
  drainMs: number;
  throughputPostsPerSecond: number;
  /** Due time of the first post to the last publishedAt. */
  lastPublishedAfterDueMs: number;
  /** While the posts went out: how busy this process (API, worker, sandbox, queues) and DynamoDB Local were. */
  cpu?: CpuUse;
  /** Every DynamoDB request the service made while the posts went out, per published post. */
  dynamodbRequestsPerPost?: number;
  /** DynamoDB Local's own ceiling on this machine, measured right after (see dynamodbLocalCeiling). */
  dynamodbLocalCeiling?: { requestsPerSecond: number; concurrency: number; requests: number };
}

async function waitForOutcomes(db: DynamoDBClient, table: string, userId: string, expected: number, deadline: number): Promise<void> {
  for (;;) {
    const [published, failed] = await Promise.all([countByStatus(db, table, userId, 'published'), countByStatus(db, table, userId, 'failed')]);
    if (published + failed >= expected) return;
    if (Date.now() > deadline) throw new Error(`only ${published} published and ${failed} failed of ${expected} by the deadline`);
    await sleep(250);
  }
}

function lagFigures(posts: Post[]): LagFigures {
  const published = posts.filter((post) => post.status === 'published' && post.publishedAt !== null);
  const lag = (post: Post): number => Date.parse(post.publishedAt ?? '') - Date.parse(post.scheduledFor);
  const byPlatform: Record<string, LatencySummary> = {};
  for (const platform of ['x', 'linkedin']) byPlatform[platform] = summarize(published.filter((post) => post.platform === platform).map(lag));
  const times = published.map((post) => Date.parse(post.publishedAt ?? '')).sort((a, b) => a - b);
  const firstDue = Math.min(...posts.map((post) => Date.parse(post.scheduledFor)));
  const drainMs = (times[times.length - 1] ?? 0) - (times[0] ?? 0);
  return {
    posts: posts.length,
    published: published.length,
    failed: posts.filter((post) => post.status === 'failed').length,
    lagMs: summarize(published.map(lag)),
    lagMsByPlatform: byPlatform,
    drainMs,
    throughputPostsPerSecond: drainMs > 0 ? published.length / (drainMs / 1000) : Number.NaN,
    lastPublishedAfterDueMs: (times[times.length - 1] ?? 0) - firstDue,
  };
}

async function burstLoad(stack: RunningStack, db: DynamoDBClient, user: BenchUser, jvmPid: number | null): Promise<LagFigures> {
  // Twenty creates of 25 targets (both platforms), all due at the same whole second.
  const due = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000).toISOString();
  const creates = Array.from({ length: 20 }, (_, index) => () =>
    createPosts(stack, user, { accounts: user.accountIds, text: `Burst ${index} ${randomUUID()}`, scheduledFor: due }),
  );
  const ids = (await inParallel(creates, 4)).flat();
  log(`burst: ${ids.length} posts due at ${due} (created ${((Date.parse(due) - Date.now()) / 1000).toFixed(1)} s ahead)`);
  // Requests from two seconds before the due time (messages arrive early and wait); CPU from the
  // due time (nothing but waiting happens before it) to the last outcome.
  await sleep(Math.max(0, Date.parse(due) - 2_000 - Date.now()));
  sdkMeter()?.reset();
  await sleep(Math.max(0, Date.parse(due) - Date.now()));
  const before = await cpuSnapshot(jvmPid);
  await waitForOutcomes(db, stack.tables.posts, user.userId, ids.length, Date.parse(due) + 120_000);
  const after = await cpuSnapshot(jvmPid);
  const requests = Object.entries(sdkMeter()?.commands ?? {}).filter(([key]) => key.startsWith('dynamodb:')).reduce((total, [, meter]) => total + meter.requests, 0);
  const posts = await postsOf(db, stack.tables.posts, user.userId);
  const figures = lagFigures(posts);
  const ceiling = await dynamodbLocalCeiling(stack, db, posts.map((post) => post.id));
  return { ...figures, cpu: cpuUse(before, after), dynamodbRequestsPerPost: requests / Math.max(1, figures.published), dynamodbLocalCeiling: ceiling };
}

/**
 * How many small DynamoDB requests per second DynamoDB Local serves on this machine at the
 * worker's concurrency (a GetItem and a conditional UpdateItem in turn, like the worker's), with
 * nothing else running: the ceiling under the burst's drain rate.
 */
async function dynamodbLocalCeiling(stack: RunningStack, db: DynamoDBClient, postIds: string[]): Promise<{ requestsPerSecond: number; concurrency: number; requests: number }> {
  const requests = 4_000;
  const concurrency = 40;
  let next = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const index = next++;
        if (index % 2 === 0) {
          await db.send(new GetItemCommand({ TableName: stack.tables.posts, Key: { id: { S: postIds[index % postIds.length] ?? '' } }, ConsistentRead: true }));
        } else {
          await db.send(
            new UpdateItemCommand({
              TableName: stack.tables.counters,
              Key: { pk: { S: `BENCH#ceiling#${index % 200}` } },
              UpdateExpression: 'ADD #n :one',
              ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
              ExpressionAttributeNames: { '#n': 'n' },
              ExpressionAttributeValues: { ':one': { N: '1' }, ':max': { N: '1000000' } },
            }),
          );
        }
      }
    }),
  );
  return { requestsPerSecond: requests / ((performance.now() - begin) / 1000), concurrency, requests };
}

async function spreadLoad(stack: RunningStack, db: DynamoDBClient, user: BenchUser): Promise<LagFigures> {
  // 200 posts, one every 600 ms over two minutes (so every sub-second offset occurs), alternating platforms.
  const first = Date.now() + 8_000;
  const creates = Array.from({ length: 200 }, (_, index) => () =>
    createPosts(stack, user, {
      accounts: [user.accountIds[index % user.accountIds.length]],
      text: `Spread ${index} ${randomUUID()}`,
      scheduledFor: new Date(first + index * 600).toISOString(),
    }),
  );
  await inParallel(creates, 4);
  log(`spread: 200 posts due from ${new Date(first).toISOString()} over 120 s`);
  await waitForOutcomes(db, stack.tables.posts, user.userId, 200, first + 120_000 + 60_000);
  return lagFigures(await postsOf(db, stack.tables.posts, user.userId));
}

/* ------------------------------------------------------------------ 2. API latency and throughput */

interface ApiFigures {
  operation: string;
  connections: number;
  requests: number;
  throughputPerSecond: number;
  latencyMs: LatencySummary;
  /** Including retries of transactions that conflicted (the allowance counter is one item per user). */
  dynamodbRequestsPerRequest: number;
  /** Totals over the run (not per request). */
  dynamodbRequestsByCommand: Record<string, number>;
  dynamodbFailures: Record<string, number>;
}

interface MeteredRun {
  result: LoadResult;
  /** The SDK counters from just before the run until its last request was served. */
  commands: Record<string, CommandMeter>;
}

function apiFigures(operation: string, { result, commands }: MeteredRun): ApiFigures {
  const dynamo = Object.entries(commands).filter(([key]) => key.startsWith('dynamodb:'));
  const failures: Record<string, number> = {};
  for (const [, meter] of dynamo) for (const [name, count] of Object.entries(meter.failures)) failures[name] = (failures[name] ?? 0) + count;
  return {
    operation,
    connections: result.connections,
    requests: result.requests,
    throughputPerSecond: result.throughput,
    latencyMs: result.latency,
    // Per request sent: the server also serves the requests still in flight when a run ends.
    dynamodbRequestsPerRequest: dynamo.reduce((total, [, meter]) => total + meter.requests, 0) / Math.max(1, result.sent),
    dynamodbRequestsByCommand: Object.fromEntries(dynamo.map(([key, meter]) => [key.slice('dynamodb:'.length), meter.requests])),
    dynamodbFailures: failures,
  };
}

/* ------------------------------------------------------------------ 6. overhead, taken apart */

/**
 * Where the time of GET /posts/{id} goes: the two calls it makes to DynamoDB, each timed alone
 * with the service's own adapters (the rate limiter's counter update, the post store's read) on a
 * client of this process, and what is left for HTTP, the event, the pipeline and JSON. A GET's
 * count runs alongside its read, so the two overlap: the rest is the GET minus the longer one.
 */
async function overheadBreakdown(stack: RunningStack, db: DynamoDBClient, ids: string[]): Promise<Record<string, number>> {
  // Imported only now: these modules load the shared SDK client, which must see the stack's environment.
  const [{ DynamoDBDocumentClient }, { DynamoDbRateLimiter }, { DynamoDbPostStore }] = await Promise.all([
    import('@aws-sdk/lib-dynamodb'),
    import('../lib/store/dynamodb-rate-limiter.js'),
    import('../lib/store/dynamodb-post-store.js'),
  ]);
  const client = DynamoDBDocumentClient.from(db, { marshallOptions: { removeUndefinedValues: true } });
  const limiter = new DynamoDbRateLimiter({ limits: { perMinute: 1_000_000_000, perDay: 1_000_000_000 }, tableName: stack.tables.counters, client });
  const posts = new DynamoDbPostStore({ postsTable: stack.tables.posts, countersTable: stack.tables.counters, idempotencyTable: stack.tables.idempotency, client });
  const time = async (action: (index: number) => Promise<unknown>): Promise<number> => {
    const samples: number[] = [];
    for (let index = 0; index < 500; index++) {
      const begin = performance.now();
      await action(index);
      if (index >= 100) samples.push(performance.now() - begin);
    }
    return summarize(samples).p50;
  };
  const rateLimitMs = await time(() => limiter.hit({ kind: 'key', keyId: 'bench-overhead' }, new Date()));
  const getPostMs = await time((index) => posts.getPost(ids[index % ids.length] ?? ''));
  // A bare conditional counter update, for comparison with the limiter's own (one update per request).
  const oneCounterMs = await time((index) =>
    db.send(
      new UpdateItemCommand({
        TableName: stack.tables.counters,
        Key: { pk: { S: `BENCH#one-counter#${index % 10}` } },
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': { N: '1' }, ':max': { N: '1000000000' } },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  );
  return { rateLimitP50Ms: rateLimitMs, postStoreGetP50Ms: getPostMs, oneCounterUpdateP50Ms: oneCounterMs };
}

/* ------------------------------------------------------------------ 4. cost */

interface OperationCost {
  operation: string;
  /** Per operation (averaged over the repetitions). */
  dynamodbRequests: number;
  readUnits: number;
  writeUnits: number;
  /** Units DynamoDB Local reported, before scaling transactions. */
  reportedUnits: number;
  failedConditionalWrites: number;
  sqsRequests: number;
  sqsMessages: number;
  schedulerCalls: number;
  byCommand: Record<string, number>;
}

const READ_COMMANDS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

function costOf(operation: string, commands: Record<string, CommandMeter>, repetitions: number): OperationCost {
  const cost: OperationCost = {
    operation,
    dynamodbRequests: 0,
    readUnits: 0,
    writeUnits: 0,
    reportedUnits: 0,
    failedConditionalWrites: 0,
    sqsRequests: 0,
    sqsMessages: 0,
    schedulerCalls: 0,
    byCommand: {},
  };
  for (const [key, meter] of Object.entries(commands)) {
    const [service, command = ''] = key.split(':');
    cost.byCommand[key] = meter.requests / repetitions;
    if (service === 'dynamodb') {
      cost.dynamodbRequests += meter.requests;
      cost.reportedUnits += meter.reportedCapacityUnits;
      const failedConditions = (meter.failures.ConditionalCheckFailedException ?? 0) + (meter.failures.TransactionCanceledException ?? 0);
      cost.failedConditionalWrites += READ_COMMANDS.has(command) ? 0 : failedConditions;
      // A failed conditional write still consumes (at least) one write unit on AWS; no units come back for it.
      if (READ_COMMANDS.has(command)) cost.readUnits += meter.capacityUnits;
      else cost.writeUnits += meter.capacityUnits + failedConditions;
    } else if (service === 'sqs') {
      cost.sqsRequests += meter.requests;
      cost.sqsMessages += meter.entries;
    } else if (service === 'scheduler') {
      cost.schedulerCalls += meter.requests;
    }
  }
  for (const field of ['dynamodbRequests', 'readUnits', 'writeUnits', 'reportedUnits', 'failedConditionalWrites', 'sqsRequests', 'sqsMessages', 'schedulerCalls'] as const) {
    cost[field] /= repetitions;
  }
  return cost;
}

async function metered(operation: string, repetitions: number, action: (repetition: number) => Promise<void>): Promise<OperationCost> {
  const meter = sdkMeter();
  if (!meter) throw new Error('SDK metering is off: SDK_METERING=1 did not reach the handlers');
  let commands: Record<string, CommandMeter> = {};
  for (let repetition = 0; repetition < repetitions; repetition++) {
    meter.reset();
    await action(repetition);
    for (const [key, value] of Object.entries(meter.commands)) {
      const total = (commands[key] ??= { requests: 0, failures: {}, reportedCapacityUnits: 0, capacityUnits: 0, entries: 0 });
      total.requests += value.requests;
      total.reportedCapacityUnits += value.reportedCapacityUnits;
      total.capacityUnits += value.capacityUnits;
      total.entries += value.entries;
      for (const [name, count] of Object.entries(value.failures)) total.failures[name] = (total.failures[name] ?? 0) + count;
    }
  }
  meter.reset();
  commands = Object.fromEntries(Object.entries(commands).sort(([a], [b]) => a.localeCompare(b)));
  return costOf(operation, commands, repetitions);
}

interface CostFigures {
  operations: OperationCost[];
  perThousandPublished: Record<string, { usd: number; lines: Record<string, number>; assumptions: string[] }>;
}

async function measureCost(stack: RunningStack, db: DynamoDBClient, user: BenchUser, apiP50: Record<string, number>): Promise<CostFigures> {
  const account = user.accountIds[0] ?? '';
  // Authentication is cached per key for up to a minute (per Lambda instance): warm it, so each
  // figure is the operation itself. The cache miss is measured on its own below.
  await call(stack, user, 'GET', '/posts?limit=1');
  const operations: OperationCost[] = [];
  const reps = 3;
  const soon: string[] = [];
  operations.push(await metered('create, 1 target, due in 10 min (queue)', reps, async () => {
    soon.push(...(await createPosts(stack, user, { accounts: [account], text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(10) })));
  }));
  operations.push(await metered('create, 25 targets, due in 10 min (queue)', reps, async () => {
    soon.push(...(await createPosts(stack, user, { accounts: user.accountIds, text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(10) })));
  }));
  const later: string[] = [];
  operations.push(await metered('create, 1 target, due in 2 days (Scheduler)', reps, async () => {
    later.push(...(await createPosts(stack, user, { accounts: [account], text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(2 * 24 * 60) })));
  }));
  operations.push(await metered('create, 25 targets, due in 2 days (Scheduler)', reps, async () => {
    later.push(...(await createPosts(stack, user, { accounts: user.accountIds, text: `Cost ${randomUUID()}`, scheduledFor: inMinutes(2 * 24 * 60) })));
  }));
  operations.push(await metered('get', reps, async (rep) => {
    const out = await call(stack, user, 'GET', `/posts/${soon[rep] ?? ''}`);
    if (out.status !== 200) throw new Error(`get: ${out.status}`);
  }));
  operations.push(await metered('list page (25)', reps, async () => {
    const out = await call(stack, user, 'GET', '/posts?limit=25');
    if (out.status !== 200) throw new Error(`list: ${out.status}`);
  }));
  operations.push(await metered('delete (cancel, due in 10 min)', reps, async (rep) => {
    const out = await call(stack, user, 'DELETE', `/posts/${soon[rep] ?? ''}`);
    if (out.status !== 200) throw new Error(`delete: ${out.status}`);
  }));
  operations.push(await metered('delete (cancel, Scheduler)', reps, async (rep) => {
    const out = await call(stack, user, 'DELETE', `/posts/${later[rep] ?? ''}`);
    if (out.status !== 200) throw new Error(`delete: ${out.status}`);
  }));
  // One publish: the worker's share only (the create is metered above). The post is created,
  // the counters reset, and read once the post is published and the worker has finished.
  let publishSeen = 0;
  const publishRuns: Record<string, CommandMeter>[] = [];
  const meter = sdkMeter();
  for (let rep = 0; rep < reps; rep++) {
    const [id] = await createPosts(stack, user, { accounts: [user.accountIds[rep % 2] ?? account], text: `Cost publish ${randomUUID()}`, scheduledFor: new Date(Date.now() + 2_500).toISOString() });
    meter?.reset();
    const deadline = Date.now() + 30_000;
    for (;;) {
      const item = await db.send(new GetItemCommand({ TableName: stack.tables.posts, Key: { id: { S: id ?? '' } }, ConsistentRead: true }));
      if (item.Item && unmarshall(item.Item).status !== 'scheduled') break;
      if (Date.now() > deadline) throw new Error('the metered publish did not happen');
      await sleep(100);
    }
    await sleep(500);
    publishSeen += 1;
    publishRuns.push(structuredClone(meter?.commands ?? {}));
  }
  const merged: Record<string, CommandMeter> = {};
  for (const run of publishRuns) {
    for (const [key, value] of Object.entries(run)) {
      const total = (merged[key] ??= { requests: 0, failures: {}, reportedCapacityUnits: 0, capacityUnits: 0, entries: 0 });
      total.requests += value.requests;
      total.reportedCapacityUnits += value.reportedCapacityUnits;
      total.capacityUnits += value.capacityUnits;
      total.entries += value.entries;
      for (const [name, count] of Object.entries(value.failures)) total.failures[name] = (total.failures[name] ?? 0) + count;
    }
  }
  operations.push(costOf('publish one post (worker, on time)', merged, publishSeen));
  // A Scheduler delivery arrives EARLY_FIRE_SECONDS ahead: the worker puts it back for the last
  // stretch. Same message as the Scheduler sends, put on the publish queue directly.
  const [early] = await createPosts(stack, user, { accounts: [account], text: `Cost early ${randomUUID()}`, scheduledFor: inMinutes(2 * 24 * 60) });
  const sqs = sqsClientFor(stack.info.sqsEndpoint);
  try {
    operations.push(await metered('publish message arriving early (Scheduler delivery)', 1, async () => {
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.queues.publish.url, MessageBody: JSON.stringify(publishMessage(early ?? '', inMinutes(3))) }));
      await sleep(2_500);
    }));
  } finally {
    sqs.destroy();
  }
  await call(stack, user, 'DELETE', `/posts/${early ?? ''}`);
  // Sweeper: one run (every minute on AWS), a fixed cost whatever the volume.
  operations.push(await metered('sweeper run (every minute)', 1, async () => {
    const handler = await loadHandler(SWEEPER.entry);
    await handler({ 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), detail: {} }, lambdaContext('Sweeper', 60_000));
  }));
  // Authentication cache miss: the key and its user are read once per minute per instance.
  const fresh = await (await import('../test/support/provision.js')).createKey(user.userId);
  operations.push(await metered('authentication cache miss (once a minute per instance)', 1, async () => {
    const out = await call(stack, { ...user, apiKey: fresh.apiKey }, 'GET', '/posts?limit=1');
    if (out.status !== 200) throw new Error(`auth miss: ${out.status}`);
  }));

  const find = (name: string): OperationCost => {
    const found = operations.find((operation) => operation.operation.startsWith(name));
    if (!found) throw new Error(`no cost figure for ${name}`);
    return found;
  };
  const dynamoUsd = (cost: OperationCost): number =>
    cost.readUnits * PRICES.dynamodbReadRequestUnit.usd + cost.writeUnits * PRICES.dynamodbWriteRequestUnit.usd;
  const publish = find('publish one post');
  const earlyMessage = find('publish message arriving early');
  const scenario = (createName: string, targets: number, scheduled: boolean, createMs: number) => {
    const create = find(createName);
    const perPost = 1 / targets;
    // Messages each post goes through: the dispatcher's (queue path) or the Scheduler's, plus the
    // worker's requeue of an early Scheduler delivery. Each message costs Lambda's event source
    // mapping one receive and one delete at worst (no batching), and one worker invocation.
    const messages = scheduled ? 2 : 1;
    const lines: Record<string, number> = {
      'DynamoDB (create share + publish)': (dynamoUsd(create) * perPost + dynamoUsd(publish) + (scheduled ? dynamoUsd(earlyMessage) : 0)) * 1000,
      'SQS (sends + receive/delete per message)':
        ((create.sqsRequests * perPost + publish.sqsRequests + (scheduled ? 1 + earlyMessage.sqsRequests : 0)) + messages * 2) * PRICES.sqsRequest.usd * 1000,
      'EventBridge Scheduler invocations': (scheduled ? 1 : 0) * PRICES.schedulerInvocation.usd * 1000,
      'API Gateway HTTP API (create requests)': perPost * PRICES.httpApiRequest.usd * 1000,
      'Lambda requests': (perPost + messages) * PRICES.lambdaRequest.usd * 1000,
      'Lambda duration (arm64)':
        ((createMs / 1000) * (MEMORY_MB.api / 1024) * perPost +
          (ASSUMED_WORKER_MS_PER_PUBLISH / 1000) * (MEMORY_MB.worker / 1024) +
          (scheduled ? (createMs / 1000) * (MEMORY_MB.worker / 1024) : 0)) *
        PRICES.lambdaArmGbSecond.usd *
        1000,
    };
    const usd = Object.values(lines).reduce((total, value) => total + value, 0);
    return {
      usd,
      lines,
      assumptions: [
        `each create carries ${targets} target(s); ${scheduled ? 'due more than 15 minutes ahead (EventBridge Scheduler, then the worker delays the early message)' : 'due within 15 minutes (SQS delay)'}`,
        'SQS receives and deletes by the Lambda event source mapping counted one each per message (no batching: the worst case); idle long polling of the queues is a fixed cost, not per post',
        `Lambda duration: create = measured p50 at concurrency 1 (${round(createMs)} ms) at ${MEMORY_MB.api} MB; worker = ${ASSUMED_WORKER_MS_PER_PUBLISH} ms per publish at ${MEMORY_MB.worker} MB (assumed: the platform's API round trip dominates and cannot be measured locally), and an early Scheduler delivery (one SQS send) as long as a create`,
        'DynamoDB: consumed capacity as measured here (transactions scaled per action, see notes); storage, backups and the fixed per-minute sweeper are excluded',
        'free tiers not subtracted',
      ],
    };
  };
  return {
    operations,
    perThousandPublished: {
      'scheduled >15 min ahead, 1 target per create': scenario('create, 1 target, due in 2 days', 1, true, apiP50['create-1'] ?? 0),
      'scheduled >15 min ahead, 25 targets per create': scenario('create, 25 targets, due in 2 days', 25, true, apiP50['create-25'] ?? 0),
      'due within 15 min, 1 target per create': scenario('create, 1 target, due in 10 min', 1, false, apiP50['create-1'] ?? 0),
    },
  };
}

/* ------------------------------------------------------------------ report */

interface Budget {
  name: string;
  measured: number;
  limit: number;
  unit: string;
  pass: boolean;
}

function budget(name: string, measured: number, limit: number, unit: string): Budget {
  return { name, measured: round(measured), limit, unit, pass: Number.isFinite(measured) && measured <= limit };
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ')).join('\n');
}

const ms = (value: number): string => (Number.isFinite(value) ? `${round(value)}` : '-');

/* ------------------------------------------------------------------ main */

async function provisionUsers(): Promise<Record<'api' | 'burst' | 'spread' | 'cost' | 'scale', BenchUser>> {
  // Imported only now: the provisioning helper reads the stack's configuration from the environment.
  const { provisionUser } = await import('../test/support/provision.js');
  const make = async (accounts: number): Promise<BenchUser> => {
    const user = await provisionUser({
      quota: 1_000_000_000,
      accounts: Array.from({ length: accounts }, (_, index) => ({ platform: index % 2 === 0 ? 'x' : 'linkedin' })),
    });
    return { userId: user.userId, apiKey: user.apiKey, workspaceId: user.workspaceIds[0] ?? '', accountIds: user.accounts.map((account) => account.id) };
  };
  return { api: await make(25), burst: await make(25), spread: await make(2), cost: await make(25), scale: await make(2) };
}

async function main(): Promise<void> {
  await rm(DATA_DIR, { recursive: true, force: true });
  await mkdir(DATA_DIR, { recursive: true });
  const results: Record<string, unknown> = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGb: round(totalmem() / 2 ** 30), node: process.version, platform: process.platform },
    // Anything else busy on the machine skews every figure: the 1-minute load average before and after.
    loadAverageAtStart: round(loadavg()[0] ?? NaN),
    phasesRun: only.length === 0 ? [...PHASES] : only,
  };
  const budgets: Budget[] = [];
  const notes: string[] = [];
  const out: string[] = [];

  // 5. Cold start first, before anything else runs on this machine's two cores.
  let bundles: BundleFigures[] = [];
  if (runs('cold')) {
    log('cold start: bundling every function as the CDK app does, then timing imports');
    bundles = await measureColdStart(join(tmpdir(), `bench-bundles-${process.pid}`), 5, log);
    results.coldStart = bundles;
    for (const bundle of bundles) {
      budgets.push(budget(`bundle ${bundle.name}`, bundle.bytes / 1000, BUDGETS.bundleBytes / 1000, 'kB'));
      budgets.push(budget(`import ${bundle.name}`, bundle.importMs, BUDGETS.importMs, 'ms'));
    }
  }

  const needsStack = PHASES.some((phase) => phase !== 'cold' && runs(phase));
  let dynamo: DynamoDbLocal | undefined;
  let fauxqs: Fauxqs | undefined;
  let stack: RunningStack | undefined;
  let load: LoadGenerator | undefined;
  let sweeper: Runner | undefined;
  let db: DynamoDBClient | undefined;
  try {
    if (needsStack) {
      log('starting the local stack (DynamoDB Local in memory, full JIT)');
      // The full JIT (fastStart off): the JVM's peak speed, as a long-running stack would have it.
      dynamo = await startDynamoDbLocal({ dataDir: null, fastStart: false });
      fauxqs = await startFauxqsServer({ mediaMirror: false });
      stack = await startStackServices({
        endpoints: { dynamodbEndpoint: dynamo.endpoint, s3Endpoint: fauxqs.endpoint, sqsEndpoint: fauxqs.sqsEndpoint },
        dataDir: DATA_DIR,
        consumers: true,
        sandbox: true,
        // Started below at AWS's cadence (every minute), so the cost phase can pause it.
        sweeper: false,
        env: {
          // Local-only overrides: no rate limit gets in the way of the load, every request is metered.
          [ENV.rateLimitPerMinute]: '1000000000',
          [ENV.rateLimitPerDay]: '1000000000',
          [ENV.sdkMetering]: '1',
        },
      });
      sweeper = startSweeper({ ...SWEEPER, intervalMs: 60_000 });
      db = dynamoDbClientFor(dynamo.endpoint);
      load = new LoadGenerator();
    }
    const running = stack;
    const reader = db;
    const users = running ? await provisionUsers() : undefined;
    if (running && users) log(`stack up at ${running.baseUrl}; users provisioned`);

    // 3. Scale: 1,000 posts in the table, then 100,000 (most of them other users').
    if (running && users && reader && load && runs('scale')) {
      const scaleUser = users.scale;
      const owners: SeedOwner[] = [{ userId: scaleUser.userId, workspaceId: scaleUser.workspaceId, accountIds: scaleUser.accountIds }];
      const others = (count: number, from: number): SeedOwner[] =>
        Array.from({ length: count }, (_, index) => ({ userId: `usr_bench${String(from + index).padStart(15, '0')}`, workspaceId: newId('ws'), accountIds: [newId('acct')] }));
      // 100 posts of the measured user (every 10th seed post) and 900 of 90 others.
      await seedPosts(reader, running.tables.posts, [...owners, ...others(9, 0)], 1_000);
      const ids = (await postsOf(reader, running.tables.posts, scaleUser.userId)).map((post) => post.id);
      const getPaths = ids.map((id) => `/api/v1/posts/${id}`);
      const measure = async (label: string) => {
        if (!load) throw new Error('no load generator');
        const base = { origin: running.origin, apiKey: scaleUser.apiKey, connections: 1, durationSeconds: 4 };
        const list = await load.run({ ...base, name: `list ${label}`, requests: { kind: 'get', paths: ['/api/v1/posts?limit=25'] } });
        const get = await load.run({ ...base, name: `get ${label}`, requests: { kind: 'get', paths: getPaths } });
        return { list: list.latency, get: get.latency };
      };
      log(`scale: ${ids.length} posts of the measured user among 1,000; warming up`);
      await load.run({ name: 'warm list', origin: running.origin, apiKey: scaleUser.apiKey, connections: 4, durationSeconds: 3, requests: { kind: 'get', paths: ['/api/v1/posts?limit=25'] } });
      await load.run({ name: 'warm get', origin: running.origin, apiKey: scaleUser.apiKey, connections: 4, durationSeconds: 3, requests: { kind: 'get', paths: getPaths } });
      const at1k = await measure('1k');
      const seedStart = Date.now();
      // 99,000 more posts of 990 other users, 100 each.
      await seedPosts(reader, running.tables.posts, others(990, 100), 99_000, { startIndex: 1_000 });
      const seedMs = Date.now() - seedStart;
      log(`scale: 99,000 more posts written in ${(seedMs / 1000).toFixed(1)} s (${Math.round(99_000 / (seedMs / 1000))}/s)`);
      const at100k = await measure('100k');
      const scale = {
        measuredUserPosts: ids.length,
        tablePosts: { small: 1_000, large: 100_000 },
        at1k,
        at100k,
        ratioP50: { list: at100k.list.p50 / at1k.list.p50, get: at100k.get.p50 / at1k.get.p50 },
        ratioP99: { list: at100k.list.p99 / at1k.list.p99, get: at100k.get.p99 / at1k.get.p99 },
        seedRatePerSecond: 99_000 / (seedMs / 1000),
      };
      results.scale = scale;
      budgets.push(budget('scale: list page p50 at 100k / 1k', scale.ratioP50.list, BUDGETS.scaleRatio, 'x'));
      budgets.push(budget('scale: get p50 at 100k / 1k', scale.ratioP50.get, BUDGETS.scaleRatio, 'x'));
    }

    // 1. Publish lag.
    if (running && users && reader && runs('burst')) {
      log('publish lag: 500 posts due at the same second');
      const burst = await burstLoad(running, reader, users.burst, dynamo?.pid ?? null);
      results.publishBurst = burst;
      budgets.push(budget('publish lag p99, 500 due at once', burst.lagMs.p99, BUDGETS.publishLagP99Ms, 'ms'));
    }
    if (running && users && reader && runs('spread')) {
      log('publish lag: 200 posts over two minutes');
      const spread = await spreadLoad(running, reader, users.spread);
      results.publishSpread = spread;
      budgets.push(budget('publish lag p99, 200 over 2 min', spread.lagMs.p99, BUDGETS.publishLagP99Ms, 'ms'));
    }

    // 2. API latency and throughput; 6. overhead.
    const apiP50: Record<string, number> = {};
    if (running && users && reader && load && runs('api')) {
      const user = users.api;
      const base = { origin: running.origin, apiKey: user.apiKey };
      const api: ApiFigures[] = [];
      // Posts to read, and posts to delete (scheduled, so a delete is a cancel).
      const readable = (await inParallel(Array.from({ length: 4 }, () => () => createPosts(running, user, { accounts: user.accountIds, text: `Read ${randomUUID()}`, scheduledFor: inMinutes(10) })), 4)).flat();
      const deletable = (await inParallel(Array.from({ length: 48 }, () => () => createPosts(running, user, { accounts: user.accountIds, text: `Delete ${randomUUID()}`, scheduledFor: inMinutes(10) })), 4)).flat();
      const deletes = { 1: 200, 16: deletable.length - 200 };
      const generator = load;
      const measured = async (spec: LoadSpec): Promise<MeteredRun> => {
        sdkMeter()?.reset();
        const result = await generator.run(spec);
        // Let the requests still in flight when the run ended finish, so their calls are counted here.
        await sleep(500);
        return { result, commands: structuredClone(sdkMeter()?.commands ?? {}) };
      };
      for (const connections of [1, 16] as const) {
        const duration = { connections, durationSeconds: 4 };
        log(`api: concurrency ${connections}`);
        api.push(apiFigures('create-1', await measured({ ...base, ...duration, name: `create 1 c${connections}`, requests: { kind: 'create', path: '/api/v1/posts', body: { accounts: [user.accountIds[0]], scheduledFor: inMinutes(10) } } })));
        api.push(apiFigures('create-25', await measured({ ...base, ...duration, name: `create 25 c${connections}`, requests: { kind: 'create', path: '/api/v1/posts', body: { accounts: user.accountIds, scheduledFor: inMinutes(10) } } })));
        api.push(apiFigures('get', await measured({ ...base, ...duration, name: `get c${connections}`, requests: { kind: 'get', paths: readable.map((id) => `/api/v1/posts/${id}`) } })));
        if (connections === 1) {
          // 6. Overhead, right after GET at concurrency 1: a bare GetItem of the same posts, same DynamoDB Local.
          const bare: number[] = [];
          for (let index = 0; index < 600; index++) {
            const begin = performance.now();
            await reader.send(new GetItemCommand({ TableName: running.tables.posts, Key: { id: { S: readable[index % readable.length] ?? '' } }, ConsistentRead: true }));
            if (index >= 100) bare.push(performance.now() - begin);
          }
          results.bareGetItemMs = summarize(bare);
          results.overheadBreakdown = await overheadBreakdown(running, reader, readable);
        }
        api.push(apiFigures('list', await measured({ ...base, ...duration, name: `list c${connections}`, requests: { kind: 'get', paths: ['/api/v1/posts?limit=25'] } })));
        const mine = connections === 1 ? deletable.slice(0, deletes[1]) : deletable.slice(deletes[1]);
        api.push(apiFigures('delete', await measured({ ...base, connections, amount: mine.length, name: `delete c${connections}`, requests: { kind: 'delete', paths: mine.map((id) => `/api/v1/posts/${id}`) } })));
      }
      results.api = api;
      for (const figure of api) if (figure.connections === 1) apiP50[figure.operation] = figure.latencyMs.p50;
      const bare = results.bareGetItemMs as LatencySummary;
      const getP50 = apiP50.get ?? Number.NaN;
      const parts = results.overheadBreakdown as Record<string, number>;
      const rest = getP50 - Math.max(parts.rateLimitP50Ms ?? 0, parts.postStoreGetP50Ms ?? 0);
      results.overhead = {
        getP50Ms: getP50,
        bareGetItemP50Ms: bare.p50,
        ratio: getP50 / bare.p50,
        breakdownP50Ms: {
          rateLimitCounters: parts.rateLimitP50Ms,
          postRead: parts.postStoreGetP50Ms,
          httpEventPipelineJson: rest,
          oneCounterUpdate: parts.oneCounterUpdateP50Ms,
        },
      };
      budgets.push(budget('overhead: GET p50 / bare GetItem p50', getP50 / bare.p50, BUDGETS.overheadRatio, 'x'));
    }

    // 4. Cost (the sweeper is paused: it is metered on its own).
    if (running && users && reader && runs('cost')) {
      log('cost: metering each operation');
      await sweeper?.stop();
      sweeper = undefined;
      const cost = await measureCost(running, reader, users.cost, apiP50);
      results.cost = cost;
      results.prices = { checkedOn: PRICES_CHECKED_ON, region: 'us-east-1', ...PRICES };
      for (const name of ['create, 1 target, due in 10 min', 'create, 25 targets, due in 10 min', 'create, 1 target, due in 2 days', 'create, 25 targets, due in 2 days']) {
        const operation = cost.operations.find((entry) => entry.operation.startsWith(name));
        if (operation) budgets.push(budget(`DynamoDB requests: ${name}`, operation.dynamodbRequests, BUDGETS.createDynamoRequests, 'requests'));
      }
      notes.push(
        'DynamoDB Local reports a TransactWriteItems\' capacity per table as if it held one item (a 25-post transaction reports the same units as a 1-post one); the bench scales each table\'s reported units by the number of actions on that table.',
        'A failed conditional write returns no ConsumedCapacity; it is counted as 1 write unit (the AWS minimum).',
      );
    }

    results.durationSeconds = round((Date.now() - started) / 1000);
    results.loadAverageAtEnd = round(loadavg()[0] ?? NaN);
    results.budgets = budgets;
    results.notes = notes;

    // The table.
    out.push('', `npm run bench — ${new Date().toISOString()} — ${cpus().length} cores, Node ${process.version}, ${round((Date.now() - started) / 1000)} s, load average ${String(results.loadAverageAtStart)} at start`, '');
    for (const [key, title] of [['publishBurst', '500 posts due at the same second'], ['publishSpread', '200 posts over two minutes']] as const) {
      const lag = results[key] as LagFigures | undefined;
      if (!lag) continue;
      out.push(`Publish lag (publishedAt - scheduledFor), ${title}: ${lag.published} published, ${lag.failed} failed`);
      out.push(table([
        ['', 'p50 ms', 'p99 ms', 'max ms'],
        ['all', ms(lag.lagMs.p50), ms(lag.lagMs.p99), ms(lag.lagMs.max)],
        ...Object.entries(lag.lagMsByPlatform).map(([platform, summary]) => [platform, ms(summary.p50), ms(summary.p99), ms(summary.max)]),
      ]));
      out.push(`worker throughput ${round(lag.throughputPostsPerSecond)} posts/s (first to last publish ${round(lag.drainMs)} ms; last ${round(lag.lastPublishedAfterDueMs)} ms after due)`);
      if (lag.cpu) {
        out.push(`while sending: node process ${round(lag.cpu.nodeCores)} cores busy, DynamoDB Local ${lag.cpu.jvmCores === null ? '?' : round(lag.cpu.jvmCores)} cores, ${round(lag.dynamodbRequestsPerPost ?? NaN)} DynamoDB requests per post`);
      }
      if (lag.dynamodbLocalCeiling) {
        const ceiling = lag.dynamodbLocalCeiling;
        const floorMs = ((lag.dynamodbRequestsPerPost ?? 0) * lag.published) / ceiling.requestsPerSecond * 1000;
        out.push(`DynamoDB Local alone serves ${round(ceiling.requestsPerSecond)} requests/s here (concurrency ${ceiling.concurrency}): the burst's requests alone need ${round(floorMs)} ms`);
      }
      out.push('');
    }
    const api = results.api as ApiFigures[] | undefined;
    if (api) {
      out.push('API latency and throughput');
      out.push(table([['operation', 'conc', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'requests', 'DDB req/req'], ...api.map((figure) => [figure.operation, String(figure.connections), ms(figure.throughputPerSecond), ms(figure.latencyMs.p50), ms(figure.latencyMs.p99), ms(figure.latencyMs.max), String(figure.requests), ms(figure.dynamodbRequestsPerRequest)])]));
      const overhead = results.overhead as { getP50Ms: number; bareGetItemP50Ms: number; ratio: number; breakdownP50Ms: Record<string, number> };
      out.push(`overhead: GET /posts/{id} p50 ${ms(overhead.getP50Ms)} ms / bare GetItem p50 ${ms(overhead.bareGetItemP50Ms)} ms = ${ms(overhead.ratio)}`);
      const parts = overhead.breakdownP50Ms;
      out.push(`  of which: rate-limit counter (overlaps the read) ${ms(parts.rateLimitCounters ?? NaN)} ms, post read ${ms(parts.postRead ?? NaN)} ms, HTTP + event + pipeline + JSON ${ms(parts.httpEventPipelineJson ?? NaN)} ms`);
      out.push(`  (one conditional counter UpdateItem alone: ${ms(parts.oneCounterUpdate ?? NaN)} ms)`, '');
    }
    const scale = results.scale as { at1k: Record<string, LatencySummary>; at100k: Record<string, LatencySummary>; ratioP50: Record<string, number>; ratioP99: Record<string, number> } | undefined;
    if (scale) {
      out.push('Scale (concurrency 1): 1,000 vs 100,000 posts in the table');
      out.push(table([['', 'p50 1k', 'p50 100k', 'ratio', 'p99 1k', 'p99 100k', 'ratio'], ...(['list', 'get'] as const).map((name) => [name, ms(scale.at1k[name]?.p50 ?? NaN), ms(scale.at100k[name]?.p50 ?? NaN), ms(scale.ratioP50[name] ?? NaN), ms(scale.at1k[name]?.p99 ?? NaN), ms(scale.at100k[name]?.p99 ?? NaN), ms(scale.ratioP99[name] ?? NaN)])]), '');
    }
    const cost = results.cost as CostFigures | undefined;
    if (cost) {
      out.push('Cost per operation (DynamoDB requests / read units / write units; SQS requests; Scheduler calls)');
      out.push(table([['operation', 'DDB req', 'RRU', 'WRU', 'SQS req', 'SQS msgs', 'Sched'], ...cost.operations.map((operation) => [operation.operation, ms(operation.dynamodbRequests), ms(operation.readUnits), ms(operation.writeUnits), ms(operation.sqsRequests), ms(operation.sqsMessages), ms(operation.schedulerCalls)])]));
      out.push('', 'AWS cost per 1,000 published posts (us-east-1 on-demand, free tiers not subtracted)');
      for (const [scenarioName, scenario] of Object.entries(cost.perThousandPublished)) out.push(`  ${scenarioName}: $${scenario.usd.toFixed(4)}`);
      out.push('');
    }
    if (bundles.length > 0) {
      out.push('Cold start (esbuild bundle as deployed; import in a fresh Node process, median of 5)');
      out.push(table([['function', 'kB', 'import ms', 'no maps ms'], ...bundles.map((bundle) => [bundle.name, (bundle.bytes / 1000).toFixed(1), ms(bundle.importMs), ms(bundle.importMsWithoutSourceMaps)])]), '');
    }
    out.push('Budgets');
    out.push(table([['budget', 'measured', 'limit', '', ''], ...budgets.map((entry) => [entry.name, String(entry.measured), String(entry.limit), entry.unit, entry.pass ? 'PASS' : 'MISS'])]));
    console.log(out.join('\n'));
    await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    log(`results written to ${RESULTS_FILE}`);
  } finally {
    load?.stop();
    await sweeper?.stop();
    db?.destroy();
    await stack?.stop().catch((error: unknown) => log(`stopping the stack failed: ${String(error)}`));
    await fauxqs?.stop().catch(() => undefined);
    await dynamo?.stop().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
