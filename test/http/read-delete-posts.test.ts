/**
 * GET /posts/{id}, GET /posts and DELETE /posts/{id} through HTTP against the local stack: tenant
 * isolation, pagination and its cursor, and every delete transition. Where a post must be in a
 * state only the publish worker produces (being sent, published, failed), the test moves it there
 * with the same store methods the worker uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedApi } from '../support/openapi.js';
import { drainQueue, minutesFromNow, postsBackdoor, startPostsStack, type PostsBackdoor } from '../support/posts.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null };
}
interface PostView {
  object: 'post';
  id: string;
  status: string;
  createdAt: string;
}
interface PostList {
  object: 'list';
  posts: PostView[];
  nextCursor: string | null;
}
interface PostBatch {
  posts: { id: string | null; status: string }[];
}
interface PostDeleted {
  object: 'post_deleted';
  id: string;
  softDeleted: boolean;
  platformDeletionQueuedFor: string[];
}

let stack: TestStack;
let backdoor: PostsBackdoor;

beforeAll(async () => {
  stack = await startPostsStack();
  backdoor = postsBackdoor(stack);
});

afterAll(async () => {
  backdoor?.close();
  await stack?.stop();
});

async function newUser(quota?: number): Promise<ProvisionedUser & { api: ReturnType<typeof documentedApi>; create: (body?: object) => Promise<string> }> {
  const user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }], ...(quota === undefined ? {} : { quota }) });
  const api = documentedApi(stack.baseUrl, user.apiKey);
  const create = async (body: object = {}): Promise<string> => {
    const response = await api.post<PostBatch>('/posts', { accounts: [user.accounts[0]?.id], text: 'hello', ...body });
    const id = response.body.posts[0]?.id;
    if (response.status !== 202 || !id) throw new Error(`create failed: ${response.text}`);
    return id;
  };
  return { ...user, api, create };
}

async function listAll(api: ReturnType<typeof documentedApi>, query: string): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = await api.get<PostList>(`/posts?${query}${suffix}`);
    expect(page.status).toBe(200);
    ids.push(...page.body.posts.map((post) => post.id));
    sizes.push(page.body.posts.length);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return { ids, sizes };
}

describe('GET /posts/{id}', () => {
  it('returns the caller\'s post, and 404 post_not_found for unknown, malformed, foreign and deleted ones', async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const postId = await owner.create();
    expect((await owner.api.get<PostView>(`/posts/${postId}`)).body).toMatchObject({ object: 'post', id: postId, status: 'scheduled' });
    for (const [api, path] of [
      [owner.api, '/posts/post_00000000000000000000'],
      [owner.api, '/posts/not-a-post-id'],
      [owner.api, `/posts/${'p'.repeat(3000)}`],
      [stranger.api, `/posts/${postId}`],
    ] as const) {
      const response = await api.get<ErrorBody>(path);
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'post_not_found' });
    }
    expect((await stranger.api.delete(`/posts/${postId}`)).status).toBe(404);
    expect((await owner.api.get(`/posts/${postId}`)).status).toBe(200);
    const unknownParameter = await owner.api.get<ErrorBody>(`/posts/${postId}?expand=all`);
    expect(unknownParameter.status).toBe(400);
    expect(unknownParameter.body.error).toMatchObject({ code: 'invalid_query', param: 'expand' });
  });
});

describe('GET /posts', () => {
  it('pages newest first over more than 3 pages with no duplicate and no gap, also by status', async () => {
    const user = await newUser();
    const created: string[] = [];
    for (let index = 0; index < 13; index++) created.push(await user.create(index % 3 === 0 ? { draft: true } : {}));
    const all = await listAll(user.api, 'limit=3');
    expect(all.ids).toEqual([...created].reverse());
    expect(all.sizes).toEqual([3, 3, 3, 3, 1]);
    const drafts = await listAll(user.api, 'limit=2&status=draft');
    expect(drafts.ids).toEqual(created.filter((_, index) => index % 3 === 0).reverse());
    expect(drafts.sizes).toEqual([2, 2, 1]);
    const scheduled = await listAll(user.api, 'status=scheduled');
    expect(scheduled.ids).toEqual(created.filter((_, index) => index % 3 !== 0).reverse());
    expect(scheduled.sizes).toEqual([8]);
    expect((await user.api.get<PostList>('/posts?status=published')).body).toEqual({ object: 'list', posts: [], nextCursor: null });
    // Another user sees none of them.
    expect((await (await newUser()).api.get<PostList>('/posts')).body.posts).toEqual([]);
  });

  it('refuses a cursor that is changed, forged, someone else\'s or for another filter', async () => {
    const user = await newUser();
    for (let index = 0; index < 3; index++) await user.create();
    const page = await user.api.get<PostList>('/posts?limit=1');
    const cursor = page.body.nextCursor ?? '';
    expect(cursor).not.toBe('');
    const [version, payload, signature] = cursor.split('.') as [string, string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k: Record<string, string> };
    const forgedPayload = Buffer.from(JSON.stringify({ ...decoded, k: { ...decoded.k, listSk: '9999' } })).toString('base64url');
    const other = await newUser();
    for (const [api, query] of [
      [user.api, `limit=1&cursor=${encodeURIComponent(`${version}.${forgedPayload}.${signature}`)}`],
      [user.api, `limit=1&cursor=${encodeURIComponent(`${cursor}x`)}`],
      [user.api, 'limit=1&cursor=garbage'],
      [user.api, `limit=1&status=scheduled&cursor=${encodeURIComponent(cursor)}`],
      [other.api, `limit=1&cursor=${encodeURIComponent(cursor)}`],
    ] as const) {
      const response = await api.get<ErrorBody>(`/posts?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_cursor', param: 'cursor' });
    }
    const next = await user.api.get<PostList>(`/posts?limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect(next.status).toBe(200);
    expect(next.body.posts).toHaveLength(1);
  });

  it.each([
    ['status=sent', 'invalid_status', 'status'],
    ['status=', 'invalid_status', 'status'],
    ['limit=0', 'invalid_limit', 'limit'],
    ['limit=101', 'invalid_limit', 'limit'],
    ['limit=1.5', 'invalid_limit', 'limit'],
    ['limit=abc', 'invalid_limit', 'limit'],
    ['page=2', 'invalid_query', 'page'],
  ])('%s → %s', async (query, code, param) => {
    const user = await newUser();
    const response = await user.api.get<ErrorBody>(`/posts?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code, param });
  });
});

describe('DELETE /posts/{id}', () => {
  it('cancels a scheduled post: gone from every read, unit given back, schedule deleted', async () => {
    const user = await newUser(1);
    const postId = await user.create({ scheduledFor: minutesFromNow(90) });
    expect(stack.scheduler.list().some((schedule) => schedule.Name === `post-${postId}`)).toBe(true);
    expect(await backdoor.allowanceUsed(user.userId)).toBe(1);
    const spent = await user.api.post<{ error: { code: string } }>('/posts', { accounts: [user.accounts[0]?.id], text: 'more' });
    expect(spent.body.error.code).toBe('quota_exceeded');

    const deleted = await user.api.delete<PostDeleted>(`/posts/${postId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'post_deleted', id: postId, softDeleted: false, platformDeletionQueuedFor: [] });
    expect((await user.api.get(`/posts/${postId}`)).status).toBe(404);
    expect((await user.api.get<PostList>('/posts')).body.posts).toEqual([]);
    expect((await user.api.get<PostList>('/posts?status=scheduled')).body.posts).toEqual([]);
    expect(await backdoor.allowanceUsed(user.userId)).toBe(0);
    expect(stack.scheduler.list().some((schedule) => schedule.Name === `post-${postId}`)).toBe(false);
    expect(await backdoor.item(postId)).toBeUndefined();
    // The unit is back: the next post fits again.
    expect((await user.api.post('/posts', { accounts: [user.accounts[0]?.id], text: 'again' })).status).toBe(202);
    // A second delete finds nothing.
    expect((await user.api.delete<ErrorBody>(`/posts/${postId}`)).body.error.code).toBe('post_not_found');
  });

  it('removes a draft and a failed post (softDeleted false)', async () => {
    const user = await newUser();
    const draft = await user.create({ draft: true });
    const failed = await user.create();
    expect(await backdoor.fail(failed)).toMatchObject({ status: 'failed' });
    expect((await user.api.get<PostList>('/posts?status=failed')).body.posts.map((post) => post.id)).toEqual([failed]);
    for (const postId of [draft, failed]) {
      const deleted = await user.api.delete<PostDeleted>(`/posts/${postId}?deleteFromPlatform=true`);
      expect(deleted.body).toEqual({ object: 'post_deleted', id: postId, softDeleted: false, platformDeletionQueuedFor: [] });
      expect((await user.api.get(`/posts/${postId}`)).status).toBe(404);
    }
    expect((await user.api.get<PostList>('/posts')).body.posts).toEqual([]);
  });

  it('soft-deletes a published post; only deleteFromPlatform=true queues the deletion of the live post', async () => {
    const user = await newUser();
    await drainQueue(stack, stack.queues.deletion.url);
    const kept = await user.create();
    const removed = await user.create();
    const ignored = await user.create();
    for (const postId of [kept, removed, ignored]) await backdoor.publish(postId);
    expect((await user.api.get<PostList>('/posts?status=published')).body.posts).toHaveLength(3);

    const plain = await user.api.delete<PostDeleted>(`/posts/${kept}`);
    expect(plain.body).toEqual({ object: 'post_deleted', id: kept, softDeleted: true, platformDeletionQueuedFor: [] });
    const notExactlyTrue = await user.api.delete<PostDeleted>(`/posts/${ignored}?deleteFromPlatform=yes`);
    expect(notExactlyTrue.body.platformDeletionQueuedFor).toEqual([]);
    const fromPlatform = await user.api.delete<PostDeleted>(`/posts/${removed}?deleteFromPlatform=true`);
    expect(fromPlatform.body).toEqual({ object: 'post_deleted', id: removed, softDeleted: true, platformDeletionQueuedFor: ['x'] });

    expect(await drainQueue(stack, stack.queues.deletion.url)).toEqual([{ kind: 'delete-from-platform', postId: removed }]);
    for (const postId of [kept, removed, ignored]) {
      expect((await user.api.get(`/posts/${postId}`)).status).toBe(404);
      // The record is kept (soft delete), out of every index.
      const item = await backdoor.item(postId);
      expect(item).toMatchObject({ status: 'published', deletedAt: expect.any(String) });
      expect(item).not.toHaveProperty('listPk');
    }
    expect((await backdoor.item(removed))?.deleteFromPlatformRequested).toBe(true);
    expect((await user.api.get<PostList>('/posts')).body.posts).toEqual([]);
    expect((await user.api.get<PostList>('/posts?status=published')).body.posts).toEqual([]);
  });

  it('a post being sent stays deleted for every read; the worker learns that deletion from the platform was asked', async () => {
    const user = await newUser(5);
    const postId = await user.create();
    await backdoor.claim(postId);
    const deleted = await user.api.delete<PostDeleted>(`/posts/${postId}?deleteFromPlatform=true`);
    expect(deleted.body).toEqual({ object: 'post_deleted', id: postId, softDeleted: true, platformDeletionQueuedFor: ['x'] });
    // Not cancelled: the unit stays spent, since the post may be live.
    expect(await backdoor.allowanceUsed(user.userId)).toBe(1);
    const published = await backdoor.publish(postId);
    expect(published).toMatchObject({ status: 'published', deleteFromPlatformRequested: true, deletedAt: expect.any(String) });
    expect((await user.api.get(`/posts/${postId}`)).status).toBe(404);
    expect((await user.api.get<PostList>('/posts?status=published')).body.posts).toEqual([]);
    expect((await user.api.delete(`/posts/${postId}`)).status).toBe(404);
  });

  it('refuses unknown query parameters', async () => {
    const user = await newUser();
    const postId = await user.create({ draft: true });
    const response = await user.api.delete<ErrorBody>(`/posts/${postId}?deleteFromPlatfrom=true`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_query', param: 'deleteFromPlatfrom' });
    expect((await user.api.get(`/posts/${postId}`)).status).toBe(200);
  });
});
