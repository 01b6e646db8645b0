/**
 * Publishing end to end, through HTTP against the local stack with its queue consumers, sweeper
 * and sandbox platforms: a post is created with POST /posts, the publish worker sends it to the
 * sandbox platform over real HTTP, and GET /posts/{id} shows the outcome. Every sandbox behaviour
 * on both platforms, media, token refresh, duplicate delivery, a delete racing the send, lost
 * answers and lost messages. The sandbox's own record of what was created proves nothing is sent twice.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClientFor } from '../../local/messaging.js';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { ENV } from '../../lib/config.js';
import type { Account, Post } from '../../lib/domain/model.js';
import { newId } from '../../lib/domain/ids.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { documentedApi } from '../support/openapi.js';
import { postFixture } from '../support/post-fixture.js';
import { postsBackdoor, startPostsStack, type PostsBackdoor } from '../support/posts.js';
import { addMedia, connectAccount, provisionUser, updateAccount, type ProvisionedUser } from '../support/provision.js';
import { queueIdle, until } from '../support/queues.js';
import type { TestStack } from '../support/stack.js';

interface PostView {
  id: string;
  accountId: string;
  platform: string;
  status: 'draft' | 'scheduled' | 'published' | 'failed';
  text: string;
  scheduledFor: string;
  publishedAt: string | null;
  publishedUrl: string | null;
  platformPostId: string | null;
  error: { message: string; advice: string } | null;
}
interface PostBatch {
  posts: { id: string | null; status: string; reason: string | null }[];
}
interface AccountView {
  id: string;
  tokenHealth: string;
}

let stack: TestStack;
let sandbox: SandboxPlatforms;
let backdoor: PostsBackdoor;
let user: ProvisionedUser;
let accounts: DynamoDbAccountStore;

const client = () => documentedApi(stack.baseUrl, user.apiKey);

function account(platform: 'x' | 'linkedin', behaviour: NonNullable<Account['sandbox']>, extra: Partial<Account> = {}): Promise<Account> {
  return connectAccount(user.workspaceIds[0] as string, {
    platform,
    sandbox: behaviour,
    ...(platform === 'x' ? { handle: `@pub_${behaviour}` } : {}),
    ...(extra.accountType ? { accountType: extra.accountType } : {}),
  });
}

let counter = 0;
function uniqueText(label: string): string {
  counter += 1;
  return `${label} #${counter} ${newId('post').slice(-6)}`;
}

async function create(accountId: string, body: Record<string, unknown>): Promise<string> {
  const response = await client().post<PostBatch>('/posts', { accounts: [accountId], ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const [result] = response.body.posts;
  expect(result?.status).toBe('accepted');
  return result?.id as string;
}

/**
 * Creates a post due `leadMs` from now. On a slow hour the create itself can take longer than the
 * lead and is refused as scheduled_for_in_past (a CI failure of the webhook burst tests before):
 * it is then made again with twice the lead, so the test waits for a create to be accepted, not
 * for the machine to be fast. Returns the post and the time it is due.
 */
async function createDueSoon(accountId: string, body: Record<string, unknown>, leadMs: number): Promise<{ postId: string; scheduledFor: string }> {
  for (let lead = leadMs; ; lead *= 2) {
    const scheduledFor = new Date(Date.now() + lead).toISOString();
    const response = await client().post<PostBatch & { error?: { code?: string } }>('/posts', { accounts: [accountId], ...body, scheduledFor });
    if (response.status === 400 && response.body.error?.code === 'scheduled_for_in_past' && lead < 60_000) continue;
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    const [result] = response.body.posts;
    expect(result?.status).toBe('accepted');
    return { postId: result?.id as string, scheduledFor };
  }
}

/** Polls GET /posts/{id} until the post is no longer scheduled (the worker recorded an outcome). */
async function settled(postId: string, timeoutMs = 45_000): Promise<PostView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client().get<PostView>(`/posts/${postId}`);
    expect(response.status).toBe(200);
    if (response.body.status !== 'scheduled') return response.body;
    if (Date.now() > deadline) throw new Error(`post ${postId} still scheduled after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Nothing left on the publish queue, visible or in flight: every message was handled. */
const publishQueueIdle = (): Promise<boolean> => queueIdle(stack.info.sqsEndpoint, stack.info.queues.publish.url);

function sandboxOf(platform: string) {
  return platform === 'x' ? sandbox.x : sandbox.linkedin;
}

beforeAll(async () => {
  stack = await startPostsStack({
    consumers: true,
    sweeper: true,
    sandbox: true,
    sweeperIntervalMs: 1000,
    env: { [ENV.sweeperGraceSeconds]: '3', [ENV.publishAmbiguousRecheckSeconds]: '1' },
  });
  if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
  sandbox = stack.sandbox;
  backdoor = postsBackdoor(stack);
  user = await provisionUser();
  accounts = new DynamoDbAccountStore({ tableName: stack.info.tables.directory });
});

afterAll(async () => {
  backdoor?.close();
  await stack?.stop();
});

describe('a post goes out (sandbox behaviour ok)', () => {
  it('x: published with the platform id, the public URL and publishedAt', async () => {
    const acct = await account('x', 'ok');
    const text = uniqueText('Hello X');
    const post = await settled(await create(acct.id, { text }));
    expect(post.status).toBe('published');
    expect(post.platformPostId).toMatch(/^\d{19}$/);
    expect(post.publishedUrl).toBe(`https://x.com/pub_ok/status/${post.platformPostId}`);
    expect(post.error).toBeNull();
    expect(Date.parse(post.publishedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(post.scheduledFor));
    expect(sandbox.x.listPosts(acct.id).map((live) => [live.id, live.text])).toEqual([[post.platformPostId, text]]);
  });

  it('linkedin, person and organization: published, text with reserved characters arrives whole', async () => {
    for (const accountType of ['personal', 'organization'] as const) {
      const acct = await account('linkedin', 'ok', { accountType });
      const text = uniqueText('Q&A (part 1) with @team #launch [draft] *bold* _x_ ~y~ <z> {w} a|b');
      const post = await settled(await create(acct.id, { text }));
      expect(post.status).toBe('published');
      expect(post.platformPostId).toMatch(/^urn:li:share:\d{19}$/);
      expect(post.publishedUrl).toBe(`https://www.linkedin.com/feed/update/${post.platformPostId}/`);
      const [live] = sandbox.linkedin.listPosts(acct.id);
      expect(live?.text).toBe(text);
      expect(String(live?.details.author)).toMatch(accountType === 'personal' ? /^urn:li:person:/ : /^urn:li:organization:/);
    }
  });

  it('x with two images and the options: uploaded, attached, community sent', async () => {
    const acct = await account('x', 'ok');
    const first = await addMedia(user.userId, { fileName: 'one.png', body: new Uint8Array(2048).fill(1) });
    const second = await addMedia(user.userId, { fileName: 'two.jpg', body: new Uint8Array(4096).fill(2) });
    const post = await settled(
      await create(acct.id, {
        text: uniqueText('Pictures'),
        media: [first.url, second.url],
        options: { x: { communityId: '1700000000000000001', shareWithFollowers: true } },
      }),
    );
    expect(post.status).toBe('published');
    const uploaded = sandbox.x.uploadedMedia(acct.id);
    expect(uploaded.map((item) => [item.mediaType, item.totalBytes])).toEqual([
      ['image/png', 2048],
      ['image/jpeg', 4096],
    ]);
    const [live] = sandbox.x.listPosts(acct.id);
    expect(live?.mediaIds).toEqual(uploaded.map((item) => item.id));
    expect(live?.details).toEqual({ community_id: '1700000000000000001', share_with_followers: true });
  });

  it('a video on both platforms: chunked upload from the media bucket, processed, attached', async () => {
    const bytes = new Uint8Array(4_500_000).map((_, index) => index % 251);
    const video = await addMedia(user.userId, { fileName: 'clip.mp4', contentType: 'video/mp4', durationSeconds: 12, body: bytes });
    for (const platform of ['x', 'linkedin'] as const) {
      const acct = await account(platform, 'ok');
      const post = await settled(await create(acct.id, { text: uniqueText('Video'), media: [video.url] }));
      expect(post.status, JSON.stringify(post.error)).toBe('published');
      const live = sandboxOf(platform).listPosts(acct.id);
      expect(live).toHaveLength(1);
      if (platform === 'x') {
        expect(sandbox.x.uploadedMedia(acct.id)).toEqual([expect.objectContaining({ mediaType: 'video/mp4', totalBytes: 4_500_000, state: 'succeeded' })]);
      } else {
        expect(sandbox.linkedin.uploadedMedia(acct.id)).toEqual([expect.objectContaining({ kind: 'video', sizeBytes: 4_500_000, status: 'AVAILABLE' })]);
      }
    }
  });
});

describe('a post fails with what the platform said and one sentence of advice', () => {
  it.each(['x', 'linkedin'] as const)('%s refuses: failed, platform message, advice', async (platform) => {
    const acct = await account(platform, 'refuse');
    const post = await settled(await create(acct.id, { text: uniqueText('Refused') }));
    expect(post.status).toBe('failed');
    expect(post.error?.message).toBe(
      platform === 'x'
        ? 'You are not permitted to perform this action.'
        : 'Post refused: the content was flagged as violating the Professional Community Policies.',
    );
    expect(post.error?.advice).toMatch(/^[A-Z].*\.$/);
    expect(post.publishedAt).toBeNull();
    expect(post.platformPostId).toBeNull();
    expect(sandboxOf(platform).createCount(acct.id)).toBe(0);
  });

  it.each(['x', 'linkedin'] as const)('%s says the token is bad: failed, reconnect, account needs_reauth', async (platform) => {
    const acct = await account(platform, 'expired');
    const post = await settled(await create(acct.id, { text: uniqueText('Expired') }));
    expect(post.status).toBe('failed');
    expect(post.error?.advice).toMatch(/Reconnect/);
    expect(JSON.stringify(post)).not.toMatch(/sandbox\./);
    const accounts = await client().get<{ accounts: AccountView[] }>('/accounts');
    expect(accounts.body.accounts.find((entry) => entry.id === acct.id)?.tokenHealth).toBe('needs_reauth');
  });
});

// These wait out real backoffs and lookups (settled() allows 45 s): the default 30 s test limit is a
// clock a slow hour beat (CI with one core busy failed a test here at 30 s). Each test has accounts
// of its own and checks only what they hold, and most of their time is those waits: the tests of
// each block run side by side.
describe('transient failures are retried', { timeout: 90_000, concurrent: true }, () => {
  it.each(['x', 'linkedin'] as const)('%s answers 503 once: retried with backoff, published once', async (platform) => {
    const acct = await account(platform, 'flaky');
    const post = await settled(await create(acct.id, { text: uniqueText('Flaky') }));
    expect(post.status).toBe('published');
    expect(sandboxOf(platform).createAttemptCount(acct.id)).toBe(2);
    expect(sandboxOf(platform).createCount(acct.id)).toBe(1);
  });
});

describe('never sent twice', { timeout: 90_000, concurrent: true }, () => {
  it('the same publish message delivered three times gives one platform post', async () => {
    const acct = await account('x', 'ok');
    const { postId } = await createDueSoon(acct.id, { text: uniqueText('Once') }, 3_000);
    const sqs = sqsClientFor(stack.info.sqsEndpoint);
    try {
      const body = JSON.stringify({ kind: 'publish', postId, scheduledFor: (await backdoor.post(postId)).scheduledFor });
      for (let copy = 0; copy < 2; copy++) {
        await sqs.send(new SendMessageCommand({ QueueUrl: stack.info.queues.publish.url, MessageBody: body }));
      }
      const post = await settled(postId);
      expect(post.status).toBe('published');
      // And once more after it went out.
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.info.queues.publish.url, MessageBody: body }));
    } finally {
      sqs.destroy();
    }
    await until('the publish queue to be idle', publishQueueIdle);
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(1);
    expect(sandbox.x.createCount(acct.id)).toBe(1);
  });

  it('a copy of the first message arriving while a retry is pending waits for the retry time: one retry, one platform post', async () => {
    const acct = await account('x', 'flaky');
    const postId = await create(acct.id, { text: uniqueText('Retry pending') });
    await until('the first attempt to fail and a retry to be set', async () => typeof (await backdoor.item(postId))?.retryAt === 'string');
    const retryAt = String((await backdoor.item(postId))?.retryAt);
    const sqs = sqsClientFor(stack.info.sqsEndpoint);
    try {
      const body = JSON.stringify({ kind: 'publish', postId, scheduledFor: (await backdoor.post(postId)).scheduledFor });
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.info.queues.publish.url, MessageBody: body }));
    } finally {
      sqs.destroy();
    }
    const post = await settled(postId);
    expect(post.status).toBe('published');
    expect(Date.parse(post.publishedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(retryAt));
    await until('the publish queue to be idle', publishQueueIdle);
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(2);
    expect(sandbox.x.createCount(acct.id)).toBe(1);
  });

  it('x: the answer to the create is lost; the worker looks the post up, records it, and never resends', async () => {
    const acct = await account('x', 'ok');
    sandbox.x.injectFault(acct.id, 'drop_after_create');
    const post = await settled(await create(acct.id, { text: uniqueText('Lost answer') }));
    expect(post.status).toBe('published');
    const live = sandbox.x.listPosts(acct.id);
    expect(live).toHaveLength(1);
    expect(post.platformPostId).toBe(live[0]?.id);
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(1);
  });

  // Two accounts one after the other, each settling within settled()'s 45 s.
  it('linkedin: the answer to the create is lost; reconciled as X is: looked up on LinkedIn, recorded published, never resent', { timeout: 120_000 }, async () => {
    for (const accountType of ['personal', 'organization'] as const) {
      const acct = await account('linkedin', 'ok', { accountType });
      sandbox.linkedin.injectFault(acct.id, 'drop_after_create');
      const post = await settled(await create(acct.id, { text: uniqueText('Lost answer (with) #reserved chars') }));
      expect(post.status, JSON.stringify(post.error)).toBe('published');
      const live = sandbox.linkedin.listPosts(acct.id);
      expect(live).toHaveLength(1);
      expect(post.platformPostId).toBe(live[0]?.id);
      expect(post.publishedUrl).toBe(`https://www.linkedin.com/feed/update/${live[0]?.id}/`);
      expect(sandbox.linkedin.createAttemptCount(acct.id)).toBe(1);
    }
  });

  it('linkedin: the answer is lost and nothing was created: the lookup finds nothing, so it is sent once more, once', async () => {
    const acct = await account('linkedin', 'ok');
    sandbox.linkedin.injectFault(acct.id, 'drop_before_create');
    const post = await settled(await create(acct.id, { text: uniqueText('Never arrived') }));
    expect(post.status).toBe('published');
    expect(sandbox.linkedin.createAttemptCount(acct.id)).toBe(2);
    expect(sandbox.linkedin.listPosts(acct.id).map((live) => live.id)).toEqual([post.platformPostId]);
  });
});

describe('delete and the send', () => {
  /** A post to X whose create is held by `fault`, deleted with deleteFromPlatform once X has it. */
  async function deletedWhileSent(fault: 'slow_create' | 'slow_rate_limited', label: string): Promise<{ acct: Account; postId: string }> {
    const acct = await account('x', 'ok');
    sandbox.x.injectFault(acct.id, fault);
    const postId = await create(acct.id, { text: uniqueText(label) });
    await until('the create request to reach X', () => sandbox.x.createAttemptCount(acct.id) === 1);
    const deleted = await client().delete<{ softDeleted: boolean }>(`/posts/${postId}?deleteFromPlatform=true`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.softDeleted).toBe(true);
    return { acct, postId };
  }

  it('deleted with deleteFromPlatform while it is being sent: stays deleted, and the live post is deleted once its id is known', async () => {
    const { acct, postId } = await deletedWhileSent('slow_create', 'Racing');
    expect((await client().get(`/posts/${postId}`)).status).toBe(404);
    await until('the live post to be deleted from X', () => sandbox.x.listPosts(acct.id)[0]?.deletedAt instanceof Date);
    expect(sandbox.x.createCount(acct.id)).toBe(1);
    expect((await client().get(`/posts/${postId}`)).status).toBe(404);
    expect((await backdoor.post(postId)).status).toBe('published');
  });

  it('deleted with deleteFromPlatform while a create that X then refuses (429) is under way: nothing went out, so the post is settled, not left scheduled in the due index', async () => {
    const { acct, postId } = await deletedWhileSent('slow_rate_limited', 'Racing a refusal');
    await until('the refused attempt to end', async () => {
      const item = await backdoor.item(postId);
      return item?.status !== 'scheduled' || item.claimToken === undefined;
    }, 10_000);
    // Scheduled and deleted, with no create that may be live, no worker would claim it again and no
    // sweep would put it back: it would sit in the due index, read by every sweep, for good.
    const item = await backdoor.item(postId);
    expect(item).toMatchObject({ status: 'failed', error: { message: 'The post was deleted before it went out.' } });
    expect(item).not.toHaveProperty('duePk');
    expect(sandbox.x.createCount(acct.id)).toBe(0);
    expect((await client().get(`/posts/${postId}`)).status).toBe(404);
  });

  it('deleted without deleteFromPlatform while it is being sent: the live post stays', async () => {
    const acct = await account('linkedin', 'ok');
    sandbox.linkedin.injectFault(acct.id, 'slow_create');
    const postId = await create(acct.id, { text: uniqueText('Racing, kept') });
    await until('the create request to reach LinkedIn', () => sandbox.linkedin.createAttemptCount(acct.id) === 1);
    expect((await client().delete(`/posts/${postId}`)).status).toBe(200);
    await until('the outcome to be recorded', async () => (await backdoor.post(postId)).status === 'published');
    await until('the queues to be idle', publishQueueIdle);
    expect(sandbox.linkedin.listPosts(acct.id)[0]?.deletedAt).toBeNull();
    expect((await client().get(`/posts/${postId}`)).status).toBe(404);
  });

  it('cancelled before its time: nothing is sent', async () => {
    const acct = await account('x', 'ok');
    const { postId, scheduledFor } = await createDueSoon(acct.id, { text: uniqueText('Cancelled') }, 3_000);
    expect((await client().delete(`/posts/${postId}`)).status).toBe(200);
    await until('the due time to pass', () => Date.now() > Date.parse(scheduledFor) + 2_000, 10_000);
    await until('the publish queue to be idle', publishQueueIdle);
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(0);
  });

  it('prepared before its time (claimed early) but not yet sent: a cancel still removes it, gives its unit back, and nothing goes out (issue 13)', async () => {
    // The window this test needs (claimed, not yet due) is the prepare window, under 2 s: on a slow
    // hour the create, the claim or the cancel can miss it. A missed window is no failure of the
    // service, so the test tries again on a fresh account until one attempt has its premise, and
    // only then asserts.
    for (let attempt = 1; attempt <= 6; attempt++) {
      const acct = await account('x', 'ok');
      const scheduledFor = new Date(Date.now() + 1_900).toISOString();
      const response = await client().post<PostBatch & { error?: { code?: string } }>('/posts', { accounts: [acct.id], text: uniqueText('Prepared, then cancelled'), scheduledFor });
      if (response.status === 400 && response.body.error?.code === 'scheduled_for_in_past') continue;
      expect(response.status, JSON.stringify(response.body)).toBe(202);
      const postId = response.body.posts[0]?.id as string;
      await until('the worker to claim the post, or its time to come', async () => Date.now() >= Date.parse(scheduledFor) || typeof (await backdoor.item(postId))?.claimToken === 'string', 10_000);
      const claimed = await backdoor.item(postId);
      const usedBefore = await backdoor.allowanceUsed(user.userId);
      if (typeof claimed?.claimToken !== 'string' || claimed.inFlightSince !== undefined || Date.now() >= Date.parse(scheduledFor) - 200) continue;
      expect(String(claimed.firstAttemptAt) < scheduledFor).toBe(true);
      const deleted = await client().delete<{ softDeleted: boolean }>(`/posts/${postId}`);
      // Sent in the meantime: the window closed between the look and the cancel.
      if (deleted.body.softDeleted !== false) continue;
      expect(await backdoor.allowanceUsed(user.userId)).toBe(usedBefore - 1);
      await until('the due time to pass', () => Date.now() > Date.parse(scheduledFor) + 2_000, 10_000);
      await until('the publish queue to be idle', publishQueueIdle);
      expect(sandbox.x.createAttemptCount(acct.id)).toBe(0);
      expect(await backdoor.item(postId)).toBeUndefined();
      return;
    }
    throw new Error('six attempts missed the prepare window: the machine is too slow for this test, or claims come late');
  });

  it('held in a group of posts due at one second (issue 23), claimed seconds early: a cancel before the "sent" marker still removes it and nothing goes out; the others go out once', async () => {
    const accts = [await account('x', 'ok'), await account('x', 'ok'), await account('linkedin', 'ok')];
    const scheduledFor = new Date(Math.ceil((Date.now() + 7_000) / 1000) * 1000).toISOString();
    const ids: string[] = [];
    for (const acct of accts) ids.push(await create(acct.id, { text: uniqueText('Held in a group'), scheduledFor }));
    // The group message a worker puts back once it counted a big second: its lead (8 s) makes the
    // worker claim all three at once and hold them until their second.
    const sqs = sqsClientFor(stack.info.sqsEndpoint);
    try {
      const body = JSON.stringify({ kind: 'publish-group', postIds: ids, scheduledFor, prepareMs: 8_000 });
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.info.queues.publish.url, MessageBody: body }));
    } finally {
      sqs.destroy();
    }
    const [cancelled, ...sent] = ids as [string, ...string[]];
    await until('the worker to claim the group ahead of its time', async () => (await Promise.all(ids.map((id) => backdoor.item(id)))).every((item) => typeof item?.claimToken === 'string'), 5_000);
    const claimed = await backdoor.item(cancelled);
    // Claimed well before the default 2 s lead, and not in flight: the marker comes half a second before its time.
    expect(Date.parse(scheduledFor) - Date.parse(String(claimed?.firstAttemptAt))).toBeGreaterThan(2_000);
    expect(claimed?.inFlightSince).toBeUndefined();
    const usedBefore = await backdoor.allowanceUsed(user.userId);
    const deleted = await client().delete<{ softDeleted: boolean }>(`/posts/${cancelled}`);
    expect(deleted.body).toMatchObject({ softDeleted: false });
    expect(await backdoor.allowanceUsed(user.userId)).toBe(usedBefore - 1);
    const outcomes = await Promise.all(sent.map((id) => settled(id)));
    expect(outcomes.map((post) => post.status)).toEqual(['published', 'published']);
    await until('the publish queue to be idle', publishQueueIdle);
    expect(sandbox.x.createAttemptCount((accts[0] as Account).id)).toBe(0);
    expect(sandbox.x.createAttemptCount((accts[1] as Account).id)).toBe(1);
    expect(sandboxOf('linkedin').listPosts((accts[2] as Account).id)).toHaveLength(1);
    expect(await backdoor.item(cancelled)).toBeUndefined();
  });

  it('a published post deleted with deleteFromPlatform=true: the deletion worker removes the live post (once)', async () => {
    const acct = await account('linkedin', 'ok');
    const postId = await create(acct.id, { text: uniqueText('Delete me later') });
    expect((await settled(postId)).status).toBe('published');
    const deleted = await client().delete<{ softDeleted: boolean }>(`/posts/${postId}?deleteFromPlatform=true`);
    expect(deleted.body.softDeleted).toBe(true);
    await until('the live post to be deleted from LinkedIn', () => sandbox.linkedin.listPosts(acct.id)[0]?.deletedAt instanceof Date);
    await until('the platform deletion to be recorded', async () => typeof (await backdoor.item(postId))?.platformDeletedAt === 'string');
    // Settled in the same write: its outbox entry in byDue is gone, so the sweeper never asks again.
    expect(await backdoor.item(postId)).not.toHaveProperty('duePk');
  });

  it('a deletion the platform refuses for good (access revoked since): not asked again, the account needs reauthorization', async () => {
    const acct = await account('x', 'ok');
    const postId = await create(acct.id, { text: uniqueText('Revoked before the delete') });
    const published = await settled(postId);
    expect(published.status).toBe('published');
    await updateAccount(acct.id, { sandbox: 'expired' });
    const deleted = await client().delete<{ softDeleted: boolean }>(`/posts/${postId}?deleteFromPlatform=true`);
    expect(deleted.body.softDeleted).toBe(true);
    await until('the refusal to be recorded', async () => typeof (await backdoor.item(postId))?.platformDeletionAbandonedAt === 'string');
    const item = await backdoor.item(postId);
    expect(item).toMatchObject({ platformDeletionAbandonedFor: expect.any(String) });
    expect(item).not.toHaveProperty('platformDeletedAt');
    expect(item).not.toHaveProperty('duePk');
    expect(sandbox.x.listPosts(acct.id).map((held) => [held.id, held.deletedAt])).toEqual([[published.platformPostId, null]]);
    const accounts = await client().get<{ accounts: AccountView[] }>('/accounts');
    expect(accounts.body.accounts.find((entry) => entry.id === acct.id)?.tokenHealth).toBe('needs_reauth');
  });
});

describe('tokens', () => {
  async function expireSoon(accountId: string): Promise<void> {
    const credentials = await accounts.getCredentials(accountId);
    if (!credentials) throw new Error('no credentials');
    await accounts.putCredentials({ ...credentials, accessTokenExpiresAt: new Date(Date.now() + 60_000).toISOString() });
  }

  it('x: an access token about to expire is refreshed first, and the rotated refresh token is stored each time', async () => {
    const acct = await account('x', 'ok');
    const cipher = tokenCipherFromEnv();
    const refreshTokens: string[] = [];
    for (let round = 0; round < 2; round++) {
      await expireSoon(acct.id);
      const refreshesBefore = sandbox.x.refreshCount();
      const post = await settled(await create(acct.id, { text: uniqueText('Fresh token') }));
      expect(post.status).toBe('published');
      expect(sandbox.x.refreshCount()).toBe(refreshesBefore + 1);
      const stored = await accounts.getCredentials(acct.id);
      refreshTokens.push(await cipher.decrypt(stored?.refreshTokenEncrypted ?? '', { accountId: acct.id }));
      expect(Date.parse(stored?.accessTokenExpiresAt ?? '') - Date.now()).toBeGreaterThan(60 * 60 * 1000);
    }
    expect(new Set(refreshTokens).size).toBe(2);
  });

  it('x: the refresh is refused: failed with refresh advice, account refresh_failed', async () => {
    const acct = await account('x', 'expired');
    await expireSoon(acct.id);
    const post = await settled(await create(acct.id, { text: uniqueText('No refresh') }));
    expect(post.status).toBe('failed');
    expect(post.error?.message).toBe('Value passed for the token was invalid.');
    expect(post.error?.advice).toMatch(/could not be refreshed/);
    const accounts = await client().get<{ accounts: AccountView[] }>('/accounts');
    expect(accounts.body.accounts.find((entry) => entry.id === acct.id)?.tokenHealth).toBe('refresh_failed');
  });
});

describe('the sweeper', () => {
  it('a scheduled post whose message never arrived is put back on the queue and goes out once', async () => {
    const acct = await account('x', 'ok');
    const now = new Date();
    // Written straight to the table: a post whose message was lost on the way.
    const post: Post = postFixture({
      id: newId('post'),
      userId: user.userId,
      workspaceId: user.workspaceIds[0] as string,
      accountId: acct.id,
      campaignId: newId('cmp'),
      text: uniqueText('Lost message'),
      scheduledFor: new Date(now.getTime() + 1_000).toISOString(),
      createdAt: now.toISOString(),
    });
    await backdoor.store.createPosts({ userId: user.userId, posts: [post], allowanceLimit: 1000, idempotency: null, response: () => null });
    const settledPost = await settled(post.id);
    expect(settledPost.status).toBe('published');
    expect(sandbox.x.createCount(acct.id)).toBe(1);
  });
});
