/**
 * The sweeper's use case against DynamoDB Local (the shared tables of the test global setup) and a
 * real fauxqs queue. Its clock is set in the year 2000, so the byDue Queries see only this file's
 * posts, never the other files' (which are due in the present).
 */
import { randomBytes } from 'node:crypto';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inject } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { deleteQueues, ensureQueues, sqsClientFor, type LocalQueues } from '../../local/messaging.js';
import { parsePublishMessage } from '../../lib/dispatch/messages.js';
import { SqsPublishQueue } from '../../lib/dispatch/publish-queue.js';
import { newId } from '../../lib/domain/ids.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { DUE_SHARDS } from '../../lib/store/tables.js';
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
  const sweep = new Sweep({ state, queue: new SqsPublishQueue(sqs, queues.publish.url), clock, shards: DUE_SHARDS });

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
  const sweep = new Sweep({ state, queue: new SqsPublishQueue(sqs, queues.publish.url), clock: { now: () => now }, shards: DUE_SHARDS });

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

it('a deleted post is swept back only while a create that may be live must still come down', async () => {
  const userId = newId('usr');
  const base = new Date(NOW.getTime() + 120_000);
  const [mustComeDown, leftAlone] = [0, 1].map(() =>
    postFixture({ id: newId('post'), userId, createdAt: base.toISOString(), scheduledFor: new Date(base.getTime() - 20_000).toISOString() }),
  );
  for (const post of [mustComeDown, leftAlone]) {
    if (!post) throw new Error('no post');
    await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
    expect((await state.claim(post.id, { token: 't', now: base, leaseUntil: new Date(base.getTime() + 1_000) })).claimed).toBe(true);
    expect(await state.markCreateSending(post.id, 't', base)).toBe(true);
    expect(await state.releaseForRetry(post.id, 't', { retryAt: base, uncertain: true })).toBe(true);
    const stored = await posts.getPost(post.id);
    if (!stored) throw new Error('no post');
    expect(await posts.softDeletePost(stored, { deleteFromPlatform: post === mustComeDown, now: base })).not.toBeNull();
  }
  const sweep = new Sweep({ state, queue: new SqsPublishQueue(sqs, queues.publish.url), clock: { now: () => new Date(base.getTime() + 30_000) }, shards: DUE_SHARDS });
  await sweep.execute({ lookAhead: false });
  expect(await messagesFor(mustComeDown?.id ?? '')).toBe(1);
  expect(await messagesFor(leftAlone?.id ?? '')).toBe(0);
});
