/**
 * Collecting post metrics (lib/use-cases/collect-metrics.ts) against DynamoDB Local (the shared
 * tables of the test global setup) and the sandbox platforms over HTTP. The collector's clock is
 * set in the year 2000, so the byMetricsDue Queries see only this file's posts, never the other
 * files' (published in the present). Accounts and their tokens are in memory: how tokens are
 * read and refreshed is access-tokens' own test.
 */
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newId, randomToken } from '../../lib/domain/ids.js';
import type { Account, Post } from '../../lib/domain/model.js';
import { firstMetricsDueAt } from '../../lib/domain/post-metrics.js';
import { LinkedinClient } from '../../lib/platforms/linkedin-client.js';
import { LINKEDIN_API_VERSION } from '../../lib/platforms/linkedin-version.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { DynamoDbPostMetrics, metricsItemId } from '../../lib/store/dynamodb-post-metrics.js';
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

async function rawItem(id: string): Promise<Record<string, unknown> | null> {
  const out = await client.send(new GetCommand({ TableName: postsTable, Key: { id }, ConsistentRead: true }));
  return out.Item ?? null;
}

async function itemOf(postId: string): Promise<Record<string, unknown>> {
  return (await rawItem(postId)) ?? {};
}

/**
 * A post's metrics as the store gives them, and the item holding its due entry and claim: the
 * metrics item once the post has one, the post item before its first record.
 */
async function trackingOf(postId: string) {
  const record = await store.get(owner.userId, postId);
  const metricsItem = await rawItem(metricsItemId(postId));
  return { metrics: record?.post.metrics ?? undefined, history: record?.history ?? [], due: metricsItem ?? (await itemOf(postId)), metricsItem };
}

describe('collecting due posts', () => {
  it("batches an account's posts (X: 100 ids a request) and moves each to its next point, 6 h after publishing", async () => {
    const connected = connect('x');
    const posts = await Promise.all(Array.from({ length: 130 }, () => publishedPost(connected)));
    const result = await collector(clockAt(NOW)).collectDue();
    // Other test files' published posts share DynamoDB Local's due index and may be postponed here: count this test's only.
    expect(result).toMatchObject({ collected: 130, requests: 2 });
    for (const post of posts.slice(0, 5)) {
      const tracked = await trackingOf(post.id);
      expect(tracked.metrics).toMatchObject({ impressions: expect.any(Number), likes: expect.any(Number), clicks: expect.any(Number), collectedAt: NOW.toISOString() });
      expect(tracked.history).toHaveLength(1);
      expect(String(tracked.due.metricsDueSk)).toBe(`${new Date(Date.parse(post.publishedAt!) + 6 * HOUR_MS).toISOString()}#${post.id}`);
      expect(tracked.due.metricsClaimToken).toBeUndefined();
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
    const metrics = (await trackingOf(thread.id)).metrics as unknown as Record<string, number>;
    expect(metrics.impressions).toBeGreaterThanOrEqual(before);
    expect(metrics.impressions).toBeLessThanOrEqual(after);
    expect(before).toBeGreaterThan(0);
    for (const post of orgPosts) expect((await trackingOf(post.id)).metrics).toMatchObject({ clicks: expect.any(Number), quotes: null, bookmarks: null });
  });

  it('a 429 postpones to the reset the platform gave, never drops; the posts are collected after it', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    sandbox.x.injectFault(connected.account.id, 'metrics_rate_limited');
    const result = await collector(clockAt(NOW)).collectDue();
    expect(result).toMatchObject({ collected: 0, postponed: 1 });
    const { metrics, due: item } = await trackingOf(post.id);
    expect(metrics).toBeUndefined();
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
    for (const post of posts) expect((await trackingOf(post.id)).history).toHaveLength(1);
  });

  it('a collector killed after its claim: the post stays due, and is collected once the claim has run out', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    // The claim of a collector that then died (kill -9): nothing recorded, nothing released.
    expect(await store.claimDue([{ postId: post.id, on: 'post' }], { now: NOW, dueBy: NOW, claimMs: 2 * 60_000, token: 'dead' })).toHaveLength(1);
    expect((await collector(clockAt(new Date(NOW.getTime() + 60_000))).collectDue()).collected).toBe(0);
    expect((await collector(clockAt(new Date(NOW.getTime() + 3 * 60_000))).collectDue()).collected).toBe(1);
    expect((await trackingOf(post.id)).history).toHaveLength(1);
  });

  it('a post deleted on the platform keeps its last figures and is not collected again; 30 days on, collection stops', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    await collector(clockAt(NOW)).collectDue();
    const first = (await trackingOf(post.id)).metrics;
    await x.deletePost({ account: connected.platformAccount, accessToken: connected.accessToken, platformPostId: post.platformPostId! });
    await collector(clockAt(new Date(NOW.getTime() + 5 * HOUR_MS))).collectDue();
    const item = await trackingOf(post.id);
    expect(item.metrics).toEqual(first);
    expect(item.due.metricsDueSk).toBeUndefined();

    const old = await publishedPost(connected, { publishedAgoMs: 31 * 24 * HOUR_MS });
    await collector(clockAt(NOW)).collectDue();
    const last = await trackingOf(old.id);
    expect(last.metrics).toMatchObject({ impressions: expect.any(Number) });
    expect(last.due.metricsDueSk).toBeUndefined();
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
    expect(String((await trackingOf(post.id)).due.metricsDueSk).startsWith(new Date(Date.parse(post.publishedAt!) + 6 * HOUR_MS).toISOString())).toBe(true);
  });
});

describe('the metrics item', () => {
  it("the first record moves the post's metrics to an item of their own; later collections write only that item, one write unit each", async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    await collector(clockAt(NOW)).collectDue();
    const postItem = await itemOf(post.id);
    for (const name of ['metrics', 'metricsHistory', 'metricsDuePk', 'metricsDueSk', 'metricsClaimToken', 'metricsClaimUntil']) expect(postItem[name]).toBeUndefined();
    const shard = Number(metricsDueKeys(post.id, NOW).metricsDuePk.split('#')[1]);
    const sixHours = new Date(Date.parse(post.publishedAt!) + 6 * HOUR_MS);
    expect(await store.listDue(shard, sixHours, 1000)).toContainEqual({ postId: post.id, on: 'metrics' });

    // Every later point, up to the last one 30 days on: the post item is never written again.
    let at = sixHours;
    for (let collections = 2; collections <= 6; collections++) {
      expect((await collector(clockAt(at)).collectDue()).collected).toBeGreaterThanOrEqual(1);
      const tracked = await trackingOf(post.id);
      expect(tracked.history).toHaveLength(collections);
      expect(tracked.metrics).toEqual(tracked.history.at(-1));
      const next = tracked.due.metricsDueSk === undefined ? null : new Date(String(tracked.due.metricsDueSk).split('#')[0] ?? '');
      if (collections < 6) expect(next).not.toBeNull();
      else expect(next).toBeNull();
      if (next) at = next;
    }
    expect(await itemOf(post.id)).toEqual(postItem);
    // The item with its whole history is within one write unit (1 KB), which the cost in docs/metrics.md counts on.
    const out = await client.send(
      new UpdateCommand({ TableName: postsTable, Key: { id: metricsItemId(post.id) }, UpdateExpression: 'SET probe = :one', ExpressionAttributeValues: { ':one': 1 }, ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(out.ConsumedCapacity?.CapacityUnits).toBe(1);
  });

  it("a post collected before the metrics item existed keeps its history: the next record carries it over and clears the post item", async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    const earlier = { impressions: 3, likes: 1, comments: 0, reposts: 0, quotes: 0, bookmarks: 0, clicks: null, collectedAt: new Date(NOW.getTime() - HOUR_MS).toISOString() };
    await client.send(
      new UpdateCommand({ TableName: postsTable, Key: { id: post.id }, UpdateExpression: 'SET #metrics = :m, metricsHistory = :h', ExpressionAttributeNames: { '#metrics': 'metrics' }, ExpressionAttributeValues: { ':m': earlier, ':h': [earlier] } }),
    );
    expect((await trackingOf(post.id)).metrics).toEqual(earlier);
    await collector(clockAt(NOW)).collectDue();
    const tracked = await trackingOf(post.id);
    expect(tracked.history).toHaveLength(2);
    expect(tracked.history[0]).toEqual(earlier);
    expect(tracked.metrics?.collectedAt).toBe(NOW.toISOString());
    const postItem = await itemOf(post.id);
    expect(postItem.metrics).toBeUndefined();
    expect(postItem.metricsHistory).toBeUndefined();
  });

  it('a collector killed between putting the metrics item and clearing the post item: the next claim only clears the post item', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    const kept = { impressions: 7, likes: 2, comments: 1, reposts: 0, quotes: 0, bookmarks: 0, clicks: null, collectedAt: NOW.toISOString() };
    const sixHours = new Date(Date.parse(post.publishedAt!) + 6 * HOUR_MS);
    // What the dead collector left: the metrics item whole, the post item still due and claimed (its claim ran out).
    await client.send(
      new PutCommand({ TableName: postsTable, Item: { id: metricsItemId(post.id), history: [[NOW.getTime(), 7, 2, 1, 0, 0, 0, null]], ...metricsDueKeys(post.id, sixHours) } }),
    );
    await client.send(
      new UpdateCommand({ TableName: postsTable, Key: { id: post.id }, UpdateExpression: 'SET metricsClaimToken = :t, metricsClaimUntil = :u', ExpressionAttributeValues: { ':t': 'dead', ':u': NOW.toISOString() } }),
    );
    const result = await collector(clockAt(new Date(NOW.getTime() + 60_000))).collectDue();
    expect(result.collected).toBe(0);
    const tracked = await trackingOf(post.id);
    expect(tracked.history).toEqual([kept]);
    expect(String(tracked.due.metricsDueSk)).toBe(`${sixHours.toISOString()}#${post.id}`);
    expect((await itemOf(post.id)).metricsDuePk).toBeUndefined();
  });

  it('a post deleted here after its first collection leaves the due index at its next point', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected);
    await collector(clockAt(NOW)).collectDue();
    await client.send(new UpdateCommand({ TableName: postsTable, Key: { id: post.id }, UpdateExpression: 'SET deletedAt = :now', ExpressionAttributeValues: { ':now': NOW.toISOString() } }));
    const result = await collector(clockAt(new Date(Date.parse(post.publishedAt!) + 6 * HOUR_MS))).collectDue();
    expect(result.postponed).toBeGreaterThanOrEqual(1);
    expect((await rawItem(metricsItemId(post.id)))?.metricsDueSk).toBeUndefined();
  });
});

describe('refresh', () => {
  it('collects now, at most once per 5 minutes; a post not published or of another user is refused', async () => {
    const connected = connect('x');
    const post = await publishedPost(connected, { publishedAgoMs: 10 * 60_000 });
    const refreshed = await collector(clockAt(NOW)).refresh(owner.userId, post.id);
    expect(refreshed.status).toBe('collected');
    // The schedule is untouched: the first point is still due an hour after publishing.
    expect(String((await trackingOf(post.id)).due.metricsDueSk)).toBe(`${firstMetricsDueAt(post.publishedAt!).toISOString()}#${post.id}`);
    const again = await collector(clockAt(new Date(NOW.getTime() + 60_000))).refresh(owner.userId, post.id);
    expect(again).toEqual({ status: 'too_soon', retryAt: new Date(NOW.getTime() + 5 * 60_000) });
    const third = await collector(clockAt(new Date(NOW.getTime() + 5 * 60_000))).refresh(owner.userId, post.id);
    expect(third.status).toBe('collected');
    // The first refresh moved the post's metrics to their own item, with the first point still due there.
    expect(third.status === 'collected' && third.record.history).toHaveLength(2);
    expect((await rawItem(metricsItemId(post.id)))?.metricsDueSk).toBe(`${firstMetricsDueAt(post.publishedAt!).toISOString()}#${post.id}`);
    expect(await collector(clockAt(new Date(NOW.getTime() + 6 * 60_000))).refresh(owner.userId, post.id)).toEqual({ status: 'too_soon', retryAt: new Date(NOW.getTime() + 10 * 60_000) });
    expect((await collector(clockAt(NOW)).refresh('user_other', post.id)).status).toBe('not_found');
    const draft = postFixture({ id: newId('post'), userId: owner.userId, createdAt: NOW.toISOString(), status: 'draft' });
    await client.send(new PutCommand({ TableName: postsTable, Item: postToItem(draft) }));
    expect((await collector(clockAt(NOW)).refresh(owner.userId, draft.id)).status).toBe('not_published');
  });
});
