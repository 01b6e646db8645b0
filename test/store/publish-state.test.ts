/**
 * The publish worker's claim against DynamoDB Local (the shared, unprefixed tables of the test
 * global setup): one conditional write with no read before it. It claims a due post exactly once
 * among racing workers, and when it does not claim, it hands back the post as it was, so the
 * worker can tell why without another read. End to end (through the queue and the sandbox
 * platforms) in test/http/publishing.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import type { Post } from '../../lib/domain/model.js';
import { newId } from '../../lib/domain/ids.js';
import type { ClaimResult } from '../../lib/domain/publish-state.js';
import { allowanceCounterKey, DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { futureInstant } from '../support/clock.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const postsTable = sharedTables.posts ?? '';
const posts = new DynamoDbPostStore({ client, postsTable, countersTable: sharedTables.counters ?? '', idempotencyTable: sharedTables.idempotency ?? '' });
const state = new DynamoDbPublishState({ client, postsTable, countersTable: sharedTables.counters ?? '' });

afterAll(() => raw.destroy());

// In the future of the real date, as every fixed `now` of a store test is (test/support/clock.ts).
const DUE = futureInstant();
const LEASE_MS = 90_000;

async function stored(changes: Partial<Post> = {}): Promise<Post> {
  const userId = newId('usr');
  const post = postFixture({ id: newId('post'), userId, createdAt: new Date(DUE.getTime() - 60_000).toISOString(), scheduledFor: DUE.toISOString(), ...changes });
  await posts.createPosts({ userId, posts: [post], allowanceLimit: 100, idempotency: null, response: () => null });
  return post;
}

function claimAt(postId: string, now: Date, token: string = randomUUID(), dueBy?: Date): Promise<ClaimResult> {
  return state.claim(postId, { token, now, leaseUntil: new Date(now.getTime() + LEASE_MS), ...(dueBy ? { dueBy } : {}) });
}

async function rawItem(id: string): Promise<Record<string, unknown> | undefined> {
  return (await client.send(new GetCommand({ TableName: postsTable, Key: { id }, ConsistentRead: true }))).Item;
}

async function allowanceUsed(userId: string, cycle: string): Promise<number> {
  const item = (await client.send(new GetCommand({ TableName: sharedTables.counters ?? '', Key: allowanceCounterKey(userId, cycle), ConsistentRead: true }))).Item;
  return Number(item?.used ?? 0);
}

function notClaimed(result: ClaimResult) {
  if (result.claimed) throw new Error('the post was claimed');
  return result.current;
}

describe('claim', () => {
  it('claims a due post and returns it with the first attempt', async () => {
    const post = await stored();
    const now = new Date(DUE.getTime() + 10);
    const result = await claimAt(post.id, now, 'token-a');
    if (!result.claimed) throw new Error('not claimed');
    // A claim is bookkeeping only: the post is not in flight until the "sent" marker.
    expect(result.post).toEqual({ ...post, inFlightSince: null });
    expect(result.claim).toEqual({
      token: 'token-a',
      attempt: 1,
      firstAttemptAt: now.toISOString(),
      failures: 0,
      sendAt: DUE.toISOString(),
      uncertain: false,
      platformCreateSentAt: null,
      sentMediaIds: [],
    });
    expect(await rawItem(post.id)).toMatchObject({ claimToken: 'token-a', claimUntil: new Date(now.getTime() + LEASE_MS).toISOString(), publishAttempts: 1 });
  });

  it('exactly one of many racing claims wins; the others see who holds the post', async () => {
    const post = await stored();
    const now = new Date(DUE.getTime() + 1);
    const results = await Promise.all(Array.from({ length: 12 }, (_, index) => claimAt(post.id, now, `token-${index}`)));
    const winners = results.filter((result) => result.claimed);
    expect(winners).toHaveLength(1);
    const holder = (await rawItem(post.id))?.claimToken;
    for (const result of results.filter((entry) => !entry.claimed)) {
      expect(notClaimed(result)?.state).toMatchObject({ claimToken: holder, claimUntil: new Date(now.getTime() + LEASE_MS).toISOString() });
    }
    expect((await rawItem(post.id))?.publishAttempts).toBe(1);
  });

  it('does not claim a post before its time, and changes nothing', async () => {
    const post = await stored();
    const before = await rawItem(post.id);
    const current = notClaimed(await claimAt(post.id, new Date(DUE.getTime() - 1)));
    expect(current?.post).toEqual({ ...post, inFlightSince: null });
    expect(await rawItem(post.id)).toEqual(before);
    expect((await claimAt(post.id, DUE)).claimed).toBe(true);
  });

  it('waits for a pending retry time, then claims the next attempt and clears it', async () => {
    const post = await stored();
    const first = await claimAt(post.id, DUE, 'token-1');
    if (!first.claimed) throw new Error('not claimed');
    const retryAt = new Date(DUE.getTime() + 5_000);
    expect(await state.releaseForRetry(post.id, 'token-1', { retryAt, uncertain: false, failed: true })).toBe(true);
    const current = notClaimed(await claimAt(post.id, new Date(retryAt.getTime() - 1)));
    expect(current?.state).toMatchObject({ retryAt: retryAt.toISOString(), claimToken: null, attempts: 1 });
    const second = await claimAt(post.id, retryAt, 'token-2');
    if (!second.claimed) throw new Error('not claimed');
    expect(second.claim).toMatchObject({ token: 'token-2', attempt: 2, firstAttemptAt: DUE.toISOString(), uncertain: false, platformCreateSentAt: null });
    expect(await rawItem(post.id)).not.toHaveProperty('retryAt');
  });

  it('takes over an expired lease; a create sent by the earlier holder makes the claim uncertain', async () => {
    const post = await stored();
    const first = await claimAt(post.id, DUE, 'token-1');
    if (!first.claimed) throw new Error('not claimed');
    expect(await state.markCreateSending(post.id, 'token-1', DUE)).toBe(true);
    const stillHeld = new Date(DUE.getTime() + LEASE_MS);
    expect(notClaimed(await claimAt(post.id, stillHeld))?.state.claimToken).toBe('token-1');
    const second = await claimAt(post.id, new Date(stillHeld.getTime() + 1), 'token-2');
    if (!second.claimed) throw new Error('not claimed');
    expect(second.claim).toMatchObject({ attempt: 2, uncertain: true });
  });

  it('never claims a deleted post, a draft or a post with an outcome, and says which', async () => {
    const deleted = await stored();
    await client.send(
      new UpdateCommand({ TableName: postsTable, Key: { id: deleted.id }, UpdateExpression: 'SET deletedAt = :now', ExpressionAttributeValues: { ':now': DUE.toISOString() } }),
    );
    expect(notClaimed(await claimAt(deleted.id, DUE))?.post.deletedAt).toBe(DUE.toISOString());

    const draft = await stored({ status: 'draft' });
    expect(notClaimed(await claimAt(draft.id, DUE))?.post.status).toBe('draft');

    const published = await stored();
    await state.recordPublished(published, { publishedAt: DUE.toISOString(), publishedUrl: 'https://x.com/a/status/1', platformPostId: '1' }, DUE);
    expect(notClaimed(await claimAt(published.id, DUE))?.post.status).toBe('published');
    expect(await rawItem(published.id)).not.toHaveProperty('claimToken');
  });

  it('a post that does not exist: nothing claimed, and no item is created', async () => {
    const id = newId('post');
    expect(notClaimed(await claimAt(id, DUE))).toBeNull();
    expect(await rawItem(id)).toBeUndefined();
  });
});

describe('writes after the claim are the holder\'s alone (issue 10, item 8)', () => {
  const refusal = { message: 'The platform refused the post.', advice: 'Shorten the text.' };

  it('a worker whose lease ran out may not send; once another took over, it may not record a failure, a retry or a renewal', async () => {
    const post = await stored();
    if (!(await claimAt(post.id, DUE, 'token-1')).claimed) throw new Error('not claimed');
    const late = new Date(DUE.getTime() + LEASE_MS + 1);
    // Nobody took the post yet, but the lease is over: the create must not go out.
    expect(await state.markCreateSending(post.id, 'token-1', late)).toBe(false);
    expect((await claimAt(post.id, late, 'token-2')).claimed).toBe(true);

    expect(await state.recordFailed(post, refusal, late, 'token-1')).toBeNull();
    expect(await state.releaseForRetry(post.id, 'token-1', { retryAt: late, uncertain: false, failed: true })).toBe(false);
    expect(await state.renewLease(post.id, 'token-1', new Date(late.getTime() + LEASE_MS))).toBe(false);
    expect(await rawItem(post.id)).toMatchObject({ status: 'scheduled', claimToken: 'token-2' });

    // The holder's own writes go through.
    const renewedUntil = new Date(late.getTime() + 2 * LEASE_MS);
    expect(await state.renewLease(post.id, 'token-2', renewedUntil)).toBe(true);
    expect(notClaimed(await claimAt(post.id, new Date(late.getTime() + LEASE_MS + 1)))?.state.claimUntil).toBe(renewedUntil.toISOString());
    expect(await state.markCreateSending(post.id, 'token-2', late, ['111', '222'])).toBe(true);
    expect(await rawItem(post.id)).toMatchObject({ platformCreateMediaIds: ['111', '222'] });
    expect(await state.recordFailed(post, refusal, late, 'token-2')).toMatchObject({ status: 'failed' });
  });
});

describe('prepared before the due second (issue 13)', () => {
  it('claims up to dueBy ahead of the due time and says when to send; never earlier than dueBy allows', async () => {
    const post = await stored();
    const early = new Date(DUE.getTime() - 2_500);
    expect(notClaimed(await claimAt(post.id, early, 'too-early', new Date(DUE.getTime() - 1)))?.post.id).toBe(post.id);
    const result = await claimAt(post.id, early, 'token-early', new Date(early.getTime() + 3_000));
    if (!result.claimed) throw new Error('not claimed');
    expect(result.claim).toMatchObject({ attempt: 1, sendAt: DUE.toISOString(), firstAttemptAt: early.toISOString() });
    // Prepared, not in flight: the "sent" marker comes at the due time.
    expect((await posts.getPost(post.id))?.inFlightSince).toBeNull();
    expect(await state.markCreateSending(post.id, 'token-early', DUE)).toBe(true);
    expect(await rawItem(post.id)).toMatchObject({ platformCreateSentAt: DUE.toISOString(), inFlightSince: DUE.toISOString() });
  });

  it('a retry is claimed early too, and sent at its retry time', async () => {
    const post = await stored();
    if (!(await claimAt(post.id, DUE, 'token-1')).claimed) throw new Error('not claimed');
    const retryAt = new Date(DUE.getTime() + 10_000);
    expect(await state.releaseForRetry(post.id, 'token-1', { retryAt, uncertain: false, failed: true })).toBe(true);
    const early = new Date(retryAt.getTime() - 2_000);
    expect(notClaimed(await claimAt(post.id, early, 'token-2'))?.state.retryAt).toBe(retryAt.toISOString());
    const second = await claimAt(post.id, early, 'token-2', new Date(early.getTime() + 3_000));
    if (!second.claimed) throw new Error('not claimed');
    expect(second.claim).toMatchObject({ attempt: 2, failures: 1, sendAt: retryAt.toISOString(), firstAttemptAt: DUE.toISOString() });
  });

  it('counts failures apart from attempts: an attempt a crash cut short, or a wait to look a create up, is not a failure (the backoff grows with failures)', async () => {
    const post = await stored();
    // A claim whose worker died: its lease runs out, and the next claim is attempt 2 with no failure.
    if (!(await state.claim(post.id, { token: 'dies', now: DUE, leaseUntil: new Date(DUE.getTime() + 1_000) })).claimed) throw new Error('not claimed');
    const later = new Date(DUE.getTime() + 2_000);
    const second = await claimAt(post.id, later, 'token-2');
    if (!second.claimed) throw new Error('not claimed');
    expect(second.claim).toMatchObject({ attempt: 2, failures: 0 });
    expect(await state.releaseForRetry(post.id, 'token-2', { retryAt: later, uncertain: true, failed: false })).toBe(true);
    const third = await claimAt(post.id, later, 'token-3');
    if (!third.claimed) throw new Error('not claimed');
    expect(third.claim).toMatchObject({ attempt: 3, failures: 0 });
    expect(await state.releaseForRetry(post.id, 'token-3', { retryAt: later, uncertain: true, failed: true })).toBe(true);
    const fourth = await claimAt(post.id, later, 'token-4');
    expect(fourth.claimed && fourth.claim).toMatchObject({ attempt: 4, failures: 1 });
  });

  it('a post cancelled after the early claim and before the marker is removed with its unit back, and the marker then refuses to send', async () => {
    const post = await stored();
    const early = new Date(DUE.getTime() - 2_000);
    if (!(await claimAt(post.id, early, 'token-1', new Date(early.getTime() + 3_000))).claimed) throw new Error('not claimed');
    const claimed = (await posts.getPost(post.id)) as Post;
    expect(claimed.inFlightSince).toBeNull();
    expect(await posts.removePost(claimed, claimed.allowanceCycle)).toBe(true);
    expect(await state.markCreateSending(post.id, 'token-1', DUE)).toBe(false);
    expect(await rawItem(post.id)).toBeUndefined();
  });
});

describe('"sent" markers asked together are written together (coalesced-updates.ts)', () => {
  function commandsSent() {
    const send = vi.spyOn(client, 'send');
    return {
      names: () => send.mock.calls.map(([command]) => command.constructor.name),
      restore: () => send.mockRestore(),
    };
  }

  it('markers asked in the same turn go in one transaction, each with its own answer', async () => {
    const stored12 = await Promise.all(Array.from({ length: 12 }, () => stored()));
    for (const post of stored12) if (!(await claimAt(post.id, DUE, `token-${post.id}`)).claimed) throw new Error('not claimed');
    const sent = commandsSent();
    try {
      const answers = await Promise.all(stored12.map((post) => state.markCreateSending(post.id, `token-${post.id}`, DUE, post === stored12[0] ? ['m1'] : [])));
      expect(answers).toEqual(stored12.map(() => true));
      expect(sent.names()).toEqual(['TransactWriteCommand']);
    } finally {
      sent.restore();
    }
    for (const post of stored12) expect(await rawItem(post.id)).toMatchObject({ platformCreateSentAt: DUE.toISOString(), inFlightSince: DUE.toISOString() });
    expect((await rawItem(stored12[0]?.id ?? ''))?.platformCreateMediaIds).toEqual(['m1']);
  });

  it('a marker whose condition fails is answered false; the others of its transaction are still written', async () => {
    const [kept, cancelled, lost] = [await stored(), await stored(), await stored()];
    for (const post of [kept, cancelled, lost]) if (!(await claimAt(post.id, DUE, 'token-1')).claimed) throw new Error('not claimed');
    // Cancelled meanwhile (removed, its unit back); another worker took the third over.
    expect(await posts.removePost((await posts.getPost(cancelled.id)) as Post, null)).toBe(true);
    await client.send(new UpdateCommand({ TableName: postsTable, Key: { id: lost.id }, UpdateExpression: 'SET claimToken = :other', ExpressionAttributeValues: { ':other': 'token-2' } }));
    const answers = await Promise.all([kept, cancelled, lost].map((post) => state.markCreateSending(post.id, 'token-1', DUE)));
    expect(answers).toEqual([true, false, false]);
    expect(await rawItem(kept.id)).toMatchObject({ platformCreateSentAt: DUE.toISOString() });
    expect(await rawItem(cancelled.id)).toBeUndefined();
    expect((await rawItem(lost.id))?.platformCreateSentAt).toBeUndefined();
  });

  it('a marker asked alone is one UpdateItem (a transaction would cost two write units)', async () => {
    const post = await stored();
    if (!(await claimAt(post.id, DUE, 'token-1')).claimed) throw new Error('not claimed');
    const sent = commandsSent();
    try {
      expect(await state.markCreateSending(post.id, 'token-1', DUE)).toBe(true);
      expect(sent.names()).toEqual(['UpdateCommand']);
    } finally {
      sent.restore();
    }
  });
});

describe('"being sent" ends when nothing went out (issue 10, item 7)', () => {
  it('a retry after a failure that created nothing clears inFlightSince; an uncertain one keeps it and the media ids', async () => {
    const post = await stored();
    if (!(await claimAt(post.id, DUE, 'token-1')).claimed) throw new Error('not claimed');
    expect((await posts.getPost(post.id))?.inFlightSince).toBeNull();
    expect(await state.markCreateSending(post.id, 'token-1', DUE)).toBe(true);
    expect((await posts.getPost(post.id))?.inFlightSince).toBe(DUE.toISOString());
    const retryAt = new Date(DUE.getTime() + 5_000);
    expect(await state.releaseForRetry(post.id, 'token-1', { retryAt, uncertain: false, failed: true })).toBe(true);
    expect((await posts.getPost(post.id))?.inFlightSince).toBeNull();

    const second = await claimAt(post.id, retryAt, 'token-2');
    if (!second.claimed) throw new Error('not claimed');
    expect(await state.markCreateSending(post.id, 'token-2', retryAt, ['333'])).toBe(true);
    expect(await state.releaseForRetry(post.id, 'token-2', { retryAt: new Date(retryAt.getTime() + 5_000), uncertain: true, failed: true })).toBe(true);
    expect((await posts.getPost(post.id))?.inFlightSince).toBe(retryAt.toISOString());
    const third = await claimAt(post.id, new Date(retryAt.getTime() + 5_000), 'token-3');
    if (!third.claimed) throw new Error('not claimed');
    expect(third.claim).toMatchObject({ uncertain: true, platformCreateSentAt: retryAt.toISOString(), sentMediaIds: ['333'] });
  });

  it('a post deleted after its marker is not released as certain (no claim or sweep would take it up again); its holder records it never sent, out of the due index, its unit back once', async () => {
    const cycle = DUE.toISOString().slice(0, 7);
    const post = await stored({ allowanceCycle: cycle });
    expect(await allowanceUsed(post.userId, cycle)).toBe(1);
    if (!(await claimAt(post.id, DUE, 'token-1')).claimed) throw new Error('not claimed');
    expect(await state.markCreateSending(post.id, 'token-1', DUE)).toBe(true);
    expect(await posts.softDeletePost((await posts.getPost(post.id)) as Post, { deleteFromPlatform: true, now: DUE })).not.toBeNull();
    const retryAt = new Date(DUE.getTime() + 5_000);
    expect(await state.releaseForRetry(post.id, 'token-1', { retryAt, uncertain: false, failed: true })).toBe(false);
    const error = { message: 'never sent', advice: 'none' };
    expect(await state.recordNeverSent(post, error, retryAt, 'token-2')).toBe(false);
    expect(await allowanceUsed(post.userId, cycle)).toBe(1);
    expect(await state.recordNeverSent(post, error, retryAt, 'token-1')).toBe(true);
    expect(await rawItem(post.id)).toMatchObject({ status: 'failed', error, deletedAt: DUE.toISOString() });
    expect(await rawItem(post.id)).not.toHaveProperty('duePk');
    expect(await rawItem(post.id)).not.toHaveProperty('allowanceCycle');
    expect(await allowanceUsed(post.userId, cycle)).toBe(0);
    // Exactly once: the same holder again (a retried call) gives nothing back a second time.
    expect(await state.recordNeverSent(post, error, retryAt, 'token-1')).toBe(false);
    expect(await allowanceUsed(post.userId, cycle)).toBe(0);
  });

  it('a deleted post is claimed again only to settle a create that may be live (to take it down, or to give its unit back), with or without deleteFromPlatform', async () => {
    const [withDeletion, withoutDeletion, neverSent] = [await stored(), await stored(), await stored()];
    for (const post of [withDeletion, withoutDeletion]) {
      if (!(await claimAt(post.id, DUE, 'token-1')).claimed) throw new Error('not claimed');
      expect(await state.markCreateSending(post.id, 'token-1', DUE)).toBe(true);
      expect(await state.releaseForRetry(post.id, 'token-1', { retryAt: DUE, uncertain: true, failed: true })).toBe(true);
    }
    const asStored = async (id: string) => (await posts.getPost(id)) as Post;
    expect(await posts.softDeletePost(await asStored(withDeletion.id), { deleteFromPlatform: true, now: DUE })).not.toBeNull();
    expect(await posts.softDeletePost(await asStored(withoutDeletion.id), { deleteFromPlatform: false, now: DUE })).not.toBeNull();
    // Deleted with no create sent: nothing to settle.
    await client.send(
      new UpdateCommand({ TableName: postsTable, Key: { id: neverSent.id }, UpdateExpression: 'SET deletedAt = :now', ExpressionAttributeValues: { ':now': DUE.toISOString() } }),
    );
    const later = new Date(DUE.getTime() + 1_000);
    expect(notClaimed(await claimAt(neverSent.id, later))?.post.deletedAt).toBe(DUE.toISOString());
    for (const post of [withDeletion, withoutDeletion]) {
      const settle = await claimAt(post.id, later, 'token-2');
      if (!settle.claimed) throw new Error('not claimed');
      expect(settle.claim.uncertain).toBe(true);
      expect(settle.post.deletedAt).toBe(DUE.toISOString());
      // It stays in the due index until settled, so a lost message is swept back.
      expect(await rawItem(post.id)).toHaveProperty('duePk');
    }
  });
});

describe('counting the posts due at one second (countDue, issue 23)', () => {
  it('counts the second\'s scheduled posts across the due shards, not the seconds beside it nor deleted posts, and stops at the cap', async () => {
    // A second of its own, whole: other tests share the table.
    const second = new Date(Math.floor((DUE.getTime() + 86_400_000 + Math.floor(Math.random() * 1e9)) / 1000) * 1000);
    const at = (ms: number) => ({ scheduledFor: new Date(second.getTime() + ms).toISOString() });
    const inSecond = await Promise.all(Array.from({ length: 30 }, (_, index) => stored(at(index === 0 ? 0 : index * 33))));
    await stored(at(-1));
    await stored(at(1_000));
    expect(await state.countDue(second, 1_000)).toBe(30);
    // A post's entry leaves the index once it is deleted: it is not due any more.
    const [first] = inSecond as [Post];
    await client.send(new UpdateCommand({ TableName: postsTable, Key: { id: first.id }, UpdateExpression: 'REMOVE duePk' }));
    expect(await state.countDue(new Date(second.getTime() + 999), 1_000)).toBe(29);
    expect(await state.countDue(second, 10)).toBe(10);
  });
});
