/**
 * The post lifecycle's one conditional write (lib/store/post-change-writes.ts) against DynamoDB
 * Local, each race at its exact interleaving: the change has read the post, then the other side
 * writes, then the change writes. The HTTP tests (test/http/post-lifecycle.test.ts) show the same
 * races through the API; here the moment between read and write is held open on purpose, so each
 * test fails when its condition is taken out of the write.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newId } from '../../lib/domain/ids.js';
import type { Post } from '../../lib/domain/model.js';
import { applyUpdate, sendAgain } from '../../lib/domain/post-changes.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { DynamoDbPostChanges } from '../../lib/store/post-change-writes.js';
import { PostCreateWrites } from '../../lib/store/post-create-writes.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const tables = { client, postsTable: sharedTables.posts, countersTable: sharedTables.counters, idempotencyTable: sharedTables.idempotency };
const posts = new DynamoDbPostStore(tables);
const changes = new DynamoDbPostChanges(tables);
const state = new DynamoDbPublishState(tables);
afterAll(() => raw.destroy());

const HOUR = 60 * 60 * 1000;

async function stored(changes: Partial<Post> = {}): Promise<Post> {
  const userId = newId('usr');
  const now = new Date();
  const post = postFixture({ id: newId('post'), userId, createdAt: now.toISOString(), scheduledFor: new Date(now.getTime() + HOUR).toISOString(), ...changes });
  await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
  return post;
}

function edit(post: Post, text: string): Post {
  return applyUpdate(post, { text, media: null, scheduledFor: null, queue: false, options: null }, { media: null, threadMedia: null }, new Date());
}

describe('PATCH against the worker\'s claim', () => {
  it('read before the claim, written after it: refused, and the claim has the text it sends', async () => {
    const post = await stored({ allowanceCycle: '2099-01' });
    const read = await changes.getPostForChange(post.id);
    if (!read) throw new Error('no post');
    expect(read.progress.attemptStarted).toBe(false);

    const now = new Date();
    const claim = await state.claim(post.id, { token: 'worker-1', now, leaseUntil: new Date(now.getTime() + 15_000), dueBy: new Date(now.getTime() + 2 * HOUR) });
    expect(claim.claimed).toBe(true);

    const result = await changes.changePost({ before: read, after: edit(read.post, 'new text'), spend: null, resetPublishState: false, idempotency: null });
    expect(result.outcome).toBe('conflict');
    expect((await posts.getPost(post.id))?.text).toBe('hello');
    if (claim.claimed) expect(claim.post.text).toBe('hello');
    expect((await changes.getPostForChange(post.id))?.progress.attemptStarted).toBe(true);
  });

  it('written before the claim: the claim returns the new text', async () => {
    const post = await stored();
    const read = await changes.getPostForChange(post.id);
    if (!read) throw new Error('no post');
    expect((await changes.changePost({ before: read, after: edit(read.post, 'new text'), spend: null, resetPublishState: false, idempotency: null })).outcome).toBe('applied');
    const now = new Date();
    const claim = await state.claim(post.id, { token: 'worker-1', now, leaseUntil: new Date(now.getTime() + 15_000), dueBy: new Date(now.getTime() + 2 * HOUR) });
    expect(claim.claimed && claim.post.text).toBe('new text');
  });

  it('two changes read at the same revision: the second is refused (nothing of it is written)', async () => {
    const post = await stored();
    const [first, second] = await Promise.all([changes.getPostForChange(post.id), changes.getPostForChange(post.id)]);
    if (!first || !second) throw new Error('no post');
    expect((await changes.changePost({ before: first, after: edit(first.post, 'first'), spend: null, resetPublishState: false, idempotency: null })).outcome).toBe('applied');
    expect((await changes.changePost({ before: second, after: edit(second.post, 'second'), spend: null, resetPublishState: false, idempotency: null })).outcome).toBe('conflict');
    expect((await posts.getPost(post.id))?.text).toBe('first');
    expect((await changes.getPostForChange(post.id))?.revision).toBe(1);
  });
});

describe('retry against retry', () => {
  it('both read the failed post; the first write wins, the second is refused', async () => {
    const post = await stored({ allowanceCycle: '2099-01' });
    const now = new Date();
    await state.claim(post.id, { token: 'worker-1', now, leaseUntil: new Date(now.getTime() + 15_000), dueBy: new Date(now.getTime() + 2 * HOUR) });
    expect(await state.recordFailed(post, { message: 'X was unavailable', advice: 'Try again later.', retryable: true }, now, 'worker-1')).not.toBeNull();

    const [first, second] = await Promise.all([changes.getPostForChange(post.id), changes.getPostForChange(post.id)]);
    if (!first || !second) throw new Error('no post');
    expect(first.post.error?.retryable).toBe(true);
    const retried = (read: typeof first) => changes.changePost({ before: read, after: sendAgain(read.post, new Date(Date.now() + HOUR), '2099-01', new Date()), spend: null, resetPublishState: true, idempotency: null });
    expect((await retried(first)).outcome).toBe('applied');
    expect((await retried(second)).outcome).toBe('conflict');

    // Afresh: scheduled, no error, none of the earlier attempt's bookkeeping (a new claim is attempt 1).
    const after = await state.getPostForPublishing(post.id);
    expect(after?.post).toMatchObject({ status: 'scheduled', error: null, allowanceCycle: '2099-01' });
    expect(after?.state).toMatchObject({ claimToken: null, attempts: 0, firstAttemptAt: null, platformCreateSentAt: null });
  });

  it('a failure that is not retryable is refused by the write itself', async () => {
    const post = await stored();
    const now = new Date();
    await state.claim(post.id, { token: 'worker-1', now, leaseUntil: new Date(now.getTime() + 15_000), dueBy: new Date(now.getTime() + 2 * HOUR) });
    await state.recordFailed(post, { message: 'Refused', advice: 'Change it.', retryable: false }, now, 'worker-1');
    const read = await changes.getPostForChange(post.id);
    if (!read) throw new Error('no post');
    const result = await changes.changePost({ before: read, after: sendAgain(read.post, new Date(Date.now() + HOUR), '2099-01', new Date()), spend: null, resetPublishState: true, idempotency: null });
    expect(result.outcome).toBe('conflict');
  });
});

describe('publish against delete', () => {
  it('the draft is deleted between the read and the write: nothing comes back, no unit is spent', async () => {
    const post = await stored({ status: 'draft', allowanceCycle: null });
    const read = await changes.getPostForChange(post.id);
    if (!read) throw new Error('no post');
    expect(await posts.removePost(read.post, null)).toBe(true);

    const cycle = '2098-07';
    const result = await changes.changePost({
      before: read,
      after: sendAgain(read.post, new Date(Date.now() + HOUR), cycle, new Date()),
      spend: { allowanceLimit: 10 },
      resetPublishState: false,
      idempotency: null,
    });
    expect(result.outcome).toBe('conflict');
    expect(await posts.getPost(post.id)).toBeNull();
    expect(await new PostCreateWrites(tables).allowanceUsed(post.userId, cycle)).toBe(0);
  });

  it('published with the last unit of the allowance: over_allowance, the draft stays a draft', async () => {
    const post = await stored({ status: 'draft', allowanceCycle: null });
    const read = await changes.getPostForChange(post.id);
    if (!read) throw new Error('no post');
    const result = await changes.changePost({ before: read, after: sendAgain(read.post, new Date(), '2098-08', new Date()), spend: { allowanceLimit: 0 }, resetPublishState: false, idempotency: null });
    expect(result.outcome).toBe('over_allowance');
    expect((await posts.getPost(post.id))?.status).toBe('draft');
  });
});
