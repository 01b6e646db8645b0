/**
 * The X adapter against the X sandbox over real HTTP: every call the worker makes, every sandbox
 * behaviour, and the classification of each failure (the worker acts on the class alone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBehaviour } from '../../lib/domain/model.js';
import {
  PlatformAmbiguousError,
  PlatformAuthError,
  PlatformDuplicateError,
  PlatformRateLimitedError,
  PlatformRefusedError,
  PlatformUnavailableError,
} from '../../lib/domain/platform-errors.js';
import { bytesMediaSource } from '../../lib/platforms/media-source.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { findFreePort } from '../../local/free-port.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { caught, SandboxAccounts, type SandboxAccount } from '../support/platform-sandbox.js';

const accounts = new SandboxAccounts();
let sandbox: SandboxPlatforms;
let client: XClient;

function account(behaviour: SandboxBehaviour): SandboxAccount {
  return accounts.create('x', behaviour, { platformUserId: '1234567890', handle: '@sandbox_user', accountType: 'personal' });
}

/** Everything an error carries, as one string, to prove no token is in it. */
function everything(error: unknown): string {
  const seen = new Set<unknown>();
  const walk = (value: unknown): string => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return String(value);
    seen.add(value);
    const own = Object.getOwnPropertyNames(value).map((key) => `${key}=${walk((value as Record<string, unknown>)[key])}`);
    return own.join(' ');
  };
  return walk(error);
}

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({
    port: 0,
    accountBehaviour: accounts.accountBehaviour,
    xCheckAfterSecs: 1,
    processingPolls: 2,
  });
  client = new XClient({
    baseUrl: sandbox.xBaseUrl,
    clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x,
    maxPollWaitMs: 20,
    chunkBytes: 64 * 1024,
  });
});

afterAll(async () => {
  await sandbox.stop();
});

describe('X adapter: publishing', () => {
  it('publishes a text post and returns the id and public URL', async () => {
    const { account: acct, accessToken } = account('ok');
    const result = await client.publish({ account: acct, accessToken, text: 'Hello from the sandbox', media: [], options: {} });
    expect(result.platformPostId).toMatch(/^\d{19}$/);
    expect(result.publishedUrl).toBe(`https://x.com/sandbox_user/status/${result.platformPostId}`);
    const posts = sandbox.x.listPosts(acct.id);
    expect(posts.map((post) => [post.id, post.text])).toEqual([[result.platformPostId, 'Hello from the sandbox']]);
  });

  it('sends community_id and share_with_followers from the options', async () => {
    const { account: acct, accessToken } = account('ok');
    await client.publish({ account: acct, accessToken, text: 'In the community', media: [], options: { communityId: '1700000000000000001', shareWithFollowers: true } });
    expect(sandbox.x.listPosts(acct.id)[0]?.details).toEqual({ community_id: '1700000000000000001', share_with_followers: true });
  });

  it('uploads images with the simple upload and attaches them', async () => {
    const { account: acct, accessToken } = account('ok');
    const png = bytesMediaSource(new Uint8Array(3000).fill(7), 'image/png');
    const jpeg = bytesMediaSource(new Uint8Array(5000).fill(9), 'image/jpeg');
    const result = await client.publish({ account: acct, accessToken, text: 'Two pictures', media: [png, jpeg], options: {} });
    const uploaded = sandbox.x.uploadedMedia(acct.id);
    expect(uploaded.map((item) => [item.mediaType, item.totalBytes, item.state])).toEqual([
      ['image/png', 3000, 'succeeded'],
      ['image/jpeg', 5000, 'succeeded'],
    ]);
    expect(sandbox.x.listPosts(acct.id).find((post) => post.id === result.platformPostId)?.mediaIds).toEqual(uploaded.map((item) => item.id));
  });

  it('uploads a video in segments, waits for processing, and attaches it (media-only post)', async () => {
    const { account: acct, accessToken } = account('ok');
    const bytes = new Uint8Array(200 * 1024).map((_, i) => i % 251);
    const result = await client.publish({ account: acct, accessToken, text: '', media: [bytesMediaSource(bytes, 'video/mp4', 12)], options: {} });
    const [video] = sandbox.x.uploadedMedia(acct.id);
    expect(video).toMatchObject({ mediaType: 'video/mp4', totalBytes: 200 * 1024, state: 'succeeded' });
    expect(sandbox.x.listPosts(acct.id)[0]).toMatchObject({ id: result.platformPostId, text: '', mediaIds: [video?.id] });
  });
});

describe('X adapter: failures are classified', () => {
  it('refuse: PlatformRefusedError with what X said, no token anywhere', async () => {
    const { account: acct, accessToken } = account('refuse');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'Refused text', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(error.message).toBe('You are not permitted to perform this action.');
    expect((error as PlatformRefusedError).status).toBe(403);
    expect((error as PlatformRefusedError).code).toBe('platform_refused');
    expect(everything(error)).not.toContain(accessToken);
    expect(sandbox.x.createCount(acct.id)).toBe(0);
  });

  it('text over 280 weighted characters: X refuses it with its own message', async () => {
    const { account: acct, accessToken } = account('ok');
    // 141 CJK characters weigh 282.
    const error = await caught(client.publish({ account: acct, accessToken, text: '漢'.repeat(141), media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(error.message).toMatch(/Tweet text is too long/);
  });

  it('expired: PlatformAuthError (401) for publish, delete and refresh alike', async () => {
    const { account: acct, accessToken, refreshToken } = account('expired');
    const publish = await caught(client.publish({ account: acct, accessToken, text: 'x', media: [], options: {} }));
    expect(publish).toBeInstanceOf(PlatformAuthError);
    expect((publish as PlatformAuthError).status).toBe(401);
    expect(everything(publish)).not.toContain(accessToken);
    const remove = await caught(client.deletePost({ account: acct, accessToken, platformPostId: '1234567890123456789' }));
    expect(remove).toBeInstanceOf(PlatformAuthError);
    const refresh = await caught(client.refreshAccessToken({ refreshToken }));
    expect(refresh).toBeInstanceOf(PlatformAuthError);
    expect(everything(refresh)).not.toContain(refreshToken);
  });

  it('flaky: 503 once (ambiguous: a gateway may have let the create through), then the same post goes out', async () => {
    const { account: acct, accessToken } = account('flaky');
    const first = await caught(client.publish({ account: acct, accessToken, text: 'Flaky once', media: [], options: {} }));
    expect(first).toBeInstanceOf(PlatformAmbiguousError);
    expect((first as PlatformAmbiguousError).status).toBe(503);
    const second = await client.publish({ account: acct, accessToken, text: 'Flaky once', media: [], options: {} });
    expect(sandbox.x.listPosts(acct.id).map((post) => post.id)).toEqual([second.platformPostId]);
  });

  it('429: PlatformRateLimitedError with the reset time from x-rate-limit-reset', async () => {
    const { account: acct, accessToken } = account('ok');
    sandbox.x.injectFault(acct.id, 'rate_limited');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'Too many', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformRateLimitedError);
    const resetAt = (error as PlatformRateLimitedError).resetAt;
    expect(resetAt).toBeInstanceOf(Date);
    expect(resetAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it('same text twice: PlatformDuplicateError, and findRecentPost finds the live one', async () => {
    const { account: acct, accessToken } = account('ok');
    const since = new Date();
    const first = await client.publish({ account: acct, accessToken, text: 'Say it once & only <once>', media: [], options: {} });
    const error = await caught(client.publish({ account: acct, accessToken, text: 'Say it once & only <once>', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformDuplicateError);
    expect(error.message).toBe('You are not allowed to create a Tweet with duplicate content.');
    expect(await client.findRecentPost({ account: acct, accessToken, text: 'Say it once & only <once>', since })).toEqual(first);
    expect(await client.findRecentPost({ account: acct, accessToken, text: 'Never posted', since })).toBeNull();
    expect(sandbox.x.createCount(acct.id)).toBe(1);
  });

  it('answer lost after the post was created: PlatformAmbiguousError; resending is refused as a duplicate', async () => {
    const { account: acct, accessToken } = account('ok');
    sandbox.x.injectFault(acct.id, 'drop_after_create');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'Lost answer', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformAmbiguousError);
    expect(sandbox.x.createCount(acct.id)).toBe(1);
    const again = await caught(client.publish({ account: acct, accessToken, text: 'Lost answer', media: [], options: {} }));
    expect(again).toBeInstanceOf(PlatformDuplicateError);
    expect(sandbox.x.createCount(acct.id)).toBe(1);
  });

  it('no answer within the timeout: PlatformAmbiguousError', async () => {
    const { account: acct, accessToken } = account('ok');
    sandbox.x.injectFault(acct.id, 'hang_after_create');
    const impatient = new XClient({ baseUrl: sandbox.xBaseUrl, clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x, createTimeoutMs: 300 });
    const error = await caught(impatient.publish({ account: acct, accessToken, text: 'Hanging', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformAmbiguousError);
    expect(error.message).toMatch(/no answer/);
  });

  it('connection refused before sending: PlatformUnavailableError (safe to retry)', async () => {
    const port = await findFreePort();
    const { account: acct, accessToken } = account('ok');
    const nowhere = new XClient({ baseUrl: `http://127.0.0.1:${port}/x`, clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x });
    const error = await caught(nowhere.publish({ account: acct, accessToken, text: 'Nobody home', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformUnavailableError);
    expect(error.message).toContain('ECONNREFUSED');
  });
});

describe('X adapter: delete and refresh', () => {
  it('deletes a post, and deleting it again is harmless', async () => {
    const { account: acct, accessToken } = account('ok');
    const result = await client.publish({ account: acct, accessToken, text: 'Short-lived', media: [], options: {} });
    await client.deletePost({ account: acct, accessToken, platformPostId: result.platformPostId });
    expect(sandbox.x.listPosts(acct.id)[0]?.deletedAt).toBeInstanceOf(Date);
    await client.deletePost({ account: acct, accessToken, platformPostId: result.platformPostId });
  });

  it('refresh gives new tokens and rotates the refresh token (the old one then fails)', async () => {
    const { account: acct, refreshToken } = account('ok');
    const tokens = await client.refreshAccessToken({ refreshToken });
    expect(tokens.accessToken).toMatch(new RegExp(`^sandbox\\.${acct.id}\\.`));
    expect(tokens.refreshToken).toMatch(new RegExp(`^sandbox-refresh\\.${acct.id}\\.`));
    expect(tokens.refreshToken).not.toBe(refreshToken);
    expect(Date.parse(tokens.expiresAt ?? '') - Date.now()).toBeGreaterThan(7000 * 1000);
    const reused = await caught(client.refreshAccessToken({ refreshToken }));
    expect(reused).toBeInstanceOf(PlatformAuthError);
    const published = await client.publish({ account: acct, accessToken: tokens.accessToken, text: 'With the new token', media: [], options: {} });
    expect(published.platformPostId).toMatch(/^\d{19}$/);
  });

  it('refresh with the wrong client credentials is refused', async () => {
    const { refreshToken } = account('ok');
    const wrong = new XClient({ baseUrl: sandbox.xBaseUrl, clientCredentials: async () => ({ clientId: 'someone', clientSecret: 'else' }) });
    const error = await caught(wrong.refreshAccessToken({ refreshToken }));
    expect(error).toBeInstanceOf(PlatformAuthError);
    expect(everything(error)).not.toContain('else');
  });
});

describe('X sandbox: strict like X', () => {
  it('refuses unknown fields and requires a sandbox bearer token', async () => {
    const { accessToken } = account('ok');
    const unknown = await fetch(`${sandbox.xBaseUrl}/2/tweets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'hi', visibility: 'public' }),
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toContain('$.visibility');
    const anonymous = await fetch(`${sandbox.xBaseUrl}/2/tweets`, {
      method: 'POST',
      headers: { Authorization: 'Bearer not-a-sandbox-token', 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(anonymous.status).toBe(401);
  });
});
