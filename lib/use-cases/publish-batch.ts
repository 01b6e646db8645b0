/**
 * One invocation of the publish worker: the posts its batch of publish messages names, prepared
 * with a lead in proportion to how many posts share their second, and held together until it
 * (issue 23, docs/performance.md "Posts due at the same second").
 *
 *  1. Posts not counted yet and more than MAX_PREPARE_WINDOW_MS early (a schedule fired 180 s
 *     ahead) are put back, grouped by second, to arrive within that window.
 *  2. Within it, the posts of each second are counted on the due index (DueCounter, at most once a
 *     second per process) and the second's lead is prepareWindowMs(count): 1.5 s plus 2.5 ms a
 *     post, at least 2 s (500 posts: 3 s; 2,000: 7 s). Posts that are early for their lead are put back
 *     together, as group messages of up to MAX_GROUP_POSTS that carry the lead, so at the lead
 *     one invocation of 10 messages holds up to 250 posts instead of 10: a burst needs a tenth of
 *     the invocations (and of the event source's concurrency) it needed.
 *  3. The rest go to PublishPost, each on its own (claim, lease, "sent" marker: unchanged, see
 *     publish-post.ts), at most `maxInFlight` at a time; each waits inline for its second.
 *
 * A message whose posts could not all be handled (a put back that failed) is reported failed, so
 * SQS delivers it again: its posts that went out are skipped by their claim, so nothing is sent
 * twice, and nothing is lost.
 */
import { DUE_COUNT_CAP, MAX_GROUP_POSTS, MAX_PREPARE_WINDOW_MS, PREPARE_WINDOW_MS, prepareWindowMs, queueDelaySeconds } from '../domain/publishing.js';
import type { Clock } from './ports/clock.js';
import type { DueCounter, PublishEntry, PublishGroup, PublishGroupQueue, PublishQueue } from './ports/dispatch.js';
import type { PublishOutcome, PublishPost } from './publish-post.js';
import type { PublishLease } from './publish-lease.js';

/** How long a second's count is reused by this process: the messages of a burst come within it. */
const COUNT_REUSE_MS = 500;
/**
 * A message this close to its time (and uncounted) is prepared at once without counting: the
 * least lead is PREPARE_WINDOW_MS, so counting could gain at most this second over it.
 */
const COUNT_FROM_MS = PREPARE_WINDOW_MS + 1_000;
/** Posts one invocation prepares and holds at once: 10 group messages of MAX_GROUP_POSTS. */
export const MAX_POSTS_IN_FLIGHT = 10 * MAX_GROUP_POSTS;

export interface PublishBatchDeps {
  publish: Pick<PublishPost, 'execute'>;
  dueCounts: DueCounter;
  queue: PublishQueue & PublishGroupQueue;
  clock: Clock;
  /** Posts prepared and held at once (MAX_POSTS_IN_FLIGHT by default); the rest wait for a place. */
  maxInFlight?: number;
}

/** One SQS record: its id (reported when it failed) and the posts it names. */
export interface BatchRecord {
  id: string;
  entries: readonly PublishEntry[];
}

export interface BatchResult {
  /** Ids of the records to deliver again. */
  failed: string[];
  outcomes: { postId: string; outcome: PublishOutcome | { outcome: 'error'; error: unknown } }[];
}

interface Item {
  recordId: string;
  entry: PublishEntry;
  dueAt: number;
}

export class PublishBatch {
  private readonly counts = new Map<number, { count: Promise<number>; at: number }>();

  constructor(private readonly deps: PublishBatchDeps) {}

  async execute(records: readonly BatchRecord[], lease: PublishLease): Promise<BatchResult> {
    const now = this.deps.clock.now();
    const failed = new Set<string>();
    const run: { item: Item; prepareMs: number }[] = [];
    const farAhead: Item[] = [];
    const toCount: Item[] = [];
    const putBack: { item: Item; prepareMs: number }[] = [];
    for (const record of records) {
      for (const entry of record.entries) {
        const item = { recordId: record.id, entry, dueAt: Date.parse(entry.scheduledFor) };
        const remaining = item.dueAt - now.getTime();
        if (entry.prepareMs !== undefined) {
          if (remaining > entry.prepareMs) putBack.push({ item, prepareMs: entry.prepareMs });
          else run.push({ item, prepareMs: entry.prepareMs });
        } else if (remaining <= COUNT_FROM_MS) {
          run.push({ item, prepareMs: PREPARE_WINDOW_MS });
        } else if (remaining > MAX_PREPARE_WINDOW_MS) {
          farAhead.push(item);
        } else {
          toCount.push(item);
        }
      }
    }

    for (const [second, items] of bySecond(toCount)) {
      // A count that failed leaves the least lead, as before counting: the posts still go, maybe later.
      const prepareMs = prepareWindowMs(await this.countDue(second, now).catch(() => 0));
      for (const item of items) {
        if (item.dueAt - now.getTime() > prepareMs) putBack.push({ item, prepareMs });
        else run.push({ item, prepareMs });
      }
    }

    const markFailed = (postIds: readonly string[], items: readonly Item[]): void => {
      const ids = new Set(postIds);
      for (const item of items) if (ids.has(item.entry.postId)) failed.add(item.recordId);
    };
    // Both go back as groups: at MAX_PREPARE_WINDOW_MS ahead still to be counted, or at their lead.
    const back = [...farAhead.map((item) => ({ item, prepareMs: undefined })), ...putBack];
    if (back.length > 0) {
      const { failed: notSent } = await this.deps.queue.sendGroups(groupsOf(back, now));
      markFailed(
        notSent,
        back.map(({ item }) => item),
      );
    }

    const outcomes: BatchResult['outcomes'] = [];
    await inParallel(run, this.deps.maxInFlight ?? MAX_POSTS_IN_FLIGHT, async ({ item, prepareMs }) => {
      try {
        const outcome = await this.deps.publish.execute({ kind: 'publish', postId: item.entry.postId, scheduledFor: item.entry.scheduledFor }, lease, prepareMs);
        outcomes.push({ postId: item.entry.postId, outcome });
      } catch (error) {
        failed.add(item.recordId);
        outcomes.push({ postId: item.entry.postId, outcome: { outcome: 'error', error } });
      }
    });
    return { failed: [...failed], outcomes };
  }

  /**
   * The posts due in `second`, counted at most once per COUNT_REUSE_MS by this process: the
   * invocations a burst's messages arrive in share one count (also while it is under way).
   */
  private countDue(second: number, now: Date): Promise<number> {
    const known = this.counts.get(second);
    if (known && now.getTime() - known.at < COUNT_REUSE_MS) return known.count;
    // Seconds already past are of no use again: keep the map to the ones ahead.
    for (const key of this.counts.keys()) if (key < now.getTime()) this.counts.delete(key);
    const count = this.deps.dueCounts.countDue(new Date(second), DUE_COUNT_CAP);
    this.counts.set(second, { count, at: now.getTime() });
    // A failed count is not kept: the next message counts again.
    count.catch(() => this.counts.delete(second));
    return count;
  }
}

/** Items by the whole second they are due in. */
function bySecond(items: readonly Item[]): Map<number, Item[]> {
  const out = new Map<number, Item[]>();
  for (const item of items) {
    const second = Math.floor(item.dueAt / 1000) * 1000;
    const list = out.get(second) ?? [];
    list.push(item);
    out.set(second, list);
  }
  return out;
}

/** Posts put back together: one group per due time and lead, at most MAX_GROUP_POSTS each. */
function groupsOf(putBack: readonly { item: Item; prepareMs: number | undefined }[], now: Date): PublishGroup[] {
  const byKey = new Map<string, { scheduledFor: string; prepareMs: number | undefined; dueAt: number; postIds: string[] }>();
  for (const { item, prepareMs } of putBack) {
    const key = `${item.entry.scheduledFor}|${prepareMs ?? 'uncounted'}`;
    const group = byKey.get(key) ?? { scheduledFor: item.entry.scheduledFor, prepareMs, dueAt: item.dueAt, postIds: [] };
    if (!group.postIds.includes(item.entry.postId)) group.postIds.push(item.entry.postId);
    byKey.set(key, group);
  }
  const groups: PublishGroup[] = [];
  for (const group of byKey.values()) {
    const delaySeconds = queueDelaySeconds(new Date(group.dueAt), now, group.prepareMs ?? MAX_PREPARE_WINDOW_MS);
    for (let start = 0; start < group.postIds.length; start += MAX_GROUP_POSTS) {
      const postIds = group.postIds.slice(start, start + MAX_GROUP_POSTS);
      groups.push(group.prepareMs === undefined ? { postIds, scheduledFor: group.scheduledFor, delaySeconds } : { postIds, scheduledFor: group.scheduledFor, prepareMs: group.prepareMs, delaySeconds });
    }
  }
  return groups;
}

/** Runs `work` on every item, at most `width` at once. */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(item);
      }
    }),
  );
}
