/**
 * The post and idempotency stores against DynamoDB Local (the shared, unprefixed tables of the
 * test global setup). Every test uses its own user ids, so tests never see each other's items.
 * What goes through HTTP is tested in test/http/posts-*.test.ts; here: the store's own guarantees
 * under concurrency and the methods the publish worker uses.
 */
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import type { Post } from '../../lib/domain/model.js';
import { newId } from '../../lib/domain/ids.js';
import { DynamoDbIdempotencyStore } from '../../lib/store/dynamodb-idempotency-store.js';
import { allowanceCounterKey, DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { cycleOf, futureInstant } from '../support/clock.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const posts = new DynamoDbPostStore({
  client,
  postsTable: sharedTables.posts ?? '',
  countersTable: sharedTables.counters ?? '',
  idempotencyTable: sharedTables.idempotency ?? '',
});
// The publish outcome writes are the worker's (DynamoDbPublishState), on the same posts table.
const outcomes = new DynamoDbPublishState({ client, postsTable: sharedTables.posts ?? '' });
const idempotency = new DynamoDbIdempotencyStore({ client, tableName: sharedTables.idempotency ?? '' });

afterAll(() => raw.destroy());

// In the future: idempotency records carry a TTL that DynamoDB Local acts on (test/support/clock.ts);
// an allowance counter expires three months after its cycle, so NOW's cycle is safe too.
const NOW = futureInstant();
const CYCLE = cycleOf(NOW);

function post(userId: string, changes: Partial<Post> = {}): Post {
  return postFixture({
    id: newId('post'),
    userId,
    createdAt: NOW.toISOString(),
    allowanceCycle: changes.status === 'draft' ? null : CYCLE,
    ...changes,
  });
}

async function used(userId: string): Promise<number> {
  const out = await client.send(new GetCommand({ TableName: sharedTables.counters, Key: allowanceCounterKey(userId, CYCLE) }));
  return typeof out.Item?.used === 'number' ? out.Item.used : 0;
}

async function rawItem(id: string): Promise<Record<string, unknown> | undefined> {
  return (await client.send(new GetCommand({ TableName: sharedTables.posts, Key: { id } }))).Item;
}

const write = (userId: string, batch: Post[], allowanceLimit: number) =>
  posts.createPosts({ userId, posts: batch, allowanceLimit, idempotency: null, response: () => null });

describe('createPosts and the allowance', () => {
  it('writes every draft and the first posts that fit, in request order', async () => {
    const userId = newId('usr');
    const batch = [post(userId), post(userId, { status: 'draft' }), post(userId), post(userId)];
    const result = await write(userId, batch, 2);
    expect(result.written.map((p) => p.id)).toEqual([batch[0]?.id, batch[1]?.id, batch[2]?.id]);
    expect(result.overAllowance.map((p) => p.id)).toEqual([batch[3]?.id]);
    expect(await used(userId)).toBe(2);
    expect(await rawItem(batch[3]?.id ?? '')).toBeUndefined();
  });

  it('parallel creates against a nearly spent allowance never exceed it', async () => {
    const userId = newId('usr');
    await write(userId, [post(userId), post(userId), post(userId)], 10);
    const results = await Promise.all(Array.from({ length: 8 }, () => write(userId, [post(userId), post(userId)], 10)));
    const written = results.reduce((sum, result) => sum + result.written.length, 0);
    expect(written).toBe(7);
    expect(await used(userId)).toBe(10);
    const listed = await posts.listPosts({ userId, status: null, limit: 100, startKey: null });
    expect(listed.posts).toHaveLength(10);
  });

  it('completes the idempotency record in the same transaction, only for the lock holder', async () => {
    const userId = newId('usr');
    const claim = await idempotency.claim(userId, 'key-1', 'hash-a', NOW);
    if (claim.outcome !== 'started') throw new Error('expected to claim');
    const first = post(userId);
    await posts.createPosts({
      userId,
      posts: [first],
      allowanceLimit: 5,
      idempotency: claim.lock,
      response: (ids) => ({ status: 202, body: { ids: [...ids] } }),
    });
    expect(await idempotency.claim(userId, 'key-1', 'hash-a', NOW)).toEqual({
      outcome: 'replay',
      response: { status: 202, body: { ids: [first.id] } },
    });
    // A request whose lock is not the record's writes nothing at all.
    const stranger = post(userId);
    await expect(
      posts.createPosts({
        userId,
        posts: [stranger],
        allowanceLimit: 5,
        idempotency: { ...claim.lock, lockToken: 'not-mine' },
        response: () => ({ status: 202, body: {} }),
      }),
    ).rejects.toMatchObject({ code: 'idempotency_lock_lost' });
    expect(await rawItem(stranger.id)).toBeUndefined();
    expect(await used(userId)).toBe(1);
  });
});

describe('idempotency claims', () => {
  it('in flight, body mismatch, release, and a crashed lock taken over after it expires', async () => {
    const userId = newId('usr');
    const first = await idempotency.claim(userId, 'k', 'h1', NOW);
    expect(first.outcome).toBe('started');
    expect(await idempotency.claim(userId, 'k', 'h1', NOW)).toEqual({ outcome: 'in_flight' });
    expect(await idempotency.claim(userId, 'k', 'h2', NOW)).toEqual({ outcome: 'body_mismatch' });
    if (first.outcome === 'started') await idempotency.release(first.lock);
    const again = await idempotency.claim(userId, 'k', 'h2', NOW);
    expect(again.outcome).toBe('started');
    // Still locked just before the create function's timeout (15 s), free once the lock (20 s) is past.
    expect((await idempotency.claim(userId, 'k', 'h2', new Date(NOW.getTime() + 15_000))).outcome).toBe('in_flight');
    expect((await idempotency.claim(userId, 'k', 'h2', new Date(NOW.getTime() + 21_000))).outcome).toBe('started');
    // The same key of another user is another record.
    expect((await idempotency.claim(newId('usr'), 'k', 'h1', NOW)).outcome).toBe('started');
  });

  it('exactly one of many parallel claims starts', async () => {
    const userId = newId('usr');
    const claims = await Promise.all(Array.from({ length: 10 }, () => idempotency.claim(userId, 'same', 'h', NOW)));
    expect(claims.filter((claim) => claim.outcome === 'started')).toHaveLength(1);
    expect(claims.filter((claim) => claim.outcome === 'in_flight')).toHaveLength(9);
  });
});

describe('list pages', () => {
  it('are full until the last, newest first, with no duplicate and no gap, also per status', async () => {
    const userId = newId('usr');
    const all = Array.from({ length: 23 }, (_, i) =>
      post(userId, { createdAt: new Date(NOW.getTime() + i * 1000).toISOString(), status: i % 3 === 0 ? 'draft' : 'scheduled' }),
    );
    for (let i = 0; i < all.length; i += 10) await write(userId, all.slice(i, i + 10), 100);
    const collect = async (status: Post['status'] | null) => {
      const ids: string[] = [];
      const sizes: number[] = [];
      let startKey = null;
      do {
        const page: Awaited<ReturnType<typeof posts.listPosts>> = await posts.listPosts({ userId, status, limit: 5, startKey });
        ids.push(...page.posts.map((p) => p.id));
        sizes.push(page.posts.length);
        startKey = page.nextKey;
      } while (startKey !== null);
      return { ids, sizes };
    };
    const everything = await collect(null);
    expect(everything.ids).toEqual([...all].reverse().map((p) => p.id));
    expect(everything.sizes).toEqual([5, 5, 5, 5, 3]);
    const drafts = await collect('draft');
    expect(drafts.ids).toEqual([...all].reverse().filter((p) => p.status === 'draft').map((p) => p.id));
    expect(drafts.sizes).toEqual([5, 3]);
    await expect(posts.listPosts({ userId, status: null, limit: 5, startKey: { id: 'x', listPk: 'someone-else', listSk: 'y' } })).rejects.toMatchObject({
      code: 'invalid_page_key',
    });
  });
});

describe('delete transitions and the worker', () => {
  it('cancelling a scheduled post removes it and gives its unit back; a claimed post is not removed', async () => {
    const userId = newId('usr');
    const [a, b] = [post(userId), post(userId)];
    await write(userId, [a!, b!], 10);
    expect(await used(userId)).toBe(2);
    expect(await posts.removePost(a!, CYCLE)).toBe(true);
    expect(await rawItem(a!.id)).toBeUndefined();
    expect(await used(userId)).toBe(1);
    // The worker claims b; a remove planned from the unclaimed state now fails its condition.
    await client.send(
      new UpdateCommand({
        TableName: sharedTables.posts,
        Key: { id: b!.id },
        UpdateExpression: 'SET inFlightSince = :now',
        ExpressionAttributeValues: { ':now': NOW.toISOString() },
      }),
    );
    expect(await posts.removePost(b!, CYCLE)).toBe(false);
    expect(await used(userId)).toBe(1);
    const claimed = await posts.getPost(b!.id);
    expect(claimed?.inFlightSince).toBe(NOW.toISOString());
    const hidden = await posts.softDeletePost(claimed!, { deleteFromPlatform: true, now: NOW });
    expect(hidden).toMatchObject({ deletedAt: NOW.toISOString(), deleteFromPlatformRequested: true });
    // The send succeeds afterwards: recorded, still hidden, and the worker learns deletion was asked.
    const published = await outcomes.recordPublished(claimed!, { publishedAt: NOW.toISOString(), publishedUrl: 'https://x.com/a/status/1', platformPostId: '1' }, NOW);
    expect(published).toMatchObject({ status: 'published', deletedAt: NOW.toISOString(), deleteFromPlatformRequested: true, platformPostId: '1' });
    const item = await rawItem(b!.id);
    expect(item).not.toHaveProperty('listPk');
    expect(item).not.toHaveProperty('statusPk');
    // Only the due index (never read by the API) keeps it: its live copy must still come down,
    // and the sweeper must find it if the worker dies before queuing that (lib/store/post-item.ts).
    expect(item).toMatchObject({ duePk: expect.any(String), dueSk: `${NOW.toISOString()}#${b!.id}` });
    const listed = await posts.listPosts({ userId, status: null, limit: 10, startKey: null });
    expect(listed.posts).toEqual([]);
    // Recording twice does nothing: the post is no longer scheduled.
    expect(await outcomes.recordFailed(claimed!, { message: 'm', advice: 'a' }, NOW)).toBeNull();
  });

  it('recordFailed on a live post moves its status index and leaves the due index', async () => {
    const userId = newId('usr');
    const p = post(userId);
    await write(userId, [p], 10);
    const failed = await outcomes.recordFailed(p, { message: 'refused', advice: 'shorten it' }, NOW);
    expect(failed).toMatchObject({ status: 'failed', error: { message: 'refused', advice: 'shorten it' } });
    const byStatus = await client.send(
      new QueryCommand({
        TableName: sharedTables.posts,
        IndexName: 'byUserStatus',
        KeyConditionExpression: 'statusPk = :pk',
        ExpressionAttributeValues: { ':pk': `${userId}#failed` },
      }),
    );
    expect(byStatus.Items?.map((item) => item.id)).toEqual([p.id]);
    expect(await rawItem(p.id)).not.toHaveProperty('duePk');
  });

  it('outcomes recorded at the same time are written together, and each is answered as if written alone', async () => {
    const userId = newId('usr');
    // A client of its own, counting what it sends.
    const counted = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    const sent: string[] = [];
    counted.middlewareStack.add((next, context) => (args) => {
      sent.push(String(context.commandName));
      return next(args);
    }, { step: 'initialize', name: 'countCommands' });
    const grouped = new DynamoDbPublishState({ client: counted, postsTable: sharedTables.posts ?? '' });
    const batch = Array.from({ length: 30 }, () => post(userId));
    await write(userId, batch, 100);
    const [deleted, settled, refused, ...rest] = batch;
    // Claimed and then deleted with deleteFromPlatform while it was sent; already recorded; refused.
    await client.send(new UpdateCommand({ TableName: sharedTables.posts, Key: { id: deleted!.id }, UpdateExpression: 'SET inFlightSince = :now', ExpressionAttributeValues: { ':now': NOW.toISOString() } }));
    const claimedDeleted = await posts.getPost(deleted!.id);
    await posts.softDeletePost(claimedDeleted!, { deleteFromPlatform: true, now: NOW });
    await outcomes.recordFailed(settled!, { message: 'refused', advice: 'a' }, NOW);
    sent.length = 0;

    const live = (index: number) => ({ publishedAt: NOW.toISOString(), publishedUrl: `https://x.com/a/status/${index}`, platformPostId: String(index) });
    const answers = await Promise.all([
      grouped.recordPublished(claimedDeleted!, live(0), NOW),
      grouped.recordPublished(settled!, live(1), NOW),
      grouped.recordFailed(refused!, { message: 'too long', advice: 'Shorten it.', retryable: false }, NOW),
      ...rest.map((one, index) => grouped.recordPublished(one, live(index + 3), NOW)),
    ]);
    // Together: the 30 asked in one turn are one transaction, cancelled by the two whose condition
    // failed, and the other 28 again in one; not 30 UpdateItems. Then the two refused go through
    // the other cases alone: the deleted post's (written), the settled one's (refused twice).
    expect(sent.filter((name) => name === 'TransactWriteItemsCommand')).toHaveLength(2);
    expect(sent.filter((name) => name === 'UpdateItemCommand')).toHaveLength(3);

    // Each answer is the post as it now is in the table (but for the claim's own bookkeeping,
    // inFlightSince, which is as the worker read it: never shown, and the worker does not read it).
    const shown = (one: Post | null | undefined) => (one ? { ...one, inFlightSince: null } : one);
    expect(answers[0]).toMatchObject({ status: 'published', deletedAt: NOW.toISOString(), deleteFromPlatformRequested: true, platformPostId: '0' });
    expect(answers[1]).toBeNull();
    expect(shown(answers[2])).toEqual(shown(await posts.getPost(refused!.id)));
    expect(answers[2]).toMatchObject({ status: 'failed', error: { message: 'too long', retryable: false } });
    for (const [index, one] of rest.entries()) {
      const stored = await posts.getPost(one.id);
      expect(shown(answers[index + 3])).toEqual(shown(stored));
      expect(stored).toMatchObject({ status: 'published', platformPostId: String(index + 3), updatedAt: NOW.toISOString() });
    }
    const item = await rawItem(rest[0]!.id);
    expect(item).not.toHaveProperty('duePk');
    expect(item).toMatchObject({ statusPk: `${userId}#published` });
  });

  it('markScheduleFailed fails the posts, gives their units back and updates the remembered response', async () => {
    const userId = newId('usr');
    const claim = await idempotency.claim(userId, 'k', 'h', NOW);
    if (claim.outcome !== 'started') throw new Error('expected to claim');
    const [a, b] = [post(userId), post(userId)];
    await posts.createPosts({ userId, posts: [a!, b!], allowanceLimit: 10, idempotency: claim.lock, response: () => ({ status: 202, body: 'v1' }) });
    const failed = await posts.markScheduleFailed({
      userId,
      posts: [b!],
      error: { message: 'not queued', advice: 'retry' },
      now: NOW,
      idempotency: claim.lock,
      response: { status: 202, body: 'v2' },
    });
    expect(failed.map((p) => p.status)).toEqual(['failed']);
    expect(await used(userId)).toBe(1);
    expect((await posts.getPost(b!.id))?.status).toBe('failed');
    expect(await idempotency.claim(userId, 'k', 'h', NOW)).toEqual({ outcome: 'replay', response: { status: 202, body: 'v2' } });
  });
});
