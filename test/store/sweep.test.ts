/**
 * The sweeper's use case against DynamoDB Local (the shared tables of the test global setup) and a
 * real fauxqs queue. Its clock is set in the year 2000, so the byDue Queries see only this file's
 * posts, never the other files' (which are due in the present).
 */
import { randomBytes } from 'node:crypto';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { deleteQueues, ensureQueues, sqsClientFor, type LocalQueues } from '../../local/messaging.js';
import { parsePlatformDeletionMessage, parsePublishMessage } from '../../lib/dispatch/messages.js';
import { SqsPlatformDeletionQueue } from '../../lib/dispatch/platform-deletion-queue.js';
import { SqsPublishQueue } from '../../lib/dispatch/publish-queue.js';
import { newId } from '../../lib/domain/ids.js';
import type { Post } from '../../lib/domain/model.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { dueShard } from '../../lib/store/post-item.js';
import { DUE_SHARDS } from '../../lib/store/tables.js';
import type { Clock } from '../../lib/use-cases/ports/clock.js';
import { PublishOutcomes } from '../../lib/use-cases/publish-outcomes.js';
import { Sweep } from '../../lib/use-cases/sweep.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sqsEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const postsTable = sharedTables.posts ?? '';
const posts = new DynamoDbPostStore({ client, postsTable, countersTable: sharedTables.counters ?? '', idempotencyTable: sharedTables.idempotency ?? '' });
const state = new DynamoDbPublishState({ client, postsTable });
const NOW = new Date('2000-01-01T00:00:00.000Z');

let queues: LocalQueues;
let sqs: SQSClient;

beforeAll(async () => {
  queues = await ensureQueues(sqsEndpoint, { prefix: `sw${randomBytes(4).toString('hex')}-` });
  sqs = sqsClientFor(sqsEndpoint);
});

afterAll(async () => {
  raw.destroy();
  sqs.destroy();
  await deleteQueues(sqsEndpoint, queues);
});

function sweeper(clock: Clock): Sweep {
  return new Sweep({
    state,
    queue: new SqsPublishQueue(sqs, queues.publish.url),
    deletionQueue: new SqsPlatformDeletionQueue(sqs, queues.deletion.url),
    clock,
    shards: DUE_SHARDS,
  });
}

/** A post id whose byDue entry falls in `shard`. */
function idInShard(shard: number): string {
  for (;;) {
    const id = newId('post');
    if (dueShard(id) === shard) return id;
  }
}

/** A sweeper of the first `shards` shards only, that reads three entries of each a run: its window, made small. */
function narrowSweeper(clock: Clock, shards = 1): Sweep {
  return new Sweep({
    state,
    queue: new SqsPublishQueue(sqs, queues.publish.url),
    deletionQueue: new SqsPlatformDeletionQueue(sqs, queues.deletion.url),
    clock,
    shards,
    limitPerShard: 3,
  });
}

/** Deletion messages for the post (or posts) that arrived since the last call (each one read is removed). */
async function takeDeletionMessages(postId: string | string[]): Promise<number> {
  const ids = new Set([postId].flat());
  let count = 0;
  for (;;) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.deletion.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    const messages = out.Messages ?? [];
    if (messages.length === 0) return count;
    count += messages.filter((message) => ids.has(parsePlatformDeletionMessage(message.Body ?? '')?.postId ?? '')).length;
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queues.deletion.url,
        Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle ?? '' })),
      }),
    );
  }
}

/** Deletion messages for the post that a sweep at `clock`'s time queued. */
async function deletionsQueuedBy(clock: Clock, postId: string, lookAhead: boolean): Promise<number> {
  await sweeper(clock).execute({ lookAhead });
  return takeDeletionMessages(postId);
}

async function rawItem(id: string): Promise<Record<string, unknown> | undefined> {
  return (await client.send(new GetCommand({ TableName: postsTable, Key: { id }, ConsistentRead: true }))).Item;
}

async function messagesFor(postId: string): Promise<number> {
  const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.publish.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 0 }));
  return (out.Messages ?? []).filter((message) => parsePublishMessage(message.Body ?? '')?.postId === postId).length;
}

it('a look-ahead run puts back a post even when a run just before had swept it (its message may be gone)', async () => {
  const userId = newId('usr');
  const post = postFixture({ id: newId('post'), userId, createdAt: NOW.toISOString(), scheduledFor: new Date(NOW.getTime() - 2_000).toISOString() });
  await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
  // Each run a second after the one before, as the sweeper's timer would have it.
  let runs = 0;
  const clock = { now: () => new Date(NOW.getTime() + 1_000 * runs++) };
  const sweep = sweeper(clock);

  // First run of a process: the post is just due, within the grace period, and its message may be lost.
  expect(await sweep.execute({ lookAhead: true })).toMatchObject({ resent: 1 });
  // A routine run right after leaves it alone: it was just put back.
  expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: 0 });
  // The queue was created anew (a restart emptied it): the message sent a moment ago is gone too.
  expect(await sweep.execute({ lookAhead: true })).toMatchObject({ resent: 1 });
  expect(await messagesFor(post.id)).toBe(2);
});

it('a worker that died mid-send (its short lease ran out) is replaced at the next routine run, even when the post was swept just before', async () => {
  const userId = newId('usr');
  const base = new Date(NOW.getTime() + 60_000);
  const post = postFixture({ id: newId('post'), userId, createdAt: base.toISOString(), scheduledFor: new Date(base.getTime() - 20_000).toISOString() });
  await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
  let now = base;
  const sweep = sweeper({ now: () => now });

  // Late, so put back; a worker claims it (a 2 s lease), marks its create as sent, and dies.
  expect(await sweep.execute({ lookAhead: false })).toMatchObject({ resent: expect.any(Number) });
  expect(await messagesFor(post.id)).toBe(1);
  now = new Date(base.getTime() + 1_000);
  expect((await state.claim(post.id, { token: 'dies', now, leaseUntil: new Date(now.getTime() + 2_000) })).claimed).toBe(true);
  expect(await state.markCreateSending(post.id, 'dies', now)).toBe(true);
  // While the lease holds, nothing is put back.
  now = new Date(base.getTime() + 2_000);
  await sweep.execute({ lookAhead: false });
  expect(await messagesFor(post.id)).toBe(1);
  // Once it ran out, the next routine run puts the post back, well within the resend interval.
  now = new Date(base.getTime() + 4_000);
  await sweep.execute({ lookAhead: false });
  expect(await messagesFor(post.id)).toBe(2);
});

it('a deleted post is swept back only while a create that may be live must still be settled (taken down, or its unit given back)', async () => {
  const userId = newId('usr');
  const base = new Date(NOW.getTime() + 120_000);
  const [mustComeDown, mayBeRefunded, leftAlone] = [0, 1, 2].map(() =>
    postFixture({ id: newId('post'), userId, createdAt: base.toISOString(), scheduledFor: new Date(base.getTime() - 20_000).toISOString() }),
  );
  for (const post of [mustComeDown, mayBeRefunded, leftAlone]) {
    if (!post) throw new Error('no post');
    await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
    expect((await state.claim(post.id, { token: 't', now: base, leaseUntil: new Date(base.getTime() + 1_000) })).claimed).toBe(true);
    if (post === leftAlone) {
      // Its create never went: released as certain, then deleted (as a store write; DELETE would remove it).
      expect(await state.releaseForRetry(post.id, 't', { retryAt: base, uncertain: false, failed: true })).toBe(true);
      await client.send(new UpdateCommand({ TableName: postsTable, Key: { id: post.id }, UpdateExpression: 'SET deletedAt = :now', ExpressionAttributeValues: { ':now': base.toISOString() } }));
      continue;
    }
    expect(await state.markCreateSending(post.id, 't', base)).toBe(true);
    expect(await state.releaseForRetry(post.id, 't', { retryAt: base, uncertain: true, failed: true })).toBe(true);
    const stored = await posts.getPost(post.id);
    if (!stored) throw new Error('no post');
    expect(await posts.softDeletePost(stored, { deleteFromPlatform: post === mustComeDown, now: base })).not.toBeNull();
  }
  const sweep = sweeper({ now: () => new Date(base.getTime() + 30_000) });
  await sweep.execute({ lookAhead: false });
  expect(await messagesFor(mustComeDown?.id ?? '')).toBe(1);
  expect(await messagesFor(mayBeRefunded?.id ?? '')).toBe(1);
  expect(await messagesFor(leftAlone?.id ?? '')).toBe(0);
});

/** A post created, claimed and published on X at `at` (platform id 99). */
async function publishedPost(at: Date, id = newId('post')): Promise<Post> {
  const userId = newId('usr');
  const post = postFixture({ id, userId, createdAt: at.toISOString(), scheduledFor: at.toISOString() });
  await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
  expect((await state.claim(post.id, { token: 'w', now: at, leaseUntil: new Date(at.getTime() + 2_000) })).claimed).toBe(true);
  const live = await state.recordPublished(post, { publishedAt: at.toISOString(), publishedUrl: 'https://x.com/i/status/99', platformPostId: '99' }, at);
  if (!live) throw new Error('not published');
  return live;
}

it('posts waiting to be tried again do not fill the window a run reads: a lost post behind them is still put back', async () => {
  // The oldest entries of shard 1 (the year before every other post of this file; the deletions'
  // window test below uses shard 0): three posts released for a retry five minutes on, then a post
  // whose message was lost. A run reads three a shard.
  const base = new Date(NOW.getTime() - 2 * 365 * 24 * 3_600_000);
  const userId = newId('usr');
  const retrying = [];
  for (let index = 0; index < 3; index++) {
    const post = postFixture({ id: idInShard(1), userId, createdAt: base.toISOString(), scheduledFor: base.toISOString() });
    await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
    expect((await state.claim(post.id, { token: 'w', now: base, leaseUntil: new Date(base.getTime() + 2_000) })).claimed).toBe(true);
    expect(await state.releaseForRetry(post.id, 'w', { retryAt: new Date(base.getTime() + 300_000), uncertain: false, failed: true })).toBe(true);
    retrying.push(post);
  }
  const lost = postFixture({ id: idInShard(1), userId, createdAt: base.toISOString(), scheduledFor: new Date(base.getTime() + 60_000).toISOString() });
  await posts.createPosts({ userId, posts: [lost], allowanceLimit: 100, idempotency: null, response: () => null });
  const run = await narrowSweeper({ now: () => new Date(base.getTime() + 120_000) }, 2).execute({ lookAhead: false });
  expect(run).toMatchObject({ examined: 1, resent: 1 });
  expect(await rawItem(lost.id)).toMatchObject({ sweptAt: new Date(base.getTime() + 120_000).toISOString() });
  // Their retry time passed and its message lost too: then they are the late ones.
  const later = await narrowSweeper({ now: () => new Date(base.getTime() + 320_000) }, 2).execute({ lookAhead: false });
  expect(later).toMatchObject({ examined: 3, resent: 3 });
  for (const post of [...retrying, lost]) await client.send(new DeleteCommand({ TableName: postsTable, Key: { id: post.id } }));
});

describe('the outbox of platform deletions: a live post deleted with deleteFromPlatform=true is never forgotten', () => {
  it('deleted while it was sent, published, and the deletion message never queued: the sweeper queues it until the deletion is done', async () => {
    const userId = newId('usr');
    const base = new Date(NOW.getTime() + 180_000);
    const post = postFixture({ id: newId('post'), userId, createdAt: base.toISOString(), scheduledFor: base.toISOString() });
    await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
    expect((await state.claim(post.id, { token: 'w', now: base, leaseUntil: new Date(base.getTime() + 2_000) })).claimed).toBe(true);
    expect(await state.markCreateSending(post.id, 'w', base)).toBe(true);
    const sending = await posts.getPost(post.id);
    if (!sending) throw new Error('no post');
    // DELETE ?deleteFromPlatform=true while it is being sent: hidden, left to the worker.
    expect(await posts.softDeletePost(sending, { deleteFromPlatform: true, now: base })).not.toBeNull();
    // The worker's create went out; its deletion message cannot be queued (the queue is not
    // there: the same as a crash right after the published write).
    const logged: string[] = [];
    let now = new Date(base.getTime() + 1_000);
    const outcomes = new PublishOutcomes({
      state,
      queue: new SqsPublishQueue(sqs, queues.publish.url),
      deletionQueue: new SqsPlatformDeletionQueue(sqs, `${queues.deletion.url}-gone`),
      clock: { now: () => now },
      metrics: { published: () => undefined, failed: () => undefined, retried: () => undefined },
      log: { warn: (message) => logged.push(message), error: (message) => logged.push(message) },
      sleep: async () => undefined,
    });
    const published = await outcomes.published(sending, { platformPostId: '1234', publishedUrl: 'https://x.com/i/status/1234' });
    expect(published).toMatchObject({ outcome: 'published', post: { deletedAt: base.toISOString(), deleteFromPlatformRequested: true } });
    expect(logged).toEqual(['Could not queue the deletion of a post deleted while it was sent; the sweeper will']);
    expect(await takeDeletionMessages(post.id)).toBe(0);

    // Within the grace period after the publish, the message may still be on its way: nothing.
    now = new Date(base.getTime() + 5_000);
    expect(await deletionsQueuedBy({ now: () => now }, post.id, false)).toBe(0);
    // Past it: queued again, once per resend interval.
    now = new Date(base.getTime() + 20_000);
    expect(await deletionsQueuedBy({ now: () => now }, post.id, false)).toBe(1);
    now = new Date(base.getTime() + 21_000);
    expect(await deletionsQueuedBy({ now: () => now }, post.id, false)).toBe(0);
    // A restart (look-ahead run) may have lost that one too: queued again at once.
    now = new Date(base.getTime() + 22_000);
    expect(await deletionsQueuedBy({ now: () => now }, post.id, true)).toBe(1);
    // Done: the post leaves the due index with the same write, and is never queued again.
    await state.markPlatformDeleted(post.id, now);
    expect(await rawItem(post.id)).not.toHaveProperty('duePk');
    now = new Date(base.getTime() + 200_000);
    expect(await deletionsQueuedBy({ now: () => now }, post.id, true)).toBe(0);
  });

  it('deleted after it was published, and the deletion message lost: queued after the grace period; refused for good, it is not asked again', async () => {
    const base = new Date(NOW.getTime() + 600_000);
    const post = await publishedPost(base);
    expect(await rawItem(post.id)).not.toHaveProperty('duePk');
    // DELETE ?deleteFromPlatform=true a minute later; its own message is then lost.
    const deletedAt = new Date(base.getTime() + 60_000);
    expect(await posts.softDeletePost(post, { deleteFromPlatform: true, now: deletedAt })).not.toBeNull();
    expect(await rawItem(post.id)).toMatchObject({ dueSk: `${deletedAt.toISOString()}#${post.id}` });
    // The grace period runs from the delete, not from the (long past) publish.
    expect(await deletionsQueuedBy({ now: () => new Date(deletedAt.getTime() + 5_000) }, post.id, false)).toBe(0);
    expect(await deletionsQueuedBy({ now: () => new Date(deletedAt.getTime() + 15_000) }, post.id, false)).toBe(1);
    // The platform refuses it for good (the account is gone): it leaves the due index.
    await state.abandonPlatformDeletion(post.id, { now: deletedAt, reason: 'the account is gone' });
    expect(await rawItem(post.id)).not.toHaveProperty('duePk');
    expect(await deletionsQueuedBy({ now: () => new Date(deletedAt.getTime() + 300_000) }, post.id, true)).toBe(0);
  });

  it('a deletion the platform keeps failing is queued again less and less often: every minute at first, every 13 minutes or so two hours on', async () => {
    const base = new Date(NOW.getTime() + 900_000);
    const post = await publishedPost(base);
    expect(await posts.softDeletePost(post, { deleteFromPlatform: true, now: base })).not.toBeNull();
    const at = (ms: number) => ({ now: () => new Date(base.getTime() + ms) });
    // The first minutes: once a minute.
    expect(await deletionsQueuedBy(at(20_000), post.id, false)).toBe(1);
    expect(await deletionsQueuedBy(at(70_000), post.id, false)).toBe(0);
    // Its entry waits at the next resend time (20 s + 60 s), then the grace period like any other.
    expect(await deletionsQueuedBy(at(91_000), post.id, false)).toBe(1);
    // Two hours on (every message failed meanwhile): a minute or ten since the last is not enough.
    const twoHours = 2 * 3_600_000;
    expect(await deletionsQueuedBy(at(twoHours), post.id, false)).toBe(1);
    await sweeper(at(twoHours + 61_000)).execute({ lookAhead: false });
    expect(await deletionsQueuedBy(at(twoHours + 10 * 60_000), post.id, false)).toBe(0);
    // Pending 2 h 14 min: a tenth of that, 13.4 min, has passed since the last.
    expect(await deletionsQueuedBy(at(twoHours + 14 * 60_000), post.id, false)).toBe(1);
    // A restart may have lost the message: a look-ahead run queues it at once, whatever the interval.
    expect(await deletionsQueuedBy(at(twoHours + 15 * 60_000), post.id, true)).toBe(1);
    await state.markPlatformDeleted(post.id, new Date(base.getTime() + twoHours + 16 * 60_000));
  });

  it('deletions waiting for their next resend do not fill the window a run reads: a lost post behind them is still put back', async () => {
    // The oldest entries of one shard (the year before every other post of this file): three
    // pending deletions, then a scheduled post whose message was lost. A run reads three a shard.
    const base = new Date(NOW.getTime() - 365 * 24 * 3_600_000);
    const deletions = [];
    for (let index = 0; index < 3; index++) {
      const post = await publishedPost(base, idInShard(0));
      expect(await posts.softDeletePost(post, { deleteFromPlatform: true, now: base })).not.toBeNull();
      deletions.push(post.id);
    }
    const lostAt = new Date(base.getTime() + 60_000);
    const lost = postFixture({ id: idInShard(0), userId: newId('usr'), createdAt: base.toISOString(), scheduledFor: lostAt.toISOString() });
    await posts.createPosts({ userId: lost.userId, posts: [lost], allowanceLimit: 100, idempotency: null, response: () => null });
    const narrow = (ms: number) => narrowSweeper({ now: () => new Date(base.getTime() + ms) });
    // The first run reads the three deletions (their messages count as lost) and queues them again.
    expect(await narrow(120_000).execute({ lookAhead: false })).toMatchObject({ examined: 3, deletionsResent: 3, resent: 0 });
    expect(await takeDeletionMessages(deletions)).toBe(3);
    // The next reads past them (each waits for its resend a minute on) and puts the lost post back.
    expect(await narrow(121_000).execute({ lookAhead: false })).toMatchObject({ examined: 1, deletionsResent: 0, resent: 1 });
    expect(await rawItem(lost.id)).toMatchObject({ sweptAt: new Date(base.getTime() + 121_000).toISOString() });
    for (const id of deletions) await state.markPlatformDeleted(id, new Date(base.getTime() + 122_000));
    await posts.removePost(lost, null);
  });

  it('a published post deleted without deleteFromPlatform, or restored after a failed DELETE, has no due entry', async () => {
    const userId = newId('usr');
    const base = new Date(NOW.getTime() + 900_000);
    const [kept, restored] = [0, 1].map(() => postFixture({ id: newId('post'), userId, createdAt: base.toISOString(), scheduledFor: base.toISOString() }));
    for (const post of [kept, restored]) {
      if (!post) throw new Error('no post');
      await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
      expect((await state.claim(post.id, { token: 'w', now: base, leaseUntil: new Date(base.getTime() + 2_000) })).claimed).toBe(true);
      const live = await state.recordPublished(post, { publishedAt: base.toISOString(), publishedUrl: 'https://x.com/i/status/7', platformPostId: '7' }, base);
      if (!live) throw new Error('not published');
      expect(await posts.softDeletePost(live, { deleteFromPlatform: post === restored, now: base })).not.toBeNull();
      if (post === restored) await posts.restoreSoftDeleted(live);
      expect(await rawItem(post.id)).not.toHaveProperty('duePk');
      expect(await rawItem(post.id)).not.toHaveProperty('dueSk');
    }
  });
});
