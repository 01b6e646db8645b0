/**
 * Post metrics in the posts table (tables.ts), on an item of their own beside each post: id
 * `metrics#<postId>`, holding the history (its last entry is the post's latest metrics), the
 * byMetricsDue entry (metricsDuePk/metricsDueSk: the next collection), the claim of a collection
 * under way (metricsClaimToken/metricsClaimUntil) and the last refresh (metricsRefreshedAt). It is
 * ~0.5 KB and in no list index, so a collection's two writes cost one write unit each, where on
 * the post item (~1-2 KB, its latest metrics projected into byUser and byUserStatus) they cost six
 * (docs/metrics.md, "What it costs").
 *
 * A post comes out of the publish worker with its first due entry on the post item itself (set by
 * the write that publishes it, so no crash can leave a published post never collected, at no write
 * of its own). The first collection or refresh claims the post item and, when it records, puts the
 * metrics item (with everything the post item held: history, refresh, due entry) and only then
 * takes it all off the post item: a crash between the two leaves both, and the next claim of the
 * post item finds the metrics item there and only clears the post item. Posts collected before the
 * metrics item existed keep their figures on the post item until that first record, and the reads
 * here fall back to them.
 *
 * Each step is one conditional write: the claim takes an item only while its due entry is the one
 * listed and no live claim holds it, and returns the item, so listing costs no read of the
 * metrics; the record and the postponement hold only under that claim's token. A collector killed
 * mid-way leaves the due entry in place and a claim that runs out: the next run takes it again.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import type { Post } from '../domain/model.js';
import { METRIC_FIGURES, type PostMetrics } from '../domain/post-metrics.js';
import type { ClaimedPost, DueCollection, PostMetricsRecord, PostMetricsStore, PublishedPage, RefreshClaim } from '../use-cases/ports/post-metrics-store.js';
import { batchGetAll } from './batch-get.js';
import { writtenIfConditionHolds } from './directory-table.js';
import { documentClient } from './dynamo-client.js';
import { itemToPost, metricsDueKeys, POST_INDEXES, POST_METRICS_ITEM, statusPartitionKey } from './post-item.js';
import { POSTS_TABLE } from './tables.js';

/** The metrics item's id: no post id has a `#` (post ids are `post_` and 20 letters or digits), so it never meets one. */
const METRICS_ITEM_PREFIX = 'metrics#';

export function metricsItemId(postId: string): string {
  return `${METRICS_ITEM_PREFIX}${postId}`;
}

const FIGURE = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)));
/**
 * One history entry as stored: [collectedAt in epoch milliseconds, then the figures in
 * METRIC_FIGURES' order, null where not given]. A list of numbers, not a map: attribute names count
 * towards an item's size, and 24 entries as maps would pass a write unit's 1 KB.
 */
const HISTORY_ENTRY = v.tuple([v.pipe(v.number(), v.integer()), FIGURE, FIGURE, FIGURE, FIGURE, FIGURE, FIGURE, FIGURE]);
type HistoryEntry = v.InferOutput<typeof HISTORY_ENTRY>;

function entryOf(metrics: PostMetrics): HistoryEntry {
  return [Date.parse(metrics.collectedAt), ...METRIC_FIGURES.map((name) => metrics[name])] as HistoryEntry;
}

function metricsOf([collectedAt, ...figures]: HistoryEntry): PostMetrics {
  return { ...(Object.fromEntries(METRIC_FIGURES.map((name, index) => [name, figures[index] ?? null])) as Record<(typeof METRIC_FIGURES)[number], number | null>), collectedAt: new Date(collectedAt).toISOString() };
}

/** A history as stored; one it cannot read starts afresh rather than failing every collection. */
const STORED_HISTORY = v.fallback(v.array(HISTORY_ENTRY), () => []);
/** A post item's own history, written before the metrics item existed. */
const POST_ITEM_HISTORY = v.fallback(v.array(POST_METRICS_ITEM), () => []);

function historyOfMetricsItem(item: Record<string, unknown>): PostMetrics[] {
  return v.parse(STORED_HISTORY, item.history ?? []).map(metricsOf);
}

function historyOfPostItem(item: Record<string, unknown>): PostMetrics[] {
  return v.parse(POST_ITEM_HISTORY, item.metricsHistory ?? []);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The due entry's time, from its sort key `<dueAt>#<id>`. */
function dueAtOf(item: Record<string, unknown>): Date | null {
  const sortKey = stringOrNull(item.metricsDueSk);
  const at = sortKey === null ? Number.NaN : Date.parse(sortKey.slice(0, sortKey.indexOf('#')));
  return Number.isFinite(at) ? new Date(at) : null;
}

/** The post as the API shows it: the latest metrics from its metrics item when there is one. */
function postWithMetrics(postItem: Record<string, unknown>, metricsItem: Record<string, unknown> | undefined): { post: Post; history: PostMetrics[] } {
  const post = itemToPost(postItem);
  if (!metricsItem) return { post, history: historyOfPostItem(postItem) };
  const history = historyOfMetricsItem(metricsItem);
  return { post: { ...post, metrics: history.at(-1) ?? post.metrics ?? null }, history };
}

export interface DynamoDbPostMetricsOptions {
  postsTable?: string;
  client?: DynamoDBDocumentClient;
}

type ClaimInput = { now: Date; dueBy: Date; claimMs: number; token: string };

export class DynamoDbPostMetrics implements PostMetricsStore {
  private readonly table: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: DynamoDbPostMetricsOptions = {}) {
    this.table = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async listDue(shard: number, dueBy: Date, limit: number): Promise<DueCollection[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: POST_INDEXES.byMetricsDue,
        // metricsDueSk is `<dueAt>#<id>`: the bare ISO time orders before every id of that instant.
        KeyConditionExpression: 'metricsDuePk = :pk AND metricsDueSk < :to',
        ExpressionAttributeValues: { ':pk': `metrics#${shard}`, ':to': `${dueBy.toISOString()}#~` },
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => {
      const id = String(item.id);
      return id.startsWith(METRICS_ITEM_PREFIX) ? { postId: id.slice(METRICS_ITEM_PREFIX.length), on: 'metrics' as const } : { postId: id, on: 'post' as const };
    });
  }

  async claimDue(due: readonly DueCollection[], input: ClaimInput): Promise<ClaimedPost[]> {
    const claimed: ClaimedPost[] = [];
    const onMetricsItems: Record<string, unknown>[] = [];
    for (const entry of due) {
      const item = await this.claimItem(entry.on === 'post' ? entry.postId : metricsItemId(entry.postId), input);
      if (!item) continue;
      if (entry.on === 'post') claimed.push(this.claimOnPost(item, input.token));
      else onMetricsItems.push(item);
    }
    if (onMetricsItems.length === 0) return claimed;
    // The posts of the claims on metrics items, in one read: what the collector needs of each
    // (account, platform ids, still live), strongly consistent so a post deleted a moment ago shows it.
    const postIds = onMetricsItems.map((item) => String(item.id).slice(METRICS_ITEM_PREFIX.length));
    const posts = new Map((await batchGetAll(this.client, this.table, postIds.map((id) => ({ id })), { consistentRead: true })).map((item) => [String(item.id), item]));
    for (const [index, metricsItem] of onMetricsItems.entries()) {
      const postId = postIds[index] ?? '';
      const postItem = posts.get(postId);
      if (postItem) {
        claimed.push(this.claimOnMetricsItem(postItem, metricsItem, input.token));
      } else {
        // The post item is gone: nothing to collect any more, and nothing to show it to.
        await this.conditional(this.dueUpdate(metricsItemId(postId), postId, input.token, null));
      }
    }
    return claimed;
  }

  async claimRefresh(userId: string, postId: string, input: { now: Date; claimMs: number; refreshIntervalMs: number; token: string }): Promise<RefreshClaim> {
    const { postItem, metricsItem } = await this.readBoth(postId);
    if (!postItem || postItem.userId !== userId || postItem.deletedAt !== undefined) return { refused: 'not_found' };
    if (postItem.status !== 'published') return { refused: 'not_published' };
    const refreshBefore = new Date(input.now.getTime() - input.refreshIntervalMs).toISOString();
    const values = {
      ':token': input.token,
      ':until': new Date(input.now.getTime() + input.claimMs).toISOString(),
      ':nowIso': input.now.toISOString(),
      ':refreshBefore': refreshBefore,
    };
    const unclaimedAndNotTooSoon =
      '(attribute_not_exists(metricsRefreshedAt) OR metricsRefreshedAt <= :refreshBefore) AND (attribute_not_exists(metricsClaimUntil) OR metricsClaimUntil < :nowIso)';
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          UpdateExpression: 'SET metricsClaimToken = :token, metricsClaimUntil = :until, metricsRefreshedAt = :nowIso',
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...(metricsItem
            ? { Key: { id: metricsItemId(postId) }, ConditionExpression: `attribute_exists(id) AND ${unclaimedAndNotTooSoon}`, ExpressionAttributeValues: values }
            : {
                // No metrics item yet: the claim is on the post item, whose state the condition checks again.
                Key: { id: postId },
                ConditionExpression: `userId = :userId AND attribute_not_exists(deletedAt) AND #status = :published AND ${unclaimedAndNotTooSoon}`,
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ...values, ':userId': userId, ':published': 'published' },
              }),
        }),
      );
      const item = out.Attributes;
      if (!item) return { refused: 'not_found' };
      return { claimed: metricsItem ? this.claimOnMetricsItem(postItem, item, input.token) : this.claimOnPost(item, input.token) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Why the condition failed, from the item as it was (returned with the failure: no second read).
      const item = error.Item ? unmarshall(error.Item) : null;
      if (!item) return { refused: 'in_progress' };
      if (!metricsItem && (item.userId !== userId || item.deletedAt !== undefined)) return { refused: 'not_found' };
      if (!metricsItem && item.status !== 'published') return { refused: 'not_published' };
      const refreshedAt = typeof item.metricsRefreshedAt === 'string' ? Date.parse(item.metricsRefreshedAt) : Number.NaN;
      if (Number.isFinite(refreshedAt) && refreshedAt > input.now.getTime() - input.refreshIntervalMs) {
        return { refused: 'too_soon', retryAt: new Date(refreshedAt + input.refreshIntervalMs) };
      }
      return { refused: 'in_progress' };
    }
  }

  async record(claim: ClaimedPost, input: { history: PostMetrics[]; nextDueAt: Date | null | undefined }): Promise<boolean> {
    if (claim.on === 'post') return this.moveToMetricsItem(claim, input);
    const postId = claim.post.id;
    const due =
      input.nextDueAt === undefined
        ? { set: '', remove: '', values: {} }
        : input.nextDueAt === null
          ? { set: '', remove: ', metricsDuePk, metricsDueSk', values: {} }
          : { set: ', metricsDuePk = :duePk, metricsDueSk = :dueSk', remove: '', values: prefixed(metricsDueKeys(postId, input.nextDueAt)) };
    return this.conditional({
      TableName: this.table,
      Key: { id: metricsItemId(postId) },
      // `history` is not a reserved word; `metrics` would be.
      UpdateExpression: `SET history = :history${due.set} REMOVE metricsClaimToken, metricsClaimUntil${due.remove}`,
      ConditionExpression: 'metricsClaimToken = :token',
      ExpressionAttributeValues: { ':history': input.history.map(entryOf), ':token': claim.claimToken, ...due.values },
    });
  }

  async postpone(claim: ClaimedPost, dueAt: Date | null): Promise<boolean> {
    return this.conditional(this.dueUpdate(claim.on === 'post' ? claim.post.id : metricsItemId(claim.post.id), claim.post.id, claim.claimToken, dueAt));
  }

  async release(claim: ClaimedPost): Promise<boolean> {
    return this.conditional({
      TableName: this.table,
      Key: { id: claim.on === 'post' ? claim.post.id : metricsItemId(claim.post.id) },
      UpdateExpression: 'REMOVE metricsClaimToken, metricsClaimUntil',
      ConditionExpression: 'metricsClaimToken = :token',
      ExpressionAttributeValues: { ':token': claim.claimToken },
    });
  }

  async get(userId: string, postId: string): Promise<PostMetricsRecord | null> {
    const { postItem, metricsItem } = await this.readBoth(postId);
    if (!postItem || postItem.userId !== userId || postItem.deletedAt !== undefined) return null;
    return {
      ...postWithMetrics(postItem, metricsItem),
      refreshedAt: stringOrNull(metricsItem?.metricsRefreshedAt) ?? stringOrNull(postItem.metricsRefreshedAt),
    };
  }

  async latestMetrics(postIds: readonly string[]): Promise<Map<string, PostMetrics>> {
    if (postIds.length === 0) return new Map();
    const items = await batchGetAll(this.client, this.table, postIds.map((id) => ({ id: metricsItemId(id) })), { consistentRead: true });
    const latest = new Map<string, PostMetrics>();
    for (const item of items) {
      const last = historyOfMetricsItem(item).at(-1);
      if (last) latest.set(String(item.id).slice(METRICS_ITEM_PREFIX.length), last);
    }
    return latest;
  }

  async listPublished(userId: string, createdFrom: Date, createdTo: Date): Promise<Post[]> {
    const posts: Post[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: POST_INDEXES.byUserStatus,
          KeyConditionExpression: 'statusPk = :pk AND listSk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': statusPartitionKey(userId, 'published'), ':from': createdFrom.toISOString(), ':to': `${createdTo.toISOString()}#~` },
          ScanIndexForward: false,
          ExclusiveStartKey: startKey,
        }),
      );
      posts.push(...(out.Items ?? []).map(itemToPost));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    const latest = await this.latestMetrics(posts.map((post) => post.id));
    return posts.map((post) => ({ ...post, metrics: latest.get(post.id) ?? post.metrics ?? null }));
  }

  async listPublishedPage(userId: string, input: { publishedAfter: Date; limit: number; cursor: string | null }): Promise<PublishedPage> {
    const statusPk = statusPartitionKey(userId, 'published');
    // The cursor is the last listSk read (`<createdAt>#<id>`): the index's key and the table's are both in it.
    const startKey = input.cursor === null ? undefined : { statusPk, listSk: input.cursor, id: input.cursor.slice(input.cursor.indexOf('#') + 1) };
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: POST_INDEXES.byUserStatus,
        KeyConditionExpression: 'statusPk = :pk',
        // By publishedAt, not by the sort key: a draft or a retried post goes out long after it was created.
        FilterExpression: 'publishedAt > :after',
        ProjectionExpression: 'id, publishedAt, listSk',
        ExpressionAttributeValues: { ':pk': statusPk, ':after': input.publishedAfter.toISOString() },
        ScanIndexForward: false,
        Limit: input.limit,
        ExclusiveStartKey: startKey,
      }),
    );
    const last = out.LastEvaluatedKey?.listSk;
    return {
      posts: (out.Items ?? []).map((item) => ({ id: String(item.id), publishedAt: String(item.publishedAt) })),
      read: out.ScannedCount ?? 0,
      cursor: typeof last === 'string' ? last : null,
    };
  }

  async scheduleUnscheduled(postId: string, input: { dueAt: Date; publishedAfter: Date }): Promise<boolean> {
    return this.conditional({
      TableName: this.table,
      Key: { id: postId },
      UpdateExpression: 'SET metricsDuePk = :duePk, metricsDueSk = :dueSk',
      ConditionExpression: '#status = :published AND attribute_not_exists(deletedAt) AND attribute_not_exists(metricsDuePk) AND publishedAt > :after',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':published': 'published', ':after': input.publishedAfter.toISOString(), ...prefixed(metricsDueKeys(postId, input.dueAt)) },
    });
  }

  /** The claim of one item (a post item or a metrics item) while its entry is due and no live claim holds it; the item as claimed, or null. */
  private async claimItem(id: string, input: ClaimInput): Promise<Record<string, unknown> | null> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET metricsClaimToken = :token, metricsClaimUntil = :until',
          ConditionExpression: 'metricsDueSk < :dueBy AND (attribute_not_exists(metricsClaimUntil) OR metricsClaimUntil < :now)',
          ExpressionAttributeValues: {
            ':token': input.token,
            ':until': new Date(input.now.getTime() + input.claimMs).toISOString(),
            ':now': input.now.toISOString(),
            ':dueBy': `${input.dueBy.toISOString()}#~`,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ?? null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  private claimOnPost(item: Record<string, unknown>, token: string): ClaimedPost {
    return { post: itemToPost(item), history: historyOfPostItem(item), claimToken: token, on: 'post', dueAt: dueAtOf(item), refreshedAt: stringOrNull(item.metricsRefreshedAt) };
  }

  /** A claim on a metrics item (as the claim's write left it), with its post as the API shows it. */
  private claimOnMetricsItem(postItem: Record<string, unknown>, metricsItem: Record<string, unknown>, token: string): ClaimedPost {
    return { ...postWithMetrics(postItem, metricsItem), claimToken: token, on: 'metrics', dueAt: dueAtOf(metricsItem), refreshedAt: stringOrNull(metricsItem.metricsRefreshedAt) };
  }

  /**
   * The first record of a post: its metrics item is put with the history, the refresh and the due
   * entry (the next one, or the one the refresh found), then the post item is cleared of them. A
   * metrics item already there (a collector that died between the two writes) is kept as it is and
   * this collection's figures are dropped: the post item is cleared all the same.
   */
  private async moveToMetricsItem(claim: ClaimedPost, input: { history: PostMetrics[]; nextDueAt: Date | null | undefined }): Promise<boolean> {
    const postId = claim.post.id;
    const dueAt = input.nextDueAt === undefined ? claim.dueAt : input.nextDueAt;
    const written = await writtenIfConditionHolds(
      this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            id: metricsItemId(postId),
            history: input.history.map(entryOf),
            ...(dueAt === null ? {} : metricsDueKeys(postId, dueAt)),
            ...(claim.refreshedAt === null ? {} : { metricsRefreshedAt: claim.refreshedAt }),
          },
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      ),
    );
    const cleared = await this.conditional({
      TableName: this.table,
      Key: { id: postId },
      UpdateExpression: 'REMOVE metricsDuePk, metricsDueSk, metricsClaimToken, metricsClaimUntil, metricsRefreshedAt, metricsHistory, #metrics',
      ConditionExpression: 'metricsClaimToken = :token',
      ExpressionAttributeNames: { '#metrics': 'metrics' },
      ExpressionAttributeValues: { ':token': claim.claimToken },
    });
    return written && cleared;
  }

  /** Releases the claim on item `id` (post `postId`'s) and moves its due entry to `dueAt`, or removes it (null). */
  private dueUpdate(id: string, postId: string, token: string, dueAt: Date | null): ConstructorParameters<typeof UpdateCommand>[0] {
    return {
      TableName: this.table,
      Key: { id },
      UpdateExpression:
        dueAt === null
          ? 'REMOVE metricsClaimToken, metricsClaimUntil, metricsDuePk, metricsDueSk'
          : 'SET metricsDuePk = :duePk, metricsDueSk = :dueSk REMOVE metricsClaimToken, metricsClaimUntil',
      ConditionExpression: 'metricsClaimToken = :token',
      ExpressionAttributeValues: { ':token': token, ...(dueAt === null ? {} : prefixed(metricsDueKeys(postId, dueAt))) },
    };
  }

  /** The post item and its metrics item, strongly consistent, in one request. */
  private async readBoth(postId: string): Promise<{ postItem: Record<string, unknown> | undefined; metricsItem: Record<string, unknown> | undefined }> {
    const items = await batchGetAll(this.client, this.table, [{ id: postId }, { id: metricsItemId(postId) }], { consistentRead: true });
    return { postItem: items.find((item) => item.id === postId), metricsItem: items.find((item) => item.id === metricsItemId(postId)) };
  }

  private conditional(update: ConstructorParameters<typeof UpdateCommand>[0]): Promise<boolean> {
    return writtenIfConditionHolds(this.client.send(new UpdateCommand(update)));
  }
}

function prefixed(keys: { metricsDuePk: string; metricsDueSk: string }): Record<string, string> {
  return { ':duePk': keys.metricsDuePk, ':dueSk': keys.metricsDueSk };
}
