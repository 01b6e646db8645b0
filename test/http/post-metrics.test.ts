/**
 * Post metrics through the HTTP API against the local stack and the sandbox platforms
 * (beyond-v2.md, "Post metrics"); every response is checked against openapi.yaml. The scheduled
 * collection (1 h after publishing and on) is test/store/collect-metrics.test.ts's, with a clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

type Figures = Record<'impressions' | 'likes' | 'comments' | 'reposts' | 'quotes' | 'bookmarks' | 'clicks', number | null> & { collectedAt: string };
interface PostView {
  id: string;
  status: string;
  platformPostId: string | null;
  metrics: Figures | null;
}
interface MetricsView {
  object: 'post_metrics';
  postId: string;
  metrics: Figures | null;
  history: Figures[];
}
interface Analytics {
  totals: { posts: number } & Omit<Figures, 'collectedAt'>;
  byAccount: ({ accountId: string; posts: number } & Omit<Figures, 'collectedAt'>)[];
  topPosts: string[];
  byDay: { date: string; posts: number }[];
}

let stack: TestStack;
let sandbox: SandboxPlatforms;
let user: ProvisionedUser;
const client = () => documentedApi(stack.baseUrl, user.apiKey);

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sweeper: false, sandbox: true });
  if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
  sandbox = stack.sandbox;
  user = await provisionUser();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function published(accountId: string, text: string): Promise<PostView> {
  const response = await client().post<{ posts: { id: string }[] }>('/posts', { accounts: [accountId], text });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const id = response.body.posts[0]?.id as string;
  const deadline = Date.now() + 45_000;
  for (;;) {
    const post = await client().get<PostView>(`/posts/${id}`);
    if (post.body.status === 'published') return post.body;
    if (post.body.status === 'failed' || Date.now() > deadline) throw new Error(`post ${id} did not publish: ${JSON.stringify(post.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** The sandbox post as if it had gone out `ageMs` ago, so it has figures to show. */
function age(accountId: string, platformPostId: string, ageMs: number): void {
  const held = sandbox.x.listPosts(accountId).find((post) => post.id === platformPostId);
  if (!held) throw new Error('not on the sandbox');
  held.createdAt = new Date(Date.now() - ageMs);
}

describe('post metrics', () => {
  it('null until collected; a refresh collects now, once per 5 minutes; the post, its list and its history show the figures', async () => {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', handle: '@metrics_api' });
    const post = await published(account.id, 'How did this one do?');
    expect(post.metrics).toBeNull();
    const before = await client().get<MetricsView>(`/posts/${post.id}/metrics`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ object: 'post_metrics', postId: post.id, metrics: null, history: [] });

    age(account.id, post.platformPostId!, 3 * 3_600_000);
    const refreshed = await client().post<MetricsView>(`/posts/${post.id}/metrics/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.metrics).toMatchObject({ impressions: expect.any(Number), clicks: expect.any(Number), likes: expect.any(Number) });
    expect(refreshed.body.metrics!.impressions).toBeGreaterThan(0);
    expect(refreshed.body.history).toEqual([refreshed.body.metrics]);
    expect((await client().get<PostView>(`/posts/${post.id}`)).body.metrics).toEqual(refreshed.body.metrics);
    const listed = await client().get<{ posts: PostView[] }>('/posts?limit=5');
    expect(listed.body.posts.find((item) => item.id === post.id)?.metrics).toEqual(refreshed.body.metrics);

    const again = await client().post<{ error: { code: string } }>(`/posts/${post.id}/metrics/refresh`);
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe('metrics_refresh_too_soon');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(300);
  });

  it('refuses a post not published (409) and anyone else\'s (404)', async () => {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', handle: '@metrics_later' });
    const later = await client().post<{ posts: { id: string }[] }>('/posts', { accounts: [account.id], text: 'Later', scheduledFor: new Date(Date.now() + 86_400_000).toISOString() });
    const id = later.body.posts[0]?.id as string;
    const refused = await client().post<{ error: { code: string } }>(`/posts/${id}/metrics/refresh`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('post_not_published');
    const other = await provisionUser();
    const foreign = await documentedApi(stack.baseUrl, other.apiKey).get<{ error: { code: string } }>(`/posts/${id}/metrics`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('post_not_found');
  });

  it('analytics: totals are the sum of their posts, per account and top posts; at most 92 days', async () => {
    const first = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', handle: '@metrics_a' });
    const second = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', handle: '@metrics_b' });
    const posts = [await published(first.id, 'Analytics one'), await published(first.id, 'Analytics two'), await published(second.id, 'Analytics three')];
    const accountOf = [first.id, first.id, second.id];
    for (const [index, post] of posts.entries()) {
      age(accountOf[index]!, post.platformPostId!, (index + 1) * 3_600_000);
      expect((await client().post(`/posts/${post.id}/metrics/refresh`)).status).toBe(200);
    }
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const answer = await client().get<Analytics>(`/analytics?from=${from}&to=${to}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const views = (await client().get<{ posts: PostView[] }>('/posts?limit=100')).body.posts.filter((post) => post.status === 'published');
    const sum = (name: 'impressions' | 'likes' | 'clicks') => views.reduce((total, view) => total + (view.metrics?.[name] ?? 0), 0);
    expect(answer.body.totals.posts).toBe(views.length);
    expect(answer.body.totals.impressions).toBe(sum('impressions'));
    expect(answer.body.totals.likes).toBe(sum('likes'));
    expect(answer.body.totals.clicks).toBe(sum('clicks'));
    expect(answer.body.byAccount.reduce((total, row) => total + (row.impressions ?? 0), 0)).toBe(answer.body.totals.impressions);
    expect(answer.body.byDay.reduce((total, day) => total + day.posts, 0)).toBe(answer.body.totals.posts);
    const top = [...views].sort((a, b) => (b.metrics?.impressions ?? -1) - (a.metrics?.impressions ?? -1))[0];
    expect(answer.body.topPosts[0]).toBe(top?.id);

    const one = await client().get<Analytics>(`/analytics?from=${from}&to=${to}&accountId=${second.id}`);
    expect(one.body.totals.posts).toBe(1);
    expect(one.body.totals.impressions).toBe(views.find((view) => view.id === posts[2]!.id)?.metrics?.impressions);

    const tooLong = await client().get<{ error: { code: string } }>(`/analytics?from=2026-01-01T00:00:00Z&to=2026-04-04T00:00:00Z`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('invalid_period');
    expect((await client().get<{ error: { code: string } }>('/analytics?from=yesterday&to=today')).body.error.code).toBe('invalid_period');
  });
});
