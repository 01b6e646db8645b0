/**
 * Post metrics on the platforms (issue 34): the X and LinkedIn adapters read them from the sandbox
 * platforms over HTTP, and the sandboxes answer as the platforms do: figures that grow with the
 * post's age and agree with the sandbox record, and refusals of what the account may not read, an
 * expired token and a rate limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PlatformAuthError, PlatformRateLimitedError, PlatformRefusedError } from '../../lib/domain/platform-errors.js';
import { LinkedinClient } from '../../lib/platforms/linkedin-client.js';
import { LINKEDIN_API_VERSION } from '../../lib/platforms/linkedin-version.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { figuresAt } from '../../local/sandbox/metrics.js';
import { caught, SandboxAccounts } from '../support/platform-sandbox.js';

const accounts = new SandboxAccounts();
let sandbox: SandboxPlatforms;
let x: XClient;
let linkedin: LinkedinClient;

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({ port: 0, accountBehaviour: accounts.accountBehaviour });
  x = new XClient({ baseUrl: sandbox.xBaseUrl, clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x });
  linkedin = new LinkedinClient({
    baseUrl: sandbox.linkedinBaseUrl,
    oauthBaseUrl: sandbox.linkedinBaseUrl,
    apiVersion: LINKEDIN_API_VERSION,
    clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.linkedin,
  });
});

afterAll(async () => {
  await sandbox?.stop();
});

const DAY_MS = 86_400_000;

interface RecordAnswer {
  at: string;
  x: { accounts: Record<string, { live: { id: string; metrics: Record<string, number> }[]; metricsReads: number }> };
  linkedin: { accounts: Record<string, { live: { id: string; metrics: Record<string, number> }[]; metricsReads: number }> };
}

async function record(accountId: string): Promise<RecordAnswer> {
  const response = await fetch(`${sandbox.origin}/sandbox/record?accountId=${accountId}`);
  return (await response.json()) as RecordAnswer;
}

/** Moves a sandbox post back in time (the sandbox keeps no clock of its own to turn). */
function backdate(platform: 'x' | 'linkedin', accountId: string, postId: string, ageMs: number): void {
  const post = sandbox[platform].listPosts(accountId).find((candidate) => candidate.id === postId);
  if (!post) throw new Error(`no sandbox post ${postId}`);
  post.createdAt = new Date(Date.now() - ageMs);
}

describe('sandbox figures', () => {
  it('are the same at the same moment and never fall as a post ages', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 60 * DAY_MS }), fc.integer({ min: 0, max: 60 * DAY_MS }), (id, a, b) => {
        const created = new Date('2026-01-01T00:00:00Z');
        const early = figuresAt(id, created, new Date(created.getTime() + Math.min(a, b)));
        const late = figuresAt(id, created, new Date(created.getTime() + Math.max(a, b)));
        expect(figuresAt(id, created, new Date(created.getTime() + a))).toEqual(figuresAt(id, created, new Date(created.getTime() + a)));
        for (const name of Object.keys(early) as (keyof typeof early)[]) expect(late[name]).toBeGreaterThanOrEqual(early[name]);
      }),
    );
    const created = new Date('2026-01-01T00:00:00Z');
    expect(figuresAt('p', created, created).impressions).toBe(0);
    expect(figuresAt('p', created, new Date(created.getTime() + 7 * DAY_MS)).impressions).toBeGreaterThan(figuresAt('p', created, new Date(created.getTime() + 3_600_000)).impressions);
  });
});

describe('X: GET /2/tweets with public_metrics and non_public_metrics', () => {
  it('reads up to 100 posts in one request, figures between two readings of the record, clicks within 30 days only, a deleted post gone', async () => {
    const { account, accessToken } = accounts.create('x', 'ok', { platformUserId: '1234567890', handle: '@m', accountType: 'personal' });
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await x.publish({ account, accessToken, text: `Metrics ${index}`, media: [], options: {} })).platformPostId);
    backdate('x', account.id, ids[0]!, 2 * DAY_MS);
    backdate('x', account.id, ids[1]!, 31 * DAY_MS);
    await x.deletePost({ account, accessToken, platformPostId: ids[2]! });

    const before = await record(account.id);
    const figures = await x.fetchMetrics({ account, accessToken, platformPostIds: ids });
    const after = await record(account.id);
    const recent = figures.get(ids[0]!);
    const old = figures.get(ids[1]!);
    expect(figures.get(ids[2]!)).toBeNull();
    // The record counts the metrics requests the account's reads made (the bench's requests per 1,000 posts): three posts, one request.
    expect(after.x.accounts[account.id]!.metricsReads - before.x.accounts[account.id]!.metricsReads).toBe(1);
    const seen = (answer: RecordAnswer, id: string) => answer.x.accounts[account.id]!.live.find((post) => post.id === id)!.metrics;
    expect(recent?.impressions).toBeGreaterThan(0);
    expect(recent!.impressions).toBeGreaterThanOrEqual(seen(before, ids[0]!).impressions!);
    expect(recent!.impressions).toBeLessThanOrEqual(seen(after, ids[0]!).impressions!);
    expect(recent?.clicks).toEqual(expect.any(Number));
    // Past 30 days X refuses non_public_metrics for the post: clicks are not given (null, not 0).
    expect(old?.clicks).toBeNull();
    expect(old?.likes).toEqual(expect.any(Number));
  });

  it('refuses an expired token (401) and a rate limit (429 with its reset)', async () => {
    const expired = accounts.create('x', 'expired', { platformUserId: '1', handle: '@e', accountType: 'personal' });
    expect(await caught(x.fetchMetrics({ ...expired, platformPostIds: ['1999999999999999999'] }))).toBeInstanceOf(PlatformAuthError);
    const { account, accessToken } = accounts.create('x', 'ok', { platformUserId: '2', handle: '@r', accountType: 'personal' });
    sandbox.x.injectFault(account.id, 'metrics_rate_limited');
    const limited = await caught(x.fetchMetrics({ account, accessToken, platformPostIds: ['1999999999999999999'] }));
    expect(limited).toBeInstanceOf(PlatformRateLimitedError);
    expect((limited as PlatformRateLimitedError).resetAt?.getTime()).toBeGreaterThan(Date.now());
  });
});

describe('LinkedIn: organization share statistics, member post analytics, socialActions', () => {
  it("an organization's posts in one request: impressions and clicks; quotes and bookmarks not given", async () => {
    const { account, accessToken } = accounts.create('linkedin', 'ok', { platformUserId: '5515715', handle: 'Acme', accountType: 'organization' });
    const one = await linkedin.publish({ account, accessToken, text: 'Org metrics one', media: [], options: {} });
    const two = await linkedin.publish({ account, accessToken, text: 'Org metrics two', media: [], options: {} });
    backdate('linkedin', account.id, one.platformPostId, DAY_MS);
    const figures = await linkedin.fetchMetrics({ account, accessToken, platformPostIds: [one.platformPostId, two.platformPostId] });
    // Two posts, one organizationalEntityShareStatistics request, as the record counts it.
    expect((await record(account.id)).linkedin.accounts[account.id]!.metricsReads).toBe(1);
    expect(figures.get(one.platformPostId)).toMatchObject({ impressions: expect.any(Number), clicks: expect.any(Number), quotes: null, bookmarks: null });
    expect(figures.get(one.platformPostId)!.impressions).toBeGreaterThan(figures.get(two.platformPostId)!.impressions ?? 0);
  });

  it("a member's post: impressions, reactions, comments, reshares; clicks not given; a deleted post gone", async () => {
    const { account, accessToken } = accounts.create('linkedin', 'ok', { platformUserId: 'abc123', handle: 'Ann', accountType: 'personal' });
    const post = await linkedin.publish({ account, accessToken, text: 'Member metrics', media: [], options: {} });
    backdate('linkedin', account.id, post.platformPostId, 3 * DAY_MS);
    const figures = await linkedin.fetchMetrics({ account, accessToken, platformPostIds: [post.platformPostId] });
    // A member's post: two memberCreatorPostAnalytics (impressions, reshares) and its socialActions summary.
    expect((await record(account.id)).linkedin.accounts[account.id]!.metricsReads).toBe(3);
    expect(figures.get(post.platformPostId)).toMatchObject({ impressions: expect.any(Number), likes: expect.any(Number), comments: expect.any(Number), reposts: expect.any(Number), clicks: null });
    await linkedin.deletePost({ account, accessToken, platformPostId: post.platformPostId });
    expect((await linkedin.fetchMetrics({ account, accessToken, platformPostIds: [post.platformPostId] })).get(post.platformPostId)).toBeNull();
  });

  it('refuses what the account type may not read, an expired token and a rate limit', async () => {
    const member = accounts.create('linkedin', 'ok', { platformUserId: 'm1', handle: 'M', accountType: 'personal' });
    const post = await linkedin.publish({ ...member, text: 'Not an organization post', media: [], options: {} });
    // A member is no organizational entity: share statistics are refused.
    const asOrganization = { ...member.account, accountType: 'organization' as const };
    expect(await caught(linkedin.fetchMetrics({ account: asOrganization, accessToken: member.accessToken, platformPostIds: [post.platformPostId] }))).toBeInstanceOf(PlatformRefusedError);
    // An organization's post has no member analytics.
    const organization = accounts.create('linkedin', 'ok', { platformUserId: '77', handle: 'Org', accountType: 'organization' });
    const orgPost = await linkedin.publish({ ...organization, text: 'Organization post', media: [], options: {} });
    const asMember = { ...organization.account, accountType: 'personal' as const };
    expect(await caught(linkedin.fetchMetrics({ account: asMember, accessToken: organization.accessToken, platformPostIds: [orgPost.platformPostId] }))).toBeInstanceOf(PlatformRefusedError);
    const expired = accounts.create('linkedin', 'expired', { platformUserId: 'e1', handle: 'E', accountType: 'personal' });
    expect(await caught(linkedin.fetchMetrics({ ...expired, platformPostIds: ['urn:li:share:1'] }))).toBeInstanceOf(PlatformAuthError);
    sandbox.linkedin.injectFault(member.account.id, 'metrics_rate_limited');
    expect(await caught(linkedin.fetchMetrics({ ...member, platformPostIds: [post.platformPostId] }))).toBeInstanceOf(PlatformRateLimitedError);
  });
});
