/**
 * Post metrics on the post's own item (tables.ts, post-item.ts): `metrics` (the latest figures,
 * projected into the list indexes so GET /posts shows them), `metricsHistory` (bounded, read by
 * GET /posts/{id}/metrics only), the byMetricsDue entry (metricsDuePk/metricsDueSk: the next
 * collection), the claim of a collection under way (metricsClaimToken/metricsClaimUntil) and the
 * last refresh (metricsRefreshedAt).
 *
 * Each step is one conditional UpdateItem: the claim takes a post only while its due entry is the
 * one listed and no live claim holds it, and returns the item, so listing costs no read of the
 * posts; the record and the postponement hold only under that claim's token. A collector killed
 * mid-way leaves the due entry in place and a claim that runs out: the next run takes it again.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import type { Post } from '../domain/model.js';
import type { PostMetrics } from '../domain/post-metrics.js';
import type { ClaimedPost, PostMetricsRecord, PostMetricsStore, PublishedPage, RefreshClaim } from '../use-cases/ports/post-metrics-store.js';
import { documentClient } from './dynamo-client.js';
import { itemToPost, metricsDueKeys, POST_INDEXES, POST_METRICS_ITEM, statusPartitionKey } from './post-item.js';
import { POSTS_TABLE } from './tables.js';

const HISTORY_ITEM = v.array(POST_METRICS_ITEM);

/** A post's history as stored; one it cannot read starts afresh rather than failing every collection. */
function historyOf(item: Record<string, unknown>): PostMetrics[] {
  const parsed = v.safeParse(HISTORY_ITEM, item.metricsHistory ?? []);
  return parsed.success ? parsed.output : [];
}

export interface DynamoDbPostMetricsOptions {
  postsTable?: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoDbPostMetrics implements PostMetricsStore {
  private readonly table: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: DynamoDbPostMetricsOptions = {}) {
    this.table = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async listDue(shard: number, dueBy: Date, limit: number): Promise<string[]> {
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
    return (out.Items ?? []).map((item) => String(item.id));
  }

  async claimDue(postId: string, input: { now: Date; dueBy: Date; claimMs: number; token: string }): Promise<ClaimedPost | null> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
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
      return out.Attributes ? { post: itemToPost(out.Attributes), history: historyOf(out.Attributes), claimToken: input.token } : null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  async claimRefresh(userId: string, postId: string, input: { now: Date; claimMs: number; refreshIntervalMs: number; token: string }): Promise<RefreshClaim> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: 'SET metricsClaimToken = :token, metricsClaimUntil = :until, metricsRefreshedAt = :nowIso',
          ConditionExpression:
            'userId = :userId AND attribute_not_exists(deletedAt) AND #status = :published' +
            ' AND (attribute_not_exists(metricsRefreshedAt) OR metricsRefreshedAt <= :refreshBefore)' +
            ' AND (attribute_not_exists(metricsClaimUntil) OR metricsClaimUntil < :nowIso)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':token': input.token,
            ':until': new Date(input.now.getTime() + input.claimMs).toISOString(),
            ':nowIso': input.now.toISOString(),
            ':userId': userId,
            ':published': 'published',
            ':refreshBefore': new Date(input.now.getTime() - input.refreshIntervalMs).toISOString(),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      if (!out.Attributes) return { refused: 'not_found' };
      return { claimed: { post: itemToPost(out.Attributes), history: historyOf(out.Attributes), claimToken: input.token } };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Why the condition failed, from the item as it was (returned with the failure: no second read).
      const item = error.Item ? unmarshall(error.Item) : null;
      if (!item || item.userId !== userId || item.deletedAt !== undefined) return { refused: 'not_found' };
      if (item.status !== 'published') return { refused: 'not_published' };
      const refreshedAt = typeof item.metricsRefreshedAt === 'string' ? Date.parse(item.metricsRefreshedAt) : Number.NaN;
      if (Number.isFinite(refreshedAt) && refreshedAt > input.now.getTime() - input.refreshIntervalMs) {
        return { refused: 'too_soon', retryAt: new Date(refreshedAt + input.refreshIntervalMs) };
      }
      return { refused: 'in_progress' };
    }
  }

  async record(postId: string, token: string, input: { metrics: PostMetrics; history: PostMetrics[]; nextDueAt: Date | null | undefined }): Promise<boolean> {
    const due =
      input.nextDueAt === undefined
        ? { set: '', remove: '', values: {} }
        : input.nextDueAt === null
          ? { set: '', remove: ', metricsDuePk, metricsDueSk', values: {} }
          : { set: ', metricsDuePk = :duePk, metricsDueSk = :dueSk', remove: '', values: prefixed(metricsDueKeys(postId, input.nextDueAt)) };
    return this.conditional({
      TableName: this.table,
      Key: { id: postId },
      // `metrics` is a DynamoDB reserved word.
      UpdateExpression: `SET #metrics = :metrics, metricsHistory = :history${due.set} REMOVE metricsClaimToken, metricsClaimUntil${due.remove}`,
      ConditionExpression: 'metricsClaimToken = :token',
      ExpressionAttributeNames: { '#metrics': 'metrics' },
      ExpressionAttributeValues: { ':metrics': input.metrics, ':history': input.history, ':token': token, ...due.values },
    });
  }

  async postpone(postId: string, token: string, dueAt: Date | null): Promise<boolean> {
    return this.conditional({
      TableName: this.table,
      Key: { id: postId },
      UpdateExpression:
        dueAt === null
          ? 'REMOVE metricsClaimToken, metricsClaimUntil, metricsDuePk, metricsDueSk'
          : 'SET metricsDuePk = :duePk, metricsDueSk = :dueSk REMOVE metricsClaimToken, metricsClaimUntil',
      ConditionExpression: 'metricsClaimToken = :token',
      ExpressionAttributeValues: { ':token': token, ...(dueAt === null ? {} : prefixed(metricsDueKeys(postId, dueAt))) },
    });
  }

  async release(postId: string, token: string): Promise<boolean> {
    return this.conditional({
      TableName: this.table,
      Key: { id: postId },
      UpdateExpression: 'REMOVE metricsClaimToken, metricsClaimUntil',
      ConditionExpression: 'metricsClaimToken = :token',
      ExpressionAttributeValues: { ':token': token },
    });
  }

  async get(userId: string, postId: string): Promise<PostMetricsRecord | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.table, Key: { id: postId }, ConsistentRead: true }));
    const item = out.Item;
    if (!item || item.userId !== userId || item.deletedAt !== undefined) return null;
    return {
      post: itemToPost(item),
      history: historyOf(item),
      refreshedAt: typeof item.metricsRefreshedAt === 'string' ? item.metricsRefreshedAt : null,
    };
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
    return posts;
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

  private async conditional(update: ConstructorParameters<typeof UpdateCommand>[0]): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand(update));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

function prefixed(keys: { metricsDuePk: string; metricsDueSk: string }): Record<string, string> {
  return { ':duePk': keys.metricsDuePk, ':dueSk': keys.metricsDueSk };
}
