/**
 * The posts table's index projections (lib/store/tables.ts) against DynamoDB Local: the list
 * indexes hold every field a Post is built from and none of the publish worker's bookkeeping, so
 * its claim, lease and "sent" marker writes are not copied into them; byDue holds keys only, and
 * the sweeper's listDue still returns whole posts with their publish state.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import type { Post } from '../../lib/domain/model.js';
import { newId } from '../../lib/ids.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { dueShard, duePartitionKey, indexAttributes, itemToPost, postToItem, POST_INDEXES } from '../../lib/store/post-item.js';
import { POST_LIST_ATTRIBUTES } from '../../lib/store/tables.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const postsTable = sharedTables.posts ?? '';
const posts = new DynamoDbPostStore({ client, postsTable, countersTable: sharedTables.counters ?? '', idempotencyTable: sharedTables.idempotency ?? '' });
const state = new DynamoDbPublishState({ client, postsTable, postStore: posts });

afterAll(() => raw.destroy());

const DUE = new Date('2026-11-21T09:30:00.000Z');
const INDEX_KEYS = new Set(['id', 'listPk', 'listSk', 'statusPk', 'duePk', 'dueSk']);

async function stored(): Promise<Post> {
  const userId = newId('usr');
  const post = postFixture({ id: newId('post'), userId, createdAt: new Date(DUE.getTime() - 60_000).toISOString(), scheduledFor: DUE.toISOString() });
  await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
  return post;
}

async function indexItems(indexName: string, attribute: string, value: string): Promise<Record<string, unknown>[]> {
  const out = await client.send(
    new QueryCommand({ TableName: postsTable, IndexName: indexName, KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': attribute }, ExpressionAttributeValues: { ':pk': value } }),
  );
  return out.Items ?? [];
}

describe('posts index projections', () => {
  it('project into the list indexes exactly the attributes a Post is written with (every optional field set)', () => {
    const full = postFixture({
      id: 'post_1',
      userId: 'usr_1',
      createdAt: DUE.toISOString(),
      status: 'published',
      publishedAt: DUE.toISOString(),
      publishedUrl: 'https://x.com/i/web/status/1',
      platformPostId: '1',
      error: { message: 'm', advice: 'a' },
      deletedAt: DUE.toISOString(),
      allowanceCycle: '2026-11',
      sendStartedAt: DUE.toISOString(),
    });
    const written = Object.keys(postToItem(full)).filter((name) => !INDEX_KEYS.has(name) && name !== 'sendStartedAt');
    expect([...written].sort()).toEqual([...POST_LIST_ATTRIBUTES].sort());
    // Only the worker's marker is left out of what the list reads.
    expect(itemToPost({ ...postToItem(full), ...indexAttributes({ ...full, deletedAt: null }) })).toEqual(full);
  });

  it('keep the claim, lease and marker out of the list indexes, and byDue to keys only', async () => {
    const post = await stored();
    const now = new Date(DUE.getTime() + 5);
    const token = randomUUID();
    const claim = await state.claim(post.id, { token, now, leaseUntil: new Date(now.getTime() + 30_000) });
    expect(claim.claimed).toBe(true);
    expect(await state.markCreateSending(post.id, token, now)).toBe(true);

    for (const [indexName, attribute, value] of [
      [POST_INDEXES.byUser, 'listPk', post.userId],
      [POST_INDEXES.byUserStatus, 'statusPk', `${post.userId}#scheduled`],
    ] as const) {
      const [item, ...rest] = await indexItems(indexName, attribute, value);
      expect(rest).toEqual([]);
      expect(Object.keys(item ?? {}).filter((name) => !INDEX_KEYS.has(name) && !(POST_LIST_ATTRIBUTES as readonly string[]).includes(name))).toEqual([]);
      // What GET /posts builds from the index is the post, whatever the worker wrote meanwhile.
      expect(itemToPost(item ?? {})).toEqual({ ...post, sendStartedAt: null });
    }
    const due = (await indexItems(POST_INDEXES.byDue, 'duePk', duePartitionKey(dueShard(post.id)))).find((item) => item.id === post.id);
    expect(Object.keys(due ?? {}).sort()).toEqual(['duePk', 'dueSk', 'id']);
  });

  it('still give the sweeper whole posts with their publish state (read from the table)', async () => {
    const post = await stored();
    const now = new Date(DUE.getTime() + 5);
    const token = randomUUID();
    await state.claim(post.id, { token, now, leaseUntil: new Date(now.getTime() + 30_000) });
    const found = await state.listDue(dueShard(post.id), { dueFrom: DUE.toISOString(), dueTo: new Date(DUE.getTime() + 1).toISOString(), limit: 500 });
    const mine = found.find((entry) => entry.post.id === post.id);
    expect(mine?.post).toEqual({ ...post, sendStartedAt: now.toISOString() });
    expect(mine?.state).toMatchObject({ claimToken: token, claimUntil: new Date(now.getTime() + 30_000).toISOString(), attempts: 1 });
  });

});
