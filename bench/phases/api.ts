/**
 * Phase `api`: create (1 and 25 targets), get, list and delete at concurrency 1 and 16, 4 s each
 * (deletes: a fixed number of scheduled posts), with the DynamoDB requests each one made; the
 * overhead (bench/phases/overhead.ts) is measured inside it, right after GET at concurrency 1.
 */
import { randomUUID } from 'node:crypto';
import type { CommandMeter } from '../../lib/store/sdk-metering.js';
import { meterCommands, resetMeter } from '../meter.js';
import { createPosts, inMinutes, inParallel, log, sleep, type BenchContext } from '../harness.js';
import type { LatencySummary, LoadResult, LoadSpec } from '../load-protocol.js';
import { ms, table, type PhaseOutcome } from '../report.js';
import { measureOverheadParts, overheadOutcome, type OverheadParts } from './overhead.js';

/** What the api phase hands on: its outcome, and the p50 at concurrency 1 of each operation (the cost phase uses them). */
export interface ApiOutcome extends PhaseOutcome {
  apiP50: Record<string, number>;
}

export async function apiPhase({ stack: running, db: reader, load, users }: BenchContext): Promise<ApiOutcome> {
  const user = users.api;
  const base = { origin: running.origin, apiKey: user.apiKey };
  const api: ApiFigures[] = [];
  // Posts to read, and posts to delete (scheduled, so a delete is a cancel).
  const readable = (await inParallel(Array.from({ length: 4 }, () => () => createPosts(running, user, { accounts: user.accountIds, text: `Read ${randomUUID()}`, scheduledFor: inMinutes(10) })), 4)).flat();
  const deletable = (await inParallel(Array.from({ length: 48 }, () => () => createPosts(running, user, { accounts: user.accountIds, text: `Delete ${randomUUID()}`, scheduledFor: inMinutes(10) })), 4)).flat();
  const deletes = { 1: 200, 16: deletable.length - 200 };
  const generator = load;
  const measured = async (spec: LoadSpec): Promise<MeteredRun> => {
    await resetMeter();
    const result = await generator.run(spec);
    // Let the requests still in flight when the run ended finish, so their calls are counted here.
    await sleep(500);
    return { result, commands: await meterCommands() };
  };
  let overheadParts: OverheadParts | undefined;
  for (const connections of [1, 16] as const) {
    const duration = { connections, durationSeconds: 4 };
    log(`api: concurrency ${connections}`);
    api.push(apiFigures('create-1', await measured({ ...base, ...duration, name: `create 1 c${connections}`, requests: { kind: 'create', path: '/api/v1/posts', body: { accounts: [user.accountIds[0]], scheduledFor: inMinutes(10) } } })));
    api.push(apiFigures('create-25', await measured({ ...base, ...duration, name: `create 25 c${connections}`, requests: { kind: 'create', path: '/api/v1/posts', body: { accounts: user.accountIds, scheduledFor: inMinutes(10) } } })));
    api.push(apiFigures('get', await measured({ ...base, ...duration, name: `get c${connections}`, requests: { kind: 'get', paths: readable.map((id) => `/api/v1/posts/${id}`) } })));
    // The overhead, right after GET at concurrency 1: same posts, same DynamoDB Local.
    if (connections === 1) overheadParts = await measureOverheadParts(running, reader, readable);
    api.push(apiFigures('list', await measured({ ...base, ...duration, name: `list c${connections}`, requests: { kind: 'get', paths: ['/api/v1/posts?limit=25'] } })));
    const mine = connections === 1 ? deletable.slice(0, deletes[1]) : deletable.slice(deletes[1]);
    api.push(apiFigures('delete', await measured({ ...base, connections, amount: mine.length, name: `delete c${connections}`, requests: { kind: 'delete', paths: mine.map((id) => `/api/v1/posts/${id}`) } })));
  }
  const apiP50: Record<string, number> = {};
  for (const figure of api) if (figure.connections === 1) apiP50[figure.operation] = figure.latencyMs.p50;
  if (!overheadParts) throw new Error('the overhead was not measured');
  const overhead = overheadOutcome(apiP50.get ?? Number.NaN, overheadParts);
  return {
    results: { ...overheadParts, api, overhead: overhead.overhead },
    budgets: [overhead.budget],
    report: [
      'API latency and throughput',
      table([['operation', 'conc', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'requests', 'DDB req/req'], ...api.map((figure) => [figure.operation, String(figure.connections), ms(figure.throughputPerSecond), ms(figure.latencyMs.p50), ms(figure.latencyMs.p99), ms(figure.latencyMs.max), String(figure.requests), ms(figure.dynamodbRequestsPerRequest)])]),
      ...overhead.report,
    ],
    apiP50,
  };
}

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
