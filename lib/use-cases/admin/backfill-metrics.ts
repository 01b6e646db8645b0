/**
 * The metrics backfill (docs/metrics.md): posts published before collection existed have no due
 * entry, so they are collected only on a refresh. This gives each of a user's published posts
 * still within its 30 days a collection due now, then its schedule as usual.
 *
 * Run by an operator (admin CLI `metrics backfill`), once per user, a bounded number of posts per
 * run: it Queries the user's published posts on byUserStatus (no Scan) and returns a cursor to
 * resume from. Each post is scheduled by a conditional write that holds only while it has no due
 * entry, so a run repeated, resumed or run twice at once never schedules a post twice, and never
 * moves the entry of a post already on its schedule (or under a collection's claim). A post that
 * already has its metrics item (collected since, its schedule there, over or stopped) is left as
 * it is: scheduled on its post item again, it would be read from the platform once more for nothing.
 */
import { backfillMetricsDueAt, metricsTrackedSince } from '../../domain/post-metrics.js';
import type { Clock } from '../ports/clock.js';
import type { PostMetricsStore } from '../ports/post-metrics-store.js';

/** Posts read per Query page. */
const PAGE_SIZE = 100;
export const BACKFILL_DEFAULT_LIMIT = 1_000;
export const BACKFILL_MAX_LIMIT = 10_000;

export interface BackfillMetricsResult {
  object: 'metrics_backfill';
  userId: string;
  /** Published posts read (index entries evaluated), within their 30 days or not. */
  read: number;
  /** Given a collection due now. */
  scheduled: number;
  /** Within their 30 days but already due or collected (published after collection existed, or backfilled before). */
  alreadyScheduled: number;
  /** Where the next run starts; null when this user is done. */
  cursor: string | null;
}

export class BackfillMetrics {
  constructor(private readonly deps: { store: Pick<PostMetricsStore, 'listPublishedPage' | 'scheduleUnscheduled' | 'latestMetrics'>; clock: Clock }) {}

  async run(input: { userId: string; cursor: string | null; limit: number }): Promise<BackfillMetricsResult> {
    const now = this.deps.clock.now();
    const publishedAfter = metricsTrackedSince(now);
    const result: BackfillMetricsResult = { object: 'metrics_backfill', userId: input.userId, read: 0, scheduled: 0, alreadyScheduled: 0, cursor: input.cursor };
    do {
      const limit = Math.min(PAGE_SIZE, input.limit - result.read);
      const page = await this.deps.store.listPublishedPage(input.userId, { publishedAfter, limit, cursor: result.cursor });
      // The Query's Limit counts the entries read before the filter: a page of old posts is empty.
      result.read += page.read;
      const collected = await this.deps.store.latestMetrics(page.posts.map((post) => post.id));
      for (const post of page.posts) {
        if (collected.has(post.id)) {
          result.alreadyScheduled += 1;
          continue;
        }
        const done = await this.deps.store.scheduleUnscheduled(post.id, { dueAt: backfillMetricsDueAt(post.publishedAt, now), publishedAfter });
        if (done) result.scheduled += 1;
        else result.alreadyScheduled += 1;
      }
      result.cursor = page.cursor;
    } while (result.cursor !== null && result.read < input.limit);
    return result;
  }
}
