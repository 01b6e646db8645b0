/**
 * The metrics backfill (lib/use-cases/admin/backfill-metrics.ts) against DynamoDB Local: a user's
 * posts published before collection existed (no byMetricsDue entry) get a collection due, found
 * by a Query of byUserStatus, a bounded number a run with a cursor to resume; a post already due,
 * past its 30 days, deleted or not published is left as it is, and no post is scheduled twice,
 * even by two runs at once. The clock is in the year 2100, so the entries it writes are never due
 * for the collectors of the other test files (they run in the present or in the year 2000).
 */
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newId, randomToken } from '../../lib/domain/ids.js';
import type { Post } from '../../lib/domain/model.js';
import { DynamoDbPostMetrics, metricsItemId } from '../../lib/store/dynamodb-post-metrics.js';
import { metricsDueKeys, postToItem } from '../../lib/store/post-item.js';
import { BackfillMetrics } from '../../lib/use-cases/admin/backfill-metrics.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const postsTable = sharedTables.posts ?? '';
const store = new DynamoDbPostMetrics({ client, postsTable });
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const NOW = new Date('2100-01-01T12:00:00.000Z');

afterAll(() => raw.destroy());

function backfill(): BackfillMetrics {
  return new BackfillMetrics({ store, clock: { now: () => new Date(NOW) } });
}

/** A post of `userId` in the table as the store writes it; `due` gives it a byMetricsDue entry (published after collection existed). */
async function put(userId: string, fields: { publishedAgoMs?: number; status?: Post['status']; deleted?: boolean; due?: Date; createdAgoMs?: number }): Promise<Post> {
  const publishedAt = new Date(NOW.getTime() - (fields.publishedAgoMs ?? DAY_MS)).toISOString();
  const status = fields.status ?? 'published';
  const post = postFixture({
    id: newId('post'),
    userId,
    createdAt: new Date(NOW.getTime() - (fields.createdAgoMs ?? fields.publishedAgoMs ?? DAY_MS)).toISOString(),
    status,
    ...(status === 'published' ? { publishedAt, publishedUrl: 'https://x.com/m/status/1', platformPostId: '1' } : {}),
    ...(fields.deleted ? { deletedAt: NOW.toISOString() } : {}),
  });
  await client.send(new PutCommand({ TableName: postsTable, Item: { ...postToItem(post), ...(fields.due ? metricsDueKeys(post.id, fields.due) : {}) } }));
  return post;
}

async function dueSkOf(postId: string): Promise<unknown> {
  const out = await client.send(new GetCommand({ TableName: postsTable, Key: { id: postId }, ConsistentRead: true }));
  return out.Item?.metricsDueSk;
}

function user(): string {
  return `user_${randomToken(20)}`;
}

describe('the metrics backfill', () => {
  it('gives each published post within its 30 days and without an entry a collection due now, and leaves the others as they are', async () => {
    const userId = user();
    const unscheduled = await put(userId, { publishedAgoMs: 2 * DAY_MS });
    // A draft created long ago and published yesterday: found by publishedAt, not by when it was created.
    const lateDraft = await put(userId, { publishedAgoMs: DAY_MS, createdAgoMs: 200 * DAY_MS });
    const justPublished = await put(userId, { publishedAgoMs: 10 * 60_000 });
    const laterDue = new Date(NOW.getTime() + 5 * DAY_MS);
    const alreadyDue = await put(userId, { publishedAgoMs: 2 * DAY_MS, due: laterDue });
    const tooOld = await put(userId, { publishedAgoMs: 31 * DAY_MS });
    const deleted = await put(userId, { publishedAgoMs: DAY_MS, deleted: true });
    const failed = await put(userId, { status: 'failed' });
    // Collected since (its metrics item holds its history), its schedule stopped (deleted on the platform): no entry anywhere.
    const collected = await put(userId, { publishedAgoMs: 2 * DAY_MS });
    await client.send(new PutCommand({ TableName: postsTable, Item: { id: metricsItemId(collected.id), history: [[NOW.getTime(), 5, 1, 0, 0, 0, 0, null]] } }));

    const result = await backfill().run({ userId, cursor: null, limit: 100 });

    expect(result).toEqual({ object: 'metrics_backfill', userId, read: 6, scheduled: 3, alreadyScheduled: 2, cursor: null });
    expect(await dueSkOf(unscheduled.id)).toBe(`${NOW.toISOString()}#${unscheduled.id}`);
    expect(await dueSkOf(lateDraft.id)).toBe(`${NOW.toISOString()}#${lateDraft.id}`);
    // Never before its first point, an hour after it went out.
    expect(await dueSkOf(justPublished.id)).toBe(`${new Date(Date.parse(justPublished.publishedAt ?? '') + HOUR_MS).toISOString()}#${justPublished.id}`);
    expect(await dueSkOf(alreadyDue.id)).toBe(`${laterDue.toISOString()}#${alreadyDue.id}`);
    for (const post of [tooOld, deleted, failed, collected]) expect(await dueSkOf(post.id)).toBeUndefined();
    // The collector finds them in its Query of byMetricsDue.
    const shard = Number(metricsDueKeys(unscheduled.id, NOW).metricsDuePk.split('#')[1]);
    expect(await store.listDue(shard, NOW, 1000)).toContainEqual({ postId: unscheduled.id, on: 'post' });

    const again = await backfill().run({ userId, cursor: null, limit: 100 });
    expect(again).toMatchObject({ read: 6, scheduled: 0, alreadyScheduled: 5, cursor: null });
  });

  it('reads at most the limit a run and resumes from the cursor it printed until every post is scheduled once', async () => {
    const userId = user();
    const posts = await Promise.all(Array.from({ length: 25 }, (_, n) => put(userId, { publishedAgoMs: (n + 2) * HOUR_MS })));
    const runs: { read: number; scheduled: number; cursor: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const result = await backfill().run({ userId, cursor, limit: 10 });
      runs.push(result);
      cursor = result.cursor;
    } while (cursor !== null && runs.length < 10);
    expect(runs.map((run) => run.read)).toEqual([10, 10, 5]);
    expect(runs.reduce((sum, run) => sum + run.scheduled, 0)).toBe(25);
    for (const post of posts) expect(await dueSkOf(post.id)).toBe(`${NOW.toISOString()}#${post.id}`);
  });

  it('schedules each post once when two runs go at once', async () => {
    const userId = user();
    await Promise.all(Array.from({ length: 20 }, () => put(userId, { publishedAgoMs: 3 * DAY_MS })));
    const [first, second] = await Promise.all([backfill().run({ userId, cursor: null, limit: 100 }), backfill().run({ userId, cursor: null, limit: 100 })]);
    expect((first?.scheduled ?? 0) + (second?.scheduled ?? 0)).toBe(20);
    expect((first?.alreadyScheduled ?? 0) + (second?.alreadyScheduled ?? 0)).toBe(20);
  });
});
