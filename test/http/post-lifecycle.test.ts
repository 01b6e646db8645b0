/**
 * The post lifecycle through HTTP against the local stack with its queue consumers, sweeper,
 * Scheduler stand-in and sandbox platforms (beyond-v1.md "The post lifecycle"): PATCH, publish,
 * retry, preview, error.retryable, and each 409 race (PATCH against the worker's claim, retry
 * against retry, publish against delete). Every response is checked against openapi.yaml. The
 * sandbox's own record proves a moved or retried post goes out once, at its time. Where a post
 * must be in a state only the worker produces, the test uses the worker's own store methods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { ENV } from '../../lib/config.js';
import type { Account } from '../../lib/domain/model.js';
import { newId } from '../../lib/domain/ids.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentedApi } from '../support/openapi.js';
import { minutesFromNow, postsBackdoor, startPostsStack, type PostsBackdoor } from '../support/posts.js';
import { connectAccount, createKey, provisionUser, updateAccount, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostView {
  id: string;
  status: 'draft' | 'scheduled' | 'published' | 'failed';
  text: string;
  scheduledFor: string;
  publishedAt: string | null;
  platformPostId: string | null;
  error: { message: string; advice: string; retryable: boolean } | null;
}
interface PostBatch {
  campaignId: string | null;
  posts: { id: string | null; accountId: string; status: string; reason: string | null }[];
}
interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null };
}

let stack: TestStack;
let sandbox: SandboxPlatforms;
let backdoor: PostsBackdoor;
let state: DynamoDbPublishState;
let closeState: () => void;

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
  const raw = dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' });
  state = new DynamoDbPublishState({ client: DynamoDBDocumentClient.from(raw), postsTable: stack.info.tables.posts });
  closeState = () => raw.destroy();
});

afterAll(async () => {
  closeState?.();
  backdoor?.close();
  await stack?.stop();
});

let counter = 0;
function uniqueText(label: string): string {
  counter += 1;
  return `${label} #${counter} ${newId('post').slice(-6)}`;
}

async function newUser(options: { quota?: number; behaviour?: NonNullable<Account['sandbox']> } = {}) {
  const user: ProvisionedUser = await provisionUser(options.quota === undefined ? {} : { quota: options.quota });
  const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', sandbox: options.behaviour ?? 'ok', handle: `@life_${counter}` });
  const api = documentedApi(stack.baseUrl, user.apiKey);
  const create = async (body: Record<string, unknown>): Promise<string> => {
    const response = await api.post<PostBatch>('/posts', { accounts: [account.id], text: uniqueText('hello'), ...body });
    const id = response.body.posts[0]?.id;
    if (response.status !== 202 || !id) throw new Error(`create failed: ${response.text}`);
    return id;
  };
  const patch = <T = PostView>(id: string, body: unknown, headers: Record<string, string> = {}) => api.request<T>('PATCH', `/posts/${id}`, { body, headers });
  const get = async (id: string): Promise<PostView> => (await api.get<PostView>(`/posts/${id}`)).body;
  return { user, account, api, create, patch, get };
}

async function until<T>(what: string, check: () => Promise<T | null>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

function settled(get: (id: string) => Promise<PostView>, id: string): Promise<PostView> {
  return until(`post ${id} to settle`, async () => {
    const post = await get(id);
    return post.status === 'published' || post.status === 'failed' ? post : null;
  });
}

/** The worker's claim, as publish-post.ts makes it (due by far ahead, so a post an hour out can be claimed now). */
async function workerClaims(postId: string): Promise<void> {
  const now = new Date();
  const result = await state.claim(postId, { token: `test-${newId('post')}`, now, leaseUntil: new Date(now.getTime() + 60_000), dueBy: new Date(now.getTime() + 3 * 60 * 60_000) });
  if (!result.claimed) throw new Error('the claim failed');
}

describe('PATCH /posts/{id}', () => {
  it('changes a scheduled post\'s text and time: one schedule, at the new time', async () => {
    const { create, patch, get } = await newUser();
    const id = await create({ scheduledFor: minutesFromNow(60) });
    const text = uniqueText('changed');
    const later = minutesFromNow(90);
    const response = await patch(id, { text, scheduledFor: later });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, status: 'scheduled', text, scheduledFor: new Date(later).toISOString() });
    expect(await get(id)).toMatchObject({ text, scheduledFor: new Date(later).toISOString() });
    const schedules = stack.scheduler.list().filter((schedule) => schedule.Name === `post-${id}`);
    expect(schedules).toHaveLength(1);
    expect(JSON.parse(schedules[0]?.Target.Input ?? '{}')).toMatchObject({ postId: id, scheduledFor: new Date(later).toISOString() });
  });

  it('refuses a bad body and a post the target\'s rules reject, as a create would; the post is unchanged', async () => {
    const { create, patch, get } = await newUser();
    const id = await create({ scheduledFor: minutesFromNow(60) });
    const before = await get(id);
    const cases: [unknown, number, string][] = [
      [{ txt: 'typo' }, 400, 'invalid_body'],
      [{}, 400, 'invalid_body'],
      [{ text: 42 }, 400, 'invalid_text'],
      [{ scheduledFor: '2020-01-01T00:00:00Z' }, 400, 'scheduled_for_in_past'],
      [{ options: { linkedin: {} } }, 400, 'invalid_option'],
      [{ media: ['https://example.com/a.png'] }, 400, 'media_not_hosted'],
      [{ text: 'x'.repeat(281) }, 400, 'text_too_long'],
      [{ text: '   ' }, 400, 'text_empty'],
    ];
    for (const [body, status, code] of cases) {
      const response = await patch<ErrorBody>(id, body);
      expect([response.status, response.body.error.code], JSON.stringify(body)).toEqual([status, code]);
    }
    expect(await get(id)).toEqual(before);
  });

  it('a draft changes with scope write; a scheduled post needs publish; another user\'s post is 404', async () => {
    const { user, create, patch } = await newUser();
    const draft = await create({ draft: true });
    const scheduled = await create({ scheduledFor: minutesFromNow(60) });
    const { apiKey } = await createKey(user.userId, ['write']);
    const writer = documentedApi(stack.baseUrl, apiKey);
    expect((await writer.request<PostView>('PATCH', `/posts/${draft}`, { body: { text: 'draft text' } })).status).toBe(200);
    const refused = await writer.request<ErrorBody>('PATCH', `/posts/${scheduled}`, { body: { text: 'nope' } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_scope']);
    const stranger = await newUser();
    const foreign = await stranger.patch<ErrorBody>(draft, { text: 'mine now' });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'post_not_found']);
    expect((await patch(draft, { text: 'still mine' })).status).toBe(200);
  });

  it('409 post_not_editable for a published or failed post, saying why', async () => {
    const { create, patch } = await newUser();
    const published = await create({ scheduledFor: minutesFromNow(60) });
    await backdoor.publish(published);
    const failed = await create({ scheduledFor: minutesFromNow(60) });
    await backdoor.fail(failed);
    for (const [id, why] of [[published, /published/], [failed, /failed/]] as const) {
      const response = await patch<ErrorBody>(id, { text: 'too late' });
      expect([response.status, response.body.error.code]).toEqual([409, 'post_not_editable']);
      expect(response.body.error.message).toMatch(why);
    }
  });

  it('Idempotency-Key: the same PATCH replays its 200; the key on another post is 422', async () => {
    const { create, patch } = await newUser();
    const first = await create({ draft: true });
    const second = await create({ draft: true });
    const key = `patch-${newId('post')}`;
    const applied = await patch(first, { text: 'once' }, { 'Idempotency-Key': key });
    expect(applied.status).toBe(200);
    const replayed = await patch(first, { text: 'once' }, { 'Idempotency-Key': key });
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(applied.body);
    const elsewhere = await patch<ErrorBody>(second, { text: 'once' }, { 'Idempotency-Key': key });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('race: once the worker has claimed the post, PATCH is 409 and the worker keeps the text it claimed', async () => {
    const { create, patch, get } = await newUser();
    const id = await create({ scheduledFor: minutesFromNow(60) });
    const { text } = await get(id);
    await workerClaims(id);
    const response = await patch<ErrorBody>(id, { text: 'after the claim' });
    expect([response.status, response.body.error.code]).toEqual([409, 'post_not_editable']);
    expect(response.body.error.message).toMatch(/being sent/);
    expect((await get(id)).text).toBe(text);
  });

  it('race: a claim at every moment of a PATCH: every 200 is what the worker claimed, every 409 left the claimed text', async () => {
    const { create, patch } = await newUser();
    const ids = await Promise.all(Array.from({ length: 20 }, () => create({ scheduledFor: minutesFromNow(60) })));
    const statuses: number[] = [];
    // One pair at a time, the claim a little later each time, so that across the pairs claims land
    // before the PATCH reads, between its read and its write, and after its write.
    for (const [index, id] of ids.entries()) {
      const newText = `raced ${index} ${id}`;
      const [patched, claimed] = await Promise.all([
        patch<ErrorBody>(id, { text: newText }),
        (async () => {
          await new Promise((resolve) => setTimeout(resolve, index * 3));
          const now = new Date();
          return state.claim(id, { token: `race-${index}`, now, leaseUntil: new Date(now.getTime() + 60_000), dueBy: new Date(now.getTime() + 3 * 60 * 60_000) });
        })(),
      ]);
      statuses.push(patched.status);
      expect(claimed.claimed).toBe(true);
      const claimedText = claimed.claimed ? claimed.post.text : null;
      if (patched.status === 200) expect(claimedText, `pair ${index}`).toBe(newText);
      else {
        expect([patched.status, patched.body.error.code]).toEqual([409, 'post_not_editable']);
        expect(claimedText).not.toBe(newText);
      }
    }
  });

  it('a moved scheduledFor publishes at the new time, not the old, and once', async () => {
    const { account, create, patch, get } = await newUser();
    const first = new Date(Date.now() + 8_000);
    const id = await create({ scheduledFor: first.toISOString() });
    const moved = new Date(Date.now() + 20_000);
    const text = uniqueText('moved');
    expect((await patch(id, { text, scheduledFor: moved.toISOString() })).status).toBe(200);
    const post = await settled(get, id);
    expect(post.status).toBe('published');
    expect(Date.parse(post.publishedAt ?? '')).toBeGreaterThanOrEqual(moved.getTime());
    expect(sandbox.x.listPosts(account.id).map((live) => live.text)).toEqual([text]);
  }, 60_000);
});

describe('POST /posts/{id}/publish', () => {
  it('sends a draft now, spending one unit; it goes out once; publishing it again is 409', async () => {
    const { user, account, api, create, get } = await newUser();
    const text = uniqueText('draft');
    const id = await create({ draft: true, text });
    expect(await backdoor.allowanceUsed(user.userId)).toBe(0);
    const response = await api.post<PostView>(`/posts/${id}/publish`);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('scheduled');
    expect(await backdoor.allowanceUsed(user.userId)).toBe(1);
    expect((await settled(get, id)).status).toBe('published');
    expect(sandbox.x.listPosts(account.id).map((live) => live.text)).toEqual([text]);
    const again = await api.post<ErrorBody>(`/posts/${id}/publish`);
    expect([again.status, again.body.error.code]).toEqual([409, 'post_not_editable']);
  });

  it('at scheduledFor in the body; 400 quota_exceeded when the allowance is used up; the body is checked like a create\'s', async () => {
    const { user, api, create, get } = await newUser({ quota: 1 });
    const draft = await create({ draft: true });
    const other = await create({ draft: true });
    const later = minutesFromNow(120);
    const bad = await api.post<ErrorBody>(`/posts/${draft}/publish`, { scheduledFor: 'tomorrow' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_scheduled_for']);
    const unknown = await api.post<ErrorBody>(`/posts/${draft}/publish`, { when: later });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_body']);
    const response = await api.post<PostView>(`/posts/${draft}/publish`, { scheduledFor: later });
    expect([response.status, response.body.scheduledFor]).toEqual([200, new Date(later).toISOString()]);
    const over = await api.post<ErrorBody>(`/posts/${other}/publish`);
    expect([over.status, over.body.error.code]).toEqual([400, 'quota_exceeded']);
    expect((await get(other)).status).toBe('draft');
    expect(await backdoor.allowanceUsed(user.userId)).toBe(1);
  });

  it('race: a draft deleted first is 404 to publish, and no unit is spent', async () => {
    const { user, api, create } = await newUser();
    const id = await create({ draft: true });
    expect((await api.delete(`/posts/${id}`)).status).toBe(200);
    const response = await api.post<ErrorBody>(`/posts/${id}/publish`);
    expect([response.status, response.body.error.code]).toEqual([404, 'post_not_found']);
    expect(await backdoor.item(id)).toBeUndefined();
    expect(await backdoor.allowanceUsed(user.userId)).toBe(0);
  });

  it('race: a delete at every moment of a publish: the draft ends removed, never brought back, and no unit stays spent', async () => {
    const { user, api, create } = await newUser();
    const ids = await Promise.all(Array.from({ length: 16 }, () => create({ draft: true })));
    // One pair at a time, the delete a little later each time: before the publish reads, between
    // its read and its write, after its write.
    for (const [index, id] of ids.entries()) {
      const [published, deleted] = await Promise.all([
        api.post(`/posts/${id}/publish`, { scheduledFor: minutesFromNow(60) }),
        (async () => {
          await new Promise((resolve) => setTimeout(resolve, index * 3));
          return api.delete(`/posts/${id}`);
        })(),
      ]);
      expect([200, 404], `pair ${index}`).toContain(published.status);
      expect(deleted.status, `pair ${index}`).toBe(200);
      // Whichever came first, the delete removed the post: a publish that lost must not write it back.
      expect(await backdoor.item(id), `pair ${index}`).toBeUndefined();
    }
    expect(await backdoor.allowanceUsed(user.userId)).toBe(0);
  });
});

describe('POST /posts/{id}/retry and error.retryable', () => {
  it('a refusal before anything was created is retryable: after reconnecting, the retry goes out once, spending no new unit', async () => {
    const { user, account, api, create, get } = await newUser({ behaviour: 'expired' });
    const text = uniqueText('retry me');
    const id = await create({ text });
    const failed = await settled(get, id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.retryable).toBe(true);
    const used = await backdoor.allowanceUsed(user.userId);

    // Still disconnected: refused as a create to this account would be.
    const early = await api.post<ErrorBody>(`/posts/${id}/retry`);
    expect([early.status, early.body.error.code]).toEqual([400, 'token_invalid']);

    await updateAccount(account.id, { sandbox: 'ok', tokenHealth: 'healthy' });
    const response = await api.post<PostView>(`/posts/${id}/retry`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, status: 'scheduled', error: null });
    const post = await settled(get, id);
    expect(post.status).toBe('published');
    expect(sandbox.x.listPosts(account.id).map((live) => live.text)).toEqual([text]);
    expect(await backdoor.allowanceUsed(user.userId)).toBe(used);
    const again = await api.post<ErrorBody>(`/posts/${id}/retry`);
    expect([again.status, again.body.error.code]).toEqual([409, 'post_not_retryable']);
  });

  it('content the platform refused is not retryable: 409 post_not_retryable saying why', async () => {
    const { api, create, get } = await newUser({ behaviour: 'refuse' });
    const id = await create({});
    const failed = await settled(get, id);
    expect(failed.error?.retryable).toBe(false);
    const response = await api.post<ErrorBody>(`/posts/${id}/retry`);
    expect([response.status, response.body.error.code]).toEqual([409, 'post_not_retryable']);
    expect(response.body.error.message).toMatch(/not retryable/);
  });

  it('race: two retries at once: exactly one wins, and the post goes out once', async () => {
    const { account, api, create, get } = await newUser();
    for (let round = 0; round < 4; round++) {
      const text = uniqueText('twice?');
      const id = await create({ text, scheduledFor: minutesFromNow(60) });
      await workerClaims(id);
      const item = await backdoor.item(id);
      await state.recordFailed(await backdoor.post(id), { message: 'X was unavailable', advice: 'Try again later.', retryable: true }, new Date(), String(item?.claimToken));
      const [first, second] = await Promise.all([api.post<ErrorBody>(`/posts/${id}/retry`), api.post<ErrorBody>(`/posts/${id}/retry`)]);
      expect([first.status, second.status].sort(), `round ${round}`).toEqual([200, 409]);
      expect([first, second].find((response) => response.status === 409)?.body.error.code).toBe('post_not_retryable');
      expect((await settled(get, id)).status).toBe('published');
      expect(sandbox.x.listPosts(account.id).filter((live) => live.text === text)).toHaveLength(1);
    }
  });
});

describe('POST /posts/preview', () => {
  it('answers the batch a create would, with no ids, writing and spending nothing', async () => {
    const { user, account, api } = await newUser();
    const response = await api.post<PostBatch>('/posts/preview', { accounts: [account.id, 'acct_nope'], text: 'preview only' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'post_batch',
      campaignId: null,
      posts: [
        expect.objectContaining({ id: null, accountId: account.id, status: 'accepted', reason: null }),
        expect.objectContaining({ id: null, accountId: 'acct_nope', status: 'rejected', reason: 'account_unresolved' }),
      ],
    });
    const list = await api.get<{ posts: unknown[] }>('/posts');
    expect(list.body.posts).toEqual([]);
    expect(await backdoor.allowanceUsed(user.userId)).toBe(0);
  });

  it('says quota_exceeded for the targets past what is left of the allowance, as the create then answers', async () => {
    const { user, account, api, create } = await newUser({ quota: 2 });
    const second = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', sandbox: 'ok', handle: `@life_b${counter}` });
    await create({});
    const body = { accounts: [account.id, second.id], text: uniqueText('one left') };
    const preview = await api.post<PostBatch>('/posts/preview', body);
    expect(preview.status).toBe(200);
    expect(preview.body.posts.map((post) => [post.status, post.reason])).toEqual([['accepted', null], ['rejected', 'quota_exceeded']]);
    expect(await backdoor.allowanceUsed(user.userId)).toBe(1);
    const created = await api.post<PostBatch>('/posts', body);
    expect(created.body.posts.map((post) => [post.status, post.reason])).toEqual(preview.body.posts.map((post) => [post.status, post.reason]));
    // Nothing left: the 400 the create gives; a draft spends nothing and is still accepted.
    const spent = { accounts: [account.id], text: uniqueText('none left') };
    const none = await api.post<ErrorBody>('/posts/preview', spent);
    expect([none.status, none.body.error.code]).toEqual([400, 'quota_exceeded']);
    expect(none.body).toEqual((await api.post<ErrorBody>('/posts', spent)).body);
    expect((await api.post<PostBatch>('/posts/preview', { ...spent, draft: true })).body.posts[0]?.status).toBe('accepted');
  });

  it('400 exactly as a create when no target would be accepted, and for a bad body', async () => {
    const { account, api } = await newUser();
    const body = { accounts: [account.id], text: 'x'.repeat(400) };
    const preview = await api.post<ErrorBody & { posts: unknown[] }>('/posts/preview', body);
    const create = await api.post<ErrorBody & { posts: unknown[] }>('/posts', body);
    expect(preview.status).toBe(400);
    expect(preview.body).toEqual(create.body);
    const bad = await api.post<ErrorBody>('/posts/preview', { accounts: [] });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'accounts_required']);
  });
});

describe('DELETE ?deleteFromPlatform', () => {
  it('is documented as a boolean, and the server still takes the exact `true`', async () => {
    const { api, create } = await newUser();
    const id = await create({ scheduledFor: minutesFromNow(60) });
    expect((await api.delete(`/posts/${id}?deleteFromPlatform=true`)).status).toBe(200);
  });
});
