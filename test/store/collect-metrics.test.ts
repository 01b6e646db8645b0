/**
 * Collecting post metrics (lib/use-cases/collect-metrics.ts) against DynamoDB Local (the shared
 * tables of the test global setup) and the sandbox platforms over HTTP. The collector's clock is
 * set in the year 2000, so the byMetricsDue Queries see only this file's posts, never the other
 * files' (published in the present). Accounts and their tokens are in memory: how tokens are
 * read and refreshed is access-tokens' own test.
 */
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newId, randomToken } from '../../lib/domain/ids.js';
import type { Account, Post } from '../../lib/domain/model.js';
import { firstMetricsDueAt } from '../../lib/domain/post-metrics.js';
import { LinkedinClient } from '../../lib/platforms/linkedin-client.js';
import { LINKEDIN_API_VERSION } from '../../lib/platforms/linkedin-version.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { DynamoDbPostMetrics } from '../../lib/store/dynamodb-post-metrics.js';
import { metricsDueKeys, postToItem } from '../../lib/store/post-item.js';
import { METRICS_DUE_SHARDS } from '../../lib/store/tables.js';
import { CollectMetrics } from '../../lib/use-cases/collect-metrics.js';
import type { Clock } from '../../lib/use-cases/ports/clock.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { accountFixture } from '../support/account-fixture.js';
import { SandboxAccounts } from '../support/platform-sandbox.js';
import { postFixture } from '../support/post-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const postsTable = sharedTables.posts ?? '';
const store = new DynamoDbPostMetrics({ client, postsTable });
const HOUR_MS = 3_600_000;
const NOW = new Date('2000-01-01T12:00:00.000Z');

const sandboxAccounts = new SandboxAccounts();
let sandbox: SandboxPlatforms;
let x: XClient;
let linkedin: LinkedinClient;
const accounts = new Map<string, Account>();
const tokens = new Map<string, string>();
const owner = { userId: `user_${randomToken(20)}`, workspaceId: `ws_${randomToken(20)}` };

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({ port: 0, accountBehaviour: sandboxAccounts.accountBehaviour });
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
  raw.destroy();
});

function clockAt(instant: Date): Clock {
  return { now: () => new Date(instant) };
}

function collector(clock: Clock, counters: { tokenHealth: string[] } = { tokenHealth: [] }): CollectMetrics {
  return new CollectMetrics({
    store,
    accounts: { getAccount: async (id) => accounts.get(id) ?? null },
    tokens: { accessToken: async (account) => tokens.get(account.id) ?? '' },
    setTokenHealth: async (accountId) => void counters.tokenHealth.push(accountId),
    platforms: { x, linkedin },
    clock,
    shards: METRICS_DUE_SHARDS,
    newToken: () => randomToken(16),
    log: { warn: (message, details) => void (process.env.DEBUG_METRICS && console.log(message, details)) },
  });
}

/** A connected account on the sandbox platform, known to the collector. */
function connect(platform: 'x' | 'linkedin', accountType: 'personal' | 'organization' = 'personal', behaviour: 'ok' | 'expired' = 'ok') {
  const made = sandboxAccounts.create(platform, behaviour, { platformUserId: platform === 'x' ? '1234567890' : String(Date.now()), handle: '@m', accountType });
  const account = accountFixture(owner, { id: made.account.id, platform, accountType, platformUserId: made.account.platformUserId });
  accounts.set(account.id, account);
  tokens.set(account.id, made.accessToken);
  return { account, accessToken: made.accessToken, platformAccount: made.account };
}

/** A published post in the table, live on the sandbox, its first collection due (an hour after it went out, which was `publishedAgoMs` before NOW). */
async function publishedPost(
  connected: ReturnType<typeof connect>,
  fields: { parts?: number; publishedAgoMs?: number } = {},
): Promise<Post> {
  const platform = connected.account.platform as 'x' | 'linkedin';
  const adapter = platform === 'x' ? x : linkedin;
  const first = await adapter.publish({ account: connected.platformAccount, accessToken: connected.accessToken, text: `Tracked ${randomToken(8)}`, media: [], options: {} });
  const threadParts: Post['threadParts'] = [];
  let previous = first.platformPostId;
  for (let part = 1; part < (fields.parts ?? 1); part++) {
    const sent = await x.publish({ account: connected.platformAccount, accessToken: connected.accessToken, text: `Part ${part} ${randomToken(6)}`, media: [], options: {}, replyTo: previous });
    threadParts.push({ text: 'part', mediaUrls: [], mediaIds: [], platformPostId: sent.platformPostId, publishedUrl: sent.publishedUrl });
    previous = sent.platformPostId;
  }
  const agoMs = fields.publishedAgoMs ?? 2 * HOUR_MS;
  const publishedAt = new Date(NOW.getTime() - agoMs).toISOString();
  // The sandbox's figures grow with its own age of the post: as old there as here.
  for (const held of sandbox[platform].listPosts(connected.account.id)) {
    if (held.id === first.platformPostId || threadParts.some((part) => part.platformPostId === held.id)) held.createdAt = new Date(Date.now() - agoMs);
  }
  const post = postFixture({
    id: newId('post'),
    userId: owner.userId,
    createdAt: publishedAt,
    accountId: connected.account.id,
    workspaceId: owner.workspaceId,
    platform,
    status: 'published',
    publishedAt,
    publishedUrl: first.publishedUrl,
    platformPostId: first.platformPostId,
    format: threadParts.length > 0 ? 'thread' : 'text',
    threadParts,
  });
  await client.send(new PutCommand({ TableName: postsTable, Item: { ...postToItem(post), ...metricsDueKeys(post.id, firstMetricsDueAt(publishedAt)) } }));
  return post;
}

async function itemOf(postId: string): Promise<Record<string, unknown>> {
  const out = await client.send(new GetCommand({ TableName: postsTable, Key: { id: postId }, ConsistentRead: true }));
  return out.Item ?? {};
}

describe('collecting due posts', () => {
  it("batches an account's posts (X: 100 ids a request) and moves each to its next point, 6 h after publishing", async () => {
    const connected = connect('x');
    const posts = await Promise.all(Array.from({ length: 130 }, () => publishedPost(connected)));
    const result = await collector(clockAt(NOW)).collectDue();
    // Other test files' published posts share DynamoDB Local's due index and may be postponed here: count this test's only.
    expect(result).toMatchObject({ collected: 130, requests: 2 });
    for (const post of posts.slice(0, 5)) {
      const item = await itemOf(post.id);
      expect(item.metrics).toMatchObject({ impressions: expect.any(Number), likes: expect.any(Number), clicks: expect.any(Number), collectedAt: NOW.toISOString() });
      expect(item.metricsHistory).toHaveLength(1);
      expect(String(item.metricsDueSk)).toBe(`${new Date(Date.parse(post.publishedAt!) + 6 * HOUR_MS).toISOString()}#${post.id}`);
      expect(item.metricsClaimToken).toBeUndefined();
    }
    // Nothing is due any more at this moment: a second run collects nothing.
    expect((await collector(clockAt(NOW)).collectDue()).collected).toBe(0);
  });

  it("a thread's metrics are its parts' sums; a LinkedIn organization's posts go in one request", async () => {
    const connected = connect('x');
    const thread = await publishedPost(connected, { parts: 3 });
    const organization = connect('linkedin', 'organization');
    const orgPosts = await Promise.all([publishedPost(organization), publishedPost(organization), publishedPost(organization)]);
    const partIds = [thread.platformPostId!, ...thread.threadParts.map((part) => part.platformPostId!)];
    const partsSum = async () => {
      const read = await x.fetchMetrics({ account: connected.platformAccount, accessToken: connected.accessToken, platformPostIds: partIds });
      return [...read.values()].reduce((sum, figures) => sum + (figures?.impressions ?? 0), 0);
    };
    const before = await partsSum();
    const result = await collector(clockAt(NOW)).collectDue();
    const after = await partsSum();
    // One request for the thread's three parts, one for the organization's three posts.
    expect(result.requests).toBe(2);
    const metrics = (await itemOf(thread.id)).metrics as Record<string, number>;
    expect(metrics.impressions).toBeGreaterThanOrEqual(before);
    expect(metrics.impressions).toBeLessThanOrEqual(after);
    expect(before).toBeGreaterThan(0);
    for (const post of orgPosts) expect((await itemOf(post.id)).metrics).toMatchObject({ clicks: expect.any(Number), quotes: null, bookmarks: null });
  });

  it('a 429 postpones to the reset the platform gave, never drops; the posts are collected after it', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    sandbox.x.injectFault(connected.account.id, 'metrics_rate_limited');
    const result = await collector(clockAt(NOW)).collectDue();
    expect(result).toMatchObject({ collected: 0, postponed: 1 });
    const item = await itemOf(post.id);
    expect(item.metrics).toBeUndefined();
    // Still in the due index, at the window's reset (X's x-rate-limit-reset, in the present).
    const dueAt = Date.parse(String(item.metricsDueSk).split('#')[0] ?? '');
    expect(dueAt).toBeGreaterThan(NOW.getTime());
    expect(item.metricsDuePk).toEqual(expect.stringMatching(/^metrics#/));
  });

  it('never two collections of one post at once: two collectors racing collect each post once', async () => {
    const connected = connect('x');
    const posts = await Promise.all(Array.from({ length: 20 }, () => publishedPost(connected)));
    const [one, two] = await Promise.all([collector(clockAt(NOW)).collectDue(), collector(clockAt(NOW)).collectDue()]);
    expect(one!.collected + two!.collected).toBe(20);
    for (const post of posts) expect((await itemOf(post.id)).metricsHistory).toHaveLength(1);
  });

  it('a collector killed after its claim: the post stays due, and is collected once the claim has run out', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    // The claim of a collector that then died (kill -9): nothing recorded, nothing released.
    expect(await store.claimDue(post.id, { now: NOW, dueBy: NOW, claimMs: 2 * 60_000, token: 'dead' })).not.toBeNull();
    expect((await collector(clockAt(new Date(NOW.getTime() + 60_000))).collectDue()).collected).toBe(0);
    expect((await collector(clockAt(new Date(NOW.getTime() + 3 * 60_000))).collectDue()).collected).toBe(1);
    expect((await itemOf(post.id)).metricsHistory).toHaveLength(1);
  });

  it('a post deleted on the platform keeps its last figures and is not collected again; 30 days on, collection stops', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    await collector(clockAt(NOW)).collectDue();
    const first = (await itemOf(post.id)).metrics;
    await x.deletePost({ account: connected.platformAccount, accessToken: connected.accessToken, platformPostId: post.platformPostId! });
    await collector(clockAt(new Date(NOW.getTime() + 5 * HOUR_MS))).collectDue();
    const item = await itemOf(post.id);
    expect(item.metrics).toEqual(first);
    expect(item.metricsDueSk).toBeUndefined();

    const old = await publishedPost(connected, { publishedAgoMs: 31 * 24 * HOUR_MS });
    await collector(clockAt(NOW)).collectDue();
    const last = await itemOf(old.id);
    expect(last.metrics).toMatchObject({ impressions: expect.any(Number) });
    expect(last.metricsDueSk).toBeUndefined();
  });

  it('an expired token marks the account for reconnection and moves on to the next point', async () => {
    const connected = connect('x', 'personal', 'expired');
    const counters = { tokenHealth: [] as string[] };
    // An expired sandbox account cannot publish: its post is put in the table as published elsewhere.
    const ok = connect('x');
    const post = await publishedPost(ok);
    await client.send(new PutCommand({ TableName: postsTable, Item: { ...(await itemOf(post.id)), accountId: connected.account.id } }));
    const result = await collector(clockAt(NOW), counters).collectDue();
    expect(result.postponed).toBeGreaterThanOrEqual(1);
    expect(counters.tokenHealth).toContain(connected.account.id);
    expect(String((await itemOf(post.id)).metricsDueSk).startsWith(new Date(Date.parse(post.publishedAt!) + 6 * HOUR_MS).toISOString())).toBe(true);
  });
});

describe('refresh', () => {
  it('collects now, at most once per 5 minutes; a post not published or of another user is refused', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected, { publishedAgoMs: 10 * 60_000 });
    const refreshed = await collector(clockAt(NOW)).refresh(owner.userId, post.id);
    expect(refreshed.status).toBe('collected');
    // The schedule is untouched: the first point is still due an hour after publishing.
    expect(String((await itemOf(post.id)).metricsDueSk)).toBe(`${firstMetricsDueAt(post.publishedAt!).toISOString()}#${post.id}`);
    const again = await collector(clockAt(new Date(NOW.getTime() + 60_000))).refresh(owner.userId, post.id);
    expect(again).toEqual({ status: 'too_soon', retryAt: new Date(NOW.getTime() + 5 * 60_000) });
    expect((await collector(clockAt(new Date(NOW.getTime() + 5 * 60_000))).refresh(owner.userId, post.id)).status).toBe('collected');
    expect((await collector(clockAt(NOW)).refresh('user_other', post.id)).status).toBe('not_found');
    const draft = postFixture({ id: newId('post'), userId: owner.userId, createdAt: NOW.toISOString(), status: 'draft' });
    await client.send(new PutCommand({ TableName: postsTable, Item: postToItem(draft) }));
    expect((await collector(clockAt(NOW)).refresh(owner.userId, draft.id)).status).toBe('not_published');
  });
});
