/**
 * POST /posts through HTTP against the local stack: every request-level code, every per-target
 * reason, the plan allowance, idempotency, scopes, and what gets queued. Every response is checked
 * against openapi.yaml (documentedApi).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedApi } from '../support/openapi.js';
import { drainQueue, minutesFromNow, postsBackdoor, startPostsStack, type PostsBackdoor } from '../support/posts.js';
import { addMedia, createKey, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null };
  posts?: PostResult[];
}
interface PostResult {
  object: 'post_result';
  id: string | null;
  accountId: string;
  platform: string | null;
  status: 'accepted' | 'rejected' | 'failed';
  reason: string | null;
  message: string | null;
}
interface PostBatch {
  object: 'post_batch';
  campaignId: string;
  posts: PostResult[];
}
interface PostView {
  id: string;
  status: string;
  text: string;
  scheduledFor: string;
  createdAt: string;
  campaignId: string;
  mediaUrls: string[];
  workspaceId: string;
}

let stack: TestStack;
let backdoor: PostsBackdoor;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startPostsStack();
  backdoor = postsBackdoor(stack);
  user = await provisionUser({
    accounts: [
      { platform: 'x' },
      { platform: 'linkedin' },
      { platform: 'instagram' },
      { platform: 'x', tokenHealth: 'needs_reauth' },
      { platform: 'linkedin', tokenHealth: 'refresh_failed' },
      { platform: 'x', tokenHealth: 'expiring' },
    ],
  });
});

afterAll(async () => {
  backdoor?.close();
  await stack?.stop();
});

const client = (key = user.apiKey) => documentedApi(stack.baseUrl, key);
const ids = () => ({
  x: user.accounts[0]?.id ?? '',
  linkedin: user.accounts[1]?.id ?? '',
  instagram: user.accounts[2]?.id ?? '',
  xExpired: user.accounts[3]?.id ?? '',
  linkedinRefreshFailed: user.accounts[4]?.id ?? '',
  xExpiring: user.accounts[5]?.id ?? '',
});

async function refused(body: unknown, key?: string): Promise<ErrorBody['error'] & { status: number; posts?: PostResult[] }> {
  const response = await client(key).post<ErrorBody>('/posts', body);
  expect(response.status).toBeGreaterThanOrEqual(400);
  return { status: response.status, ...response.body.error, ...(response.body.posts ? { posts: response.body.posts } : {}) };
}

describe('request-level errors', () => {
  it('invalid_body for a body that is not a JSON object, an unknown field, or mistyped ids', async () => {
    for (const rawBody of ['[1]', '"text"', 'null', '{not json', '']) {
      const response = await client().request<ErrorBody>('POST', '/posts', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_body', param: null });
    }
    expect(await refused({ accounts: [ids().x], text: 'a', scheduleFor: minutesFromNow(60) })).toMatchObject({
      code: 'invalid_body',
      param: 'scheduleFor',
    });
    expect(await refused({ accounts: [ids().x], text: 'a', campaignId: 5 })).toMatchObject({ code: 'invalid_body', param: 'campaignId' });
    expect(await refused({ accounts: [ids().x], text: 'a', workspaceId: ['w'] })).toMatchObject({ code: 'invalid_body', param: 'workspaceId' });
  });

  it.each([
    ['accounts missing', { text: 'a' }, 'accounts_required', 'accounts'],
    ['accounts empty', { accounts: [], text: 'a' }, 'accounts_required', 'accounts'],
    ['accounts a string', { accounts: 'acct_1', text: 'a' }, 'accounts_required', 'accounts'],
    ['accounts with a number', { accounts: ['acct_1', 1], text: 'a' }, 'accounts_required', 'accounts'],
    ['26 accounts', { accounts: Array.from({ length: 26 }, (_, i) => `acct_${i}`), text: 'a' }, 'too_many_accounts', 'accounts'],
    ['text null', { accounts: ['acct_1'], text: null }, 'invalid_text', 'text'],
    ['texts null', { accounts: ['acct_1'], texts: null }, 'invalid_texts', 'texts'],
    ['texts for another account', { accounts: ['acct_1'], texts: { acct_2: 'a' } }, 'invalid_texts', 'texts.acct_2'],
    ['media null', { accounts: ['acct_1'], text: 'a', media: null }, 'invalid_media', 'media'],
    ['scheduledFor Feb 30', { accounts: ['acct_1'], text: 'a', scheduledFor: '2027-02-30T10:00:00Z' }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor without time', { accounts: ['acct_1'], text: 'a', scheduledFor: '2026-12-01' }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor without zone', { accounts: ['acct_1'], text: 'a', scheduledFor: '2026-12-01T10:00:00' }, 'invalid_scheduled_for', 'scheduledFor'],
    ['scheduledFor in the past', { accounts: ['acct_1'], text: 'a', scheduledFor: minutesFromNow(-1) }, 'scheduled_for_in_past', 'scheduledFor'],
    ['options unknown platform', { accounts: ['acct_1'], text: 'a', options: { tiktok: {} } }, 'invalid_option', 'options.tiktok'],
    ['options mistyped', { accounts: ['acct_1'], text: 'a', options: { x: { shareWithFollowers: 'yes' } } }, 'invalid_option', 'options.x.shareWithFollowers'],
  ])('%s → %s', async (_name, body, code, param) => {
    expect(await refused(body)).toMatchObject({ status: 400, type: 'invalid_request_error', code, param });
  });

  it('scheduled_for_too_far names the latest accepted time', async () => {
    const failure = await refused({ accounts: [ids().x], text: 'a', scheduledFor: new Date(Date.now() + 31 * 86_400_000).toISOString() });
    expect(failure).toMatchObject({ code: 'scheduled_for_too_far', param: 'scheduledFor' });
    const latest = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)/.exec(failure.message)?.[1] ?? '';
    const latestMs = Date.parse(latest);
    expect(latestMs).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(latestMs).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
  });

  it('invalid_option for a platform that no account of the request is on', async () => {
    expect(await refused({ accounts: [ids().linkedin], text: 'a', options: { x: { communityId: '1' } } })).toMatchObject({
      code: 'invalid_option',
      param: 'options.x',
    });
  });

  it('workspace_required with several workspaces, workspace_not_found for one not owned', async () => {
    const multi = await provisionUser({ workspaces: 2, accounts: [{ platform: 'x', workspaceIndex: 1 }] });
    const accountId = multi.accounts[0]?.id ?? '';
    expect(await refused({ accounts: [accountId], text: 'a' }, multi.apiKey)).toMatchObject({ code: 'workspace_required', param: 'workspaceId' });
    expect(await refused({ accounts: [accountId], text: 'a', workspaceId: user.workspaceIds[0] }, multi.apiKey)).toMatchObject({
      code: 'workspace_not_found',
      param: 'workspaceId',
    });
    // The account is in the second workspace: naming the first rejects it, naming its own accepts it.
    expect(await refused({ accounts: [accountId], text: 'a', workspaceId: multi.workspaceIds[0] }, multi.apiKey)).toMatchObject({
      code: 'account_unresolved',
    });
    const ok = await client(multi.apiKey).post<PostBatch>('/posts', { accounts: [accountId], text: 'a', workspaceId: multi.workspaceIds[1] });
    expect(ok.status).toBe(202);
  });

  it('media_not_hosted for an external URL and for a file of another user', async () => {
    expect(await refused({ accounts: [ids().x], text: 'a', media: ['https://example.com/cat.png'] })).toMatchObject({
      code: 'media_not_hosted',
      param: 'media',
    });
    const other = await provisionUser();
    const foreign = await addMedia(other.userId, { fileName: 'theirs.png' });
    expect(await refused({ accounts: [ids().x], text: 'a', media: [foreign.url] })).toMatchObject({ code: 'media_not_hosted' });
  });

  it('invalid_idempotency_key for a key that cannot be one', async () => {
    const response = await client().post<ErrorBody>('/posts', { accounts: [ids().x], text: 'a' }, { headers: { 'Idempotency-Key': 'x'.repeat(256) } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_idempotency_key', param: 'Idempotency-Key' });
  });
});

describe('per-target results', () => {
  it('accepts what it can and says why for the rest, in request order', async () => {
    const other = await provisionUser({ accounts: [{ platform: 'x' }] });
    const requested = [ids().x, 'acct_doesnotexist00000000', other.accounts[0]?.id ?? '', ids().instagram, ids().xExpired, ids().linkedinRefreshFailed, ids().xExpiring];
    const response = await client().post<PostBatch>('/posts', { accounts: requested, text: 'hello' });
    expect(response.status).toBe(202);
    expect(response.body.posts.map((result) => [result.accountId, result.status, result.reason, result.platform])).toEqual([
      [requested[0], 'accepted', null, 'x'],
      [requested[1], 'rejected', 'account_unresolved', null],
      [requested[2], 'rejected', 'account_unresolved', null],
      [requested[3], 'rejected', 'platform_not_available', 'instagram'],
      [requested[4], 'rejected', 'token_invalid', 'x'],
      [requested[5], 'rejected', 'token_refresh_failed', 'linkedin'],
      [requested[6], 'accepted', null, 'x'],
    ]);
    for (const result of response.body.posts) {
      if (result.status === 'rejected') expect(result.id).toBeNull();
      else expect(result.id).toMatch(/^post_/);
    }
  });

  it('text_empty, text_too_long per platform, with texts overriding text', async () => {
    const response = await client().post<PostBatch>('/posts', {
      accounts: [ids().x, ids().linkedin],
      text: 'a'.repeat(281),
      texts: { [ids().linkedin]: '   ' },
    });
    expect(response.status).toBe(400);
    const body = response.body as unknown as ErrorBody;
    expect(body.error).toMatchObject({ code: 'text_too_long', type: 'invalid_request_error' });
    expect(body.posts?.map((result) => result.reason)).toEqual(['text_too_long', 'text_empty']);

    const fits = await client().post<PostBatch>('/posts', { accounts: [ids().x, ids().linkedin], text: '日'.repeat(140), texts: { [ids().linkedin]: 'a'.repeat(3000) } });
    expect(fits.body.posts.map((result) => result.status)).toEqual(['accepted', 'accepted']);
    const linkedinTooLong = await client().post<PostBatch>('/posts', { accounts: [ids().linkedin], text: 'a'.repeat(3001) });
    expect((linkedinTooLong.body as unknown as ErrorBody).error.code).toBe('text_too_long');
  });

  it('media: accepted when the platform takes it, unsupported_media and video_too_long otherwise', async () => {
    const webp = await addMedia(user.userId, { fileName: 'photo.webp' });
    const video = await addMedia(user.userId, { fileName: 'clip.mp4', contentType: 'video/mp4', durationSeconds: 200 });
    const short = await addMedia(user.userId, { fileName: 'short.mp4', contentType: 'video/mp4', durationSeconds: 20 });
    const webpResult = await client().post<PostBatch>('/posts', { accounts: [ids().x, ids().linkedin], media: [webp.url] });
    expect(webpResult.body.posts.map((result) => result.reason)).toEqual([null, 'unsupported_media']);
    const videoResult = await client().post<PostBatch>('/posts', { accounts: [ids().x, ids().linkedin], media: [video.url] });
    expect(videoResult.body.posts.map((result) => result.reason)).toEqual(['video_too_long', null]);
    const mixed = await client().post<ErrorBody>('/posts', { accounts: [ids().x], text: 'a', media: [short.url, webp.url] });
    expect(mixed.body.error.code).toBe('unsupported_media');
    const accepted = webpResult.body.posts[0]?.id ?? '';
    const view = await client().get<PostView>(`/posts/${accepted}`);
    expect(view.body.mediaUrls).toEqual([webp.url]);
  });

  it('400 with the first target\'s reason and every result when nothing is accepted', async () => {
    const failure = await refused({ accounts: ['acct_nope', ids().instagram], text: 'a' });
    expect(failure).toMatchObject({ status: 400, code: 'account_unresolved', type: 'invalid_request_error' });
    expect(failure.posts?.map((result) => result.reason)).toEqual(['account_unresolved', 'platform_not_available']);
  });
});

describe('the posts that are written', () => {
  it('a post with no scheduledFor is due now and queued; campaignId is generated', async () => {
    await drainQueue(stack, stack.queues.publish.url);
    const response = await client().post<PostBatch>('/posts', { accounts: [ids().x, ids().linkedin], text: 'now' });
    expect(response.status).toBe(202);
    expect(response.body.campaignId).toMatch(/^cmp_/);
    const [first] = response.body.posts;
    const view = await client().get<PostView>(`/posts/${first?.id ?? ''}`);
    expect(view.body).toMatchObject({ status: 'scheduled', text: 'now', campaignId: response.body.campaignId, workspaceId: user.workspaceIds[0] });
    expect(view.body.scheduledFor).toBe(view.body.createdAt);
    // The posts of one due time go as one group message (lib/dispatch/publish-dispatcher.ts).
    const messages = await drainQueue(stack, stack.queues.publish.url);
    const postIds = response.body.posts.map((result) => result.id);
    expect(messages).toEqual([{ kind: 'publish-group', postIds: expect.arrayContaining(postIds), scheduledFor: view.body.scheduledFor }]);
    expect((messages[0] as { postIds: string[] }).postIds).toHaveLength(2);
  });

  it('a post due later than 15 minutes gets a schedule that fires a few minutes early', async () => {
    const scheduledFor = minutesFromNow(120);
    const response = await client().post<PostBatch>('/posts', { accounts: [ids().x], text: 'later', scheduledFor, campaignId: 'spring-launch' });
    expect(response.body.campaignId).toBe('spring-launch');
    const postId = response.body.posts[0]?.id ?? '';
    const schedule = stack.scheduler.list().find((entry) => entry.Name === `post-${postId}`);
    expect(schedule).toBeDefined();
    const fireAt = /^at\((.*)\)$/.exec(schedule?.ScheduleExpression ?? '')?.[1] ?? '';
    const leadMs = Date.parse(scheduledFor) - Date.parse(`${fireAt}Z`);
    expect(leadMs).toBeGreaterThanOrEqual(120_000);
    expect(leadMs).toBeLessThanOrEqual(240_000);
    expect(JSON.parse(schedule?.Target.Input ?? '{}')).toEqual({ kind: 'publish', postId, scheduledFor: new Date(scheduledFor).toISOString() });
    expect(schedule?.Target.Arn).toBe(stack.queues.publish.arn);
  });

  it('a draft sends nothing, keeps its scheduledFor (or its creation time) and spends no allowance', async () => {
    await drainQueue(stack, stack.queues.publish.url);
    const usedBefore = await backdoor.allowanceUsed(user.userId);
    const scheduledFor = minutesFromNow(60);
    const withTime = await client().post<PostBatch>('/posts', { accounts: [ids().x], text: 'draft', draft: true, scheduledFor });
    const withoutTime = await client().post<PostBatch>('/posts', { accounts: [ids().x], text: 'draft', draft: true });
    const a = await client().get<PostView>(`/posts/${withTime.body.posts[0]?.id ?? ''}`);
    const b = await client().get<PostView>(`/posts/${withoutTime.body.posts[0]?.id ?? ''}`);
    expect(a.body).toMatchObject({ status: 'draft', scheduledFor: new Date(scheduledFor).toISOString() });
    expect(b.body.status).toBe('draft');
    expect(b.body.scheduledFor).toBe(b.body.createdAt);
    expect(await drainQueue(stack, stack.queues.publish.url)).toEqual([]);
    expect(stack.scheduler.list().some((entry) => entry.Name === `post-${a.body.id}`)).toBe(false);
    expect(await backdoor.allowanceUsed(user.userId)).toBe(usedBefore);
  });
});

describe('plan allowance', () => {
  it('accepts the first posts that fit and rejects the rest quota_exceeded; drafts are free', async () => {
    const small = await provisionUser({ quota: 2, accounts: [{ platform: 'x' }, { platform: 'linkedin' }, { platform: 'x' }] });
    const accounts = small.accounts.map((account) => account.id);
    const api = documentedApi(stack.baseUrl, small.apiKey);
    const first = await api.post<PostBatch>('/posts', { accounts, text: 'hi' });
    expect(first.body.posts.map((result) => [result.status, result.reason])).toEqual([
      ['accepted', null],
      ['accepted', null],
      ['rejected', 'quota_exceeded'],
    ]);
    const drafts = await api.post<PostBatch>('/posts', { accounts, text: 'hi', draft: true });
    expect(drafts.body.posts.every((result) => result.status === 'accepted')).toBe(true);
    const none = await api.post<ErrorBody>('/posts', { accounts, text: 'hi' });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('quota_exceeded');
    expect(none.body.posts?.every((result) => result.reason === 'quota_exceeded' && result.id === null)).toBe(true);
  });
});

describe('idempotency', () => {
  it('same key and same JSON value: the original 202, same ids, nothing new', async () => {
    const body = { accounts: [ids().x, ids().linkedin], text: 'once', options: { x: { shareWithFollowers: true } } };
    const headers = { 'Idempotency-Key': 'create-once' };
    const first = await client().post<PostBatch>('/posts', body, { headers });
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const reordered = JSON.stringify({ options: { x: { shareWithFollowers: true } }, text: 'once', accounts: body.accounts }, null, 2);
    const replay = await client().request<PostBatch>('POST', '/posts', { rawBody: reordered, headers: { ...headers, 'content-type': 'application/json' } });
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('same key, other body: 422; other user, same key: independent', async () => {
    const headers = { 'Idempotency-Key': 'create-twice' };
    expect((await client().post('/posts', { accounts: [ids().x], text: 'one' }, { headers })).status).toBe(202);
    const reused = await client().post<ErrorBody>('/posts', { accounts: [ids().x], text: 'two' }, { headers });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused', type: 'invalid_request_error' });
    const other = await provisionUser({ accounts: [{ platform: 'x' }] });
    const theirs = await documentedApi(stack.baseUrl, other.apiKey).post('/posts', { accounts: [other.accounts[0]?.id], text: 'one' }, { headers });
    expect(theirs.status).toBe(202);
  });

  it('a refused request is not remembered: fix the body, resend with the same key', async () => {
    const headers = { 'Idempotency-Key': 'fix-and-retry' };
    expect((await client().post('/posts', { accounts: [ids().x], text: 7 }, { headers })).status).toBe(400);
    expect((await client().post('/posts', { accounts: ['acct_unknown'], text: 'a' }, { headers })).status).toBe(400);
    const fixed = await client().post<PostBatch>('/posts', { accounts: [ids().x], text: 'a' }, { headers });
    expect(fixed.status).toBe(202);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('scopes', () => {
  it('write creates drafts only, publish creates posts that go out only, read creates nothing', async () => {
    const readOnly = await createKey(user.userId, ['read']);
    const writeOnly = await createKey(user.userId, ['write']);
    const publishOnly = await createKey(user.userId, ['publish']);
    const post = (key: string, draft: boolean) => documentedApi(stack.baseUrl, key).post<ErrorBody>('/posts', { accounts: [ids().x], text: 'scoped', draft });
    for (const [key, draft, status] of [
      [readOnly.apiKey, true, 403],
      [readOnly.apiKey, false, 403],
      [writeOnly.apiKey, false, 403],
      [publishOnly.apiKey, true, 403],
      [writeOnly.apiKey, true, 202],
      [publishOnly.apiKey, false, 202],
    ] as const) {
      const response = await post(key, draft);
      expect(response.status, `${key.slice(0, 12)} draft=${draft}`).toBe(status);
      if (status === 403) expect(response.body.error).toMatchObject({ code: 'insufficient_scope', type: 'permission_error' });
    }
    const created = await documentedApi(stack.baseUrl, writeOnly.apiKey).post<PostBatch>('/posts', { accounts: [ids().x], text: 'd', draft: true });
    const deleted = await documentedApi(stack.baseUrl, publishOnly.apiKey).delete<ErrorBody>(`/posts/${created.body.posts[0]?.id ?? ''}`);
    expect(deleted.status).toBe(403);
    expect(deleted.body.error.code).toBe('insufficient_scope');
  });
});
