/**
 * The settings Analytics page and a post's metrics page, over HTTP and in Chromium, against the
 * local stack with posts published to the sandbox X and their metrics collected by a refresh (as
 * test/http/post-metrics.test.ts does): the page's totals are GET /analytics's for the same period
 * (the same use case), another workspace's post is not found, a bad period is a clear 400 page,
 * and both pages are axe clean at phone and desktop widths. Screenshots go to docs/screenshots.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbIdentityStore } from '../../lib/store/dynamodb-identity-store.js';
import { formatFigure } from '../../lib/web/chart.js';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { DESKTOP, launchChromium, PHONE, screenshot, signIn } from '../support/browser.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount, provisionUser, type ProvisionedUser } from '../support/provision.js';
import { settingsSession } from '../support/settings-session.js';
import type { TestStack } from '../support/stack.js';

type FigureName = 'impressions' | 'likes' | 'comments' | 'reposts' | 'quotes' | 'bookmarks' | 'clicks';
interface PostView {
  id: string;
  status: string;
  platformPostId: string | null;
  metrics: (Record<FigureName, number | null> & { collectedAt: string }) | null;
}
interface Analytics {
  totals: { posts: number } & Record<FigureName, number | null>;
}

const PASSWORD = 'a long local password';
const DAY_MS = 86_400_000;
let stack: TestStack;
let sandbox: SandboxPlatforms;
let browser: Browser;
let owner: ProvisionedUser;
let stranger: ProvisionedUser;
const published: PostView[] = [];
const api = () => documentedApi(stack.baseUrl, owner.apiKey);

async function publish(accountId: string, text: string): Promise<PostView> {
  const response = await api().post<{ posts: { id: string }[] }>('/posts', { accounts: [accountId], text });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const id = response.body.posts[0]?.id as string;
  const deadline = Date.now() + 45_000;
  for (;;) {
    const post = await api().get<PostView>(`/posts/${id}`);
    if (post.body.status === 'published') return post.body;
    if (post.body.status === 'failed' || Date.now() > deadline) throw new Error(`post ${id} did not publish: ${JSON.stringify(post.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** A signed-in browser's requests of `user`: a GET, or a POST when a form is given. */
async function sessionOf(user: ProvisionedUser): Promise<(path: string, form?: Record<string, string>) => Promise<Response>> {
  const browser = await settingsSession(stack, user);
  return (path, form) => (form ? browser.post(path, form) : browser.get(path));
}

/** The figure a page's `<dl class="figures">` shows under `name`. */
function shown(page: string, name: string): string | undefined {
  return new RegExp(`<dt>${name}</dt><dd>([^<]*)</dd>`).exec(page)?.[1];
}

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sweeper: false, sandbox: true });
  if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
  sandbox = stack.sandbox;
  owner = await provisionUser();
  stranger = await provisionUser();
  const first = await connectAccount(owner.workspaceIds[0] as string, { platform: 'x', handle: '@charts_a', name: 'Charts on X' });
  const second = await connectAccount(owner.workspaceIds[0] as string, { platform: 'x', handle: '@charts_b', name: 'Second on X' });
  const accounts = [first.id, first.id, second.id];
  for (const [index, accountId] of accounts.entries()) {
    const post = await publish(accountId, `Chart me ${index + 1}`);
    // As if it went out hours ago, so the sandbox has figures that grow with its age.
    const held = sandbox.x.listPosts(accountId).find((item) => item.id === post.platformPostId);
    if (!held) throw new Error('not on the sandbox');
    held.createdAt = new Date(Date.now() - (index + 2) * 3 * 3_600_000);
    const refreshed = await api().post(`/posts/${post.id}/metrics/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    published.push((await api().get<PostView>(`/posts/${post.id}`)).body);
  }
  browser = await launchChromium();
  const login = await stack.oidc.accounts.create('charts@example.com', PASSWORD);
  await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity({ issuer: stack.oidc.issuer, subject: login.id, email: 'charts@example.com' }, owner.userId);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('settings analytics over HTTP', () => {
  it("shows GET /analytics's totals for the same period, which are the sum of the posts", async () => {
    const get = await sessionOf(owner);
    const response = await get('/settings/analytics?days=7');
    expect(response.status).toBe(200);
    const page = await response.text();
    const now = new Date();
    const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS;
    const answer = await api().get<Analytics>(`/analytics?from=${new Date(to - 7 * DAY_MS).toISOString()}&to=${new Date(to).toISOString()}`);
    expect(answer.body.totals.posts).toBe(3);
    const sum = (name: FigureName) => published.reduce((total, post) => total + (post.metrics?.[name] ?? 0), 0);
    expect(answer.body.totals.impressions).toBe(sum('impressions'));
    expect(answer.body.totals.impressions).toBeGreaterThan(0);
    expect(shown(page, 'Posts published')).toBe('3');
    expect(shown(page, 'Impressions')).toBe(formatFigure(answer.body.totals.impressions));
    expect(shown(page, 'Likes')).toBe(formatFigure(answer.body.totals.likes));
    expect(page).toContain('role="img"');
    expect(page).toContain('Charts on X');
    for (const post of published) expect(page).toContain(`/settings/posts/${post.id}/metrics`);
  });

  it('keeps each workspace to its own: another user sees no posts and a not found for the post', async () => {
    const get = await sessionOf(stranger);
    const page = await (await get('/settings/analytics')).text();
    expect(shown(page, 'Posts published')).toBe('0');
    expect(page).not.toContain(published[0]!.id);
    const foreign = await get(`/settings/posts/${published[0]!.id}/metrics`);
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toMatch(/could not find that post/);
    expect((await get('/settings/posts/not-a-post/metrics')).status).toBe(404);
  });

  it('answers a bad period with a clear 400 page, and a post with its history', async () => {
    const get = await sessionOf(owner);
    for (const days of ['365', 'abc', '7%3Cscript%3E']) {
      const response = await get(`/settings/analytics?days=${days}`);
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain('The period must be 7, 30, 90 days.');
      expect(page).not.toContain('<script>');
    }
    const post = published[2]!;
    const response = await get(`/settings/posts/${post.id}/metrics`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(shown(page, 'Impressions')).toBe(formatFigure(post.metrics!.impressions));
    expect(page).toContain('<polyline');
  });

  it('refreshes through the API use case: too soon is refused and said, a wrong token and a foreign post are refused', async () => {
    const post = published[0]!;
    const owned = await sessionOf(owner);
    const soon = await owned(`/settings/posts/${post.id}/metrics/refresh`, {});
    expect(soon.status).toBe(303);
    expect(soon.headers.get('location')).toMatch(new RegExp(`^/settings/posts/${post.id}/metrics\\?refused=too_soon&after=\\d+$`));
    const said = await (await owned(soon.headers.get('location')!)).text();
    expect(said).toMatch(/role="alert">Not refreshed: a post&#39;s metrics can be refreshed once every 5 minutes\. Try again in \d+ s\./);
    expect((await owned(`/settings/posts/${post.id}/metrics/refresh`, { _csrf: 'forged' })).status).toBe(403);
    expect((await (await sessionOf(stranger))(`/settings/posts/${post.id}/metrics/refresh`, {})).status).toBe(404);
  });
});

describe('settings analytics in Chromium', () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`the Analytics page and a post's metrics are readable and axe clean (${name})`, async () => {
      const context = await browser.newContext({ viewport });
      const page: Page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${stack.origin}/settings/analytics`);
      await signIn(page, 'charts@example.com', PASSWORD);
      await page.waitForURL(`${stack.origin}/settings/analytics`);
      await page.getByLabel('Period').selectOption('7');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/days=7$/);
      const chartImage = page.getByRole('img', { name: /Impressions of the posts published each day/ });
      expect(await chartImage.count()).toBe(1);
      // The chart fits the column: no sideways scrolling at phone width.
      const box = await chartImage.boundingBox();
      expect(box!.width).toBeLessThanOrEqual(viewport.width);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
      await screenshot(page, `settings-analytics-${name}`);

      await page.getByRole('link', { name: published[2]!.id }).click();
      await page.waitForURL(`${stack.origin}/settings/posts/${published[2]!.id}/metrics`);
      expect(await page.getByRole('img', { name: /Impressions at each collection/ }).count()).toBe(1);
      await page.getByRole('button', { name: 'Refresh metrics' }).click();
      await page.waitForURL(/refused=too_soon/);
      expect(await page.getByRole('alert').textContent()).toMatch(/once every 5 minutes/);
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
      await screenshot(page, `settings-post-metrics-${name}`);
      await context.close();
    }, 90_000);
  }
});
