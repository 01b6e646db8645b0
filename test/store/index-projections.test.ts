/**
 * The posts table's index projections (lib/store/tables.ts) against DynamoDB Local: the list
 * indexes hold every field a Post is built from and none of the publish worker's bookkeeping, so
 * its claim, lease and "sent" marker writes are not copied into them; byDue holds keys only, and
 * the sweeper's listDue still returns whole posts with their publish state.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor, ensureTables, physicalTableName, startDynamoDbLocal, tableNames } from '../../local/dynamodb-local.js';
import type { Post } from '../../lib/domain/model.js';
import { newId } from '../../lib/domain/ids.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { dueShard, duePartitionKey, indexAttributes, itemToPost, postToItem, POST_INDEXES } from '../../lib/store/post-item.js';
import { POST_LIST_ATTRIBUTES, POSTS_TABLE } from '../../lib/store/tables.js';
import { futureInstant } from '../support/clock.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const postsTable = sharedTables.posts ?? '';
const posts = new DynamoDbPostStore({ client, postsTable, countersTable: sharedTables.counters ?? '', idempotencyTable: sharedTables.idempotency ?? '' });
const state = new DynamoDbPublishState({ client, postsTable });

afterAll(() => raw.destroy());

const DUE = futureInstant();
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
      inFlightSince: DUE.toISOString(),
      format: 'thread',
      threadParts: [{ text: 'two', mediaUrls: ['https://media/1'], mediaIds: ['med_1'], platformPostId: '2', publishedUrl: 'https://x.com/i/web/status/2' }],
      firstComment: { text: 'c', status: 'failed', platformCommentId: '3', error: { message: 'm', advice: 'a', retryable: false } },
      metrics: { impressions: 10, likes: 1, comments: 0, reposts: 0, quotes: null, bookmarks: null, clicks: 2, collectedAt: DUE.toISOString() },
    });
    const written = Object.keys(postToItem(full)).filter((name) => !INDEX_KEYS.has(name) && name !== 'inFlightSince');
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
      expect(itemToPost(item ?? {})).toEqual({ ...post, inFlightSince: null });
    }
    const due = (await indexItems(POST_INDEXES.byDue, 'duePk', duePartitionKey(dueShard(post.id)))).find((item) => item.id === post.id);
    expect(Object.keys(due ?? {}).sort()).toEqual(['duePk', 'dueSk', 'id']);
  });

  it('still give the sweeper whole posts with their publish state (read from the table)', async () => {
    const post = await stored();
    const now = new Date(DUE.getTime() + 5);
    const token = randomUUID();
    await state.claim(post.id, { token, now, leaseUntil: new Date(now.getTime() + 30_000) });
    await state.markCreateSending(post.id, token, now);
    const found = await state.listDue(dueShard(post.id), { dueFrom: DUE.toISOString(), dueTo: new Date(DUE.getTime() + 1).toISOString(), limit: 500 });
    const mine = found.find((entry) => entry.post.id === post.id);
    expect(mine?.post).toEqual({ ...post, inFlightSince: now.toISOString() });
    expect(mine?.state).toMatchObject({ claimToken: token, claimUntil: new Date(now.getTime() + 30_000).toISOString(), attempts: 1, platformCreateSentAt: now.toISOString() });
  });


  it('are rebuilt by the local stack on a data folder whose tables still copy everything (ALL), keeping the items', async () => {
    // A DynamoDB Local of its own: dropping and rebuilding indexes is a table-level operation that
    // the shared instance, busy with every other test file, could hold up past any timeout.
    const own = await startDynamoDbLocal({ dataDir: null });
    const ownRaw = dynamoDbClientFor(own.endpoint);
    const ownClient = DynamoDBDocumentClient.from(ownRaw, { marshallOptions: { removeUndefinedValues: true } });
    const names = tableNames(`projections${Date.now()}_`);
    const table = physicalTableName(names, POSTS_TABLE);
    try {
      // The posts table as earlier versions created it: every index projecting ALL.
      await ownRaw.send(
        new CreateTableCommand({
          TableName: table,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: ['id', 'listPk', 'listSk', 'statusPk', 'duePk', 'dueSk', 'metricsDuePk', 'metricsDueSk'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          GlobalSecondaryIndexes: POSTS_TABLE.indexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey ?? '', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          })),
        }),
      );
      const post = postFixture({ id: newId('post'), userId: newId('usr'), createdAt: DUE.toISOString() });
      await ownClient.send(new PutCommand({ TableName: table, Item: { ...postToItem(post), claimToken: 'left-over' } }));

      await ensureTables(ownRaw, names);

      const described = await ownRaw.send(new DescribeTableCommand({ TableName: table }));
      const projections = Object.fromEntries((described.Table?.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName, index.Projection?.ProjectionType]));
      expect(projections).toEqual({ byUser: 'INCLUDE', byUserStatus: 'INCLUDE', byDue: 'KEYS_ONLY', byMetricsDue: 'KEYS_ONLY' });
      let listed: Record<string, unknown>[] = [];
      // DynamoDB Local backfills a rebuilt index in the background: seconds on a busy machine.
      for (let attempt = 0; attempt < 150 && listed.length === 0; attempt++) {
        const out = await ownClient.send(new QueryCommand({ TableName: table, IndexName: POST_INDEXES.byUser, KeyConditionExpression: 'listPk = :pk', ExpressionAttributeValues: { ':pk': post.userId } }));
        listed = out.Items ?? [];
        if (listed.length === 0) await sleep(200);
      }
      expect(listed.map((item) => itemToPost(item))).toEqual([{ ...post, inFlightSince: null }]);
      expect(listed[0]?.claimToken).toBeUndefined();
    } finally {
      ownRaw.destroy();
      await own.stop();
    }
  }, 90_000);
});
