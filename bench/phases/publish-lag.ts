/**
 * Publish lag (`publishedAt - scheduledFor`), the figure the burst and spread phases share: how
 * their posts ended, read from the posts table, and the report section for one load.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Post } from '../../lib/domain/model.js';
import type { CpuUse } from '../cpu.js';
import { sleep } from '../harness.js';
import type { LatencySummary } from '../load-protocol.js';
import { countByStatus } from '../posts-table.js';
import { ms, table } from '../report.js';
import { round, summarize } from '../stats.js';

export interface LagFigures {
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
  /** Every DynamoDB request the service made for the posts (from 4 s before due), per published post. */
  dynamodbRequestsPerPost?: number;
  /** Of those, the ones made from the due time on: what a burst waits for in its second. */
  dynamodbRequestsPerPostFromDue?: number;
  /** The same on the posts and directory tables only: the publish path's, without the webhook router's and delivery's. */
  publishPathRequestsPerPostFromDue?: number;
  /** When each create reached the platform (the sandbox's createdAt) after the due time. */
  platformLagMs?: LatencySummary | undefined;
  /** Posts claimed (and so prepared) before the due time, and how far ahead (due minus first claim). */
  prepared?: { claimedBeforeDue: number; leadMs: { p50: number; min: number } };
  /** The same by command: made before the due time, and in all. */
  dynamodbRequestsByCommand?: { beforeDue: Record<string, number>; total: Record<string, number> };
  /** DynamoDB Local's own ceiling on this machine, measured right after (see dynamodbLocalCeiling). */
  dynamodbLocalCeiling?: { requestsPerSecond: number; concurrency: number; requests: number };
}

/**
 * How often the outcome counts are read while a load goes out. Each read is two COUNT Queries that
 * walk the user's whole status partitions (2,000 items at the end of the large burst) on the very
 * DynamoDB Local the stack is measured on: read every 250 ms, the bench itself was a share of the
 * emulator's one busy core during the burst. The figures come from the posts' own timestamps, so
 * reading less often changes nothing but when the phase moves on.
 */
const OUTCOME_POLL_MS = 1_000;

export async function waitForOutcomes(db: DynamoDBClient, table: string, userId: string, expected: number, deadline: number): Promise<void> {
  for (;;) {
    const [published, failed] = await Promise.all([countByStatus(db, table, userId, 'published'), countByStatus(db, table, userId, 'failed')]);
    if (published + failed >= expected) return;
    if (Date.now() > deadline) throw new Error(`only ${published} published and ${failed} failed of ${expected} by the deadline`);
    await sleep(OUTCOME_POLL_MS);
  }
}

export function lagFigures(posts: Post[]): LagFigures {
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

/** The report section for one load, under `title`. */
export function lagReport(title: string, lag: LagFigures): string[] {
  const out: string[] = [];
  out.push(`Publish lag (publishedAt - scheduledFor), ${title}: ${lag.published} published, ${lag.failed} failed`);
  out.push(table([
    ['', 'p50 ms', 'p99 ms', 'max ms'],
    ['all', ms(lag.lagMs.p50), ms(lag.lagMs.p99), ms(lag.lagMs.max)],
    ...Object.entries(lag.lagMsByPlatform).map(([platform, summary]) => [platform, ms(summary.p50), ms(summary.p99), ms(summary.max)]),
  ]));
  out.push(`worker throughput ${round(lag.throughputPostsPerSecond)} posts/s (first to last publish ${round(lag.drainMs)} ms; last ${round(lag.lastPublishedAfterDueMs)} ms after due)`);
  if (lag.cpu) {
    out.push(`while sending: node process ${round(lag.cpu.nodeCores)} cores busy${lag.cpu.functionsCores === null ? '' : `, functions host ${round(lag.cpu.functionsCores)}`}, DynamoDB Local ${lag.cpu.jvmCores === null ? '?' : round(lag.cpu.jvmCores)} cores, ${round(lag.dynamodbRequestsPerPost ?? NaN)} DynamoDB requests per post (${round(lag.dynamodbRequestsPerPostFromDue ?? NaN)} from the due time on)`);
  }
  if (lag.publishPathRequestsPerPostFromDue !== undefined) {
    out.push(`publish path (posts and directory tables): ${round(lag.publishPathRequestsPerPostFromDue)} DynamoDB requests per post from the due time on`);
  }
  if (lag.platformLagMs) {
    out.push(`creates reached the platform (its createdAt - scheduledFor): p50 ${ms(lag.platformLagMs.p50)} ms, p99 ${ms(lag.platformLagMs.p99)} ms, max ${ms(lag.platformLagMs.max)} ms`);
  }
  if (lag.prepared) {
    out.push(`prepared before the due time: ${lag.prepared.claimedBeforeDue} of ${lag.posts} posts claimed ahead of it (median ${round(lag.prepared.leadMs.p50)} ms ahead, least ${round(lag.prepared.leadMs.min)} ms)`);
  }
  if (lag.dynamodbLocalCeiling) {
    const ceiling = lag.dynamodbLocalCeiling;
    const floorMs = ((lag.dynamodbRequestsPerPostFromDue ?? lag.dynamodbRequestsPerPost ?? 0) * lag.published) / ceiling.requestsPerSecond * 1000;
    out.push(`DynamoDB Local alone serves ${round(ceiling.requestsPerSecond)} requests/s here (concurrency ${ceiling.concurrency}): the burst's requests from the due time on alone need ${round(floorMs)} ms`);
  }
  out.push('');
  return out;
}
