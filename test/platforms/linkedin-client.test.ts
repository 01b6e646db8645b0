/**
 * The LinkedIn adapter against the LinkedIn sandbox over real HTTP: posts as a person and as an
 * organization, text with LinkedIn's reserved characters arriving whole, images and multi-part
 * videos, every sandbox behaviour, delete and refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountType, SandboxBehaviour } from '../../lib/domain/model.js';
import {
  PlatformAmbiguousError,
  PlatformAuthError,
  PlatformRefusedError,
} from '../../lib/domain/platform-errors.js';
import { LinkedinClient } from '../../lib/platforms/linkedin-client.js';
import { bytesMediaSource } from '../../lib/platforms/media-source.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { caught, SandboxAccounts, type SandboxAccount } from '../support/platform-sandbox.js';
import { LINKEDIN_API_VERSION } from '../../lib/platforms/linkedin-version.js';

const accounts = new SandboxAccounts();
let sandbox: SandboxPlatforms;
let client: LinkedinClient;

function account(behaviour: SandboxBehaviour, accountType: AccountType = 'personal'): SandboxAccount {
  return accounts.create('linkedin', behaviour, { platformUserId: accountType === 'personal' ? 'abC12-xY' : '98765', handle: 'sandbox-person', accountType });
}

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({
    port: 0,
    accountBehaviour: accounts.accountBehaviour,
    processingPolls: 2,
    linkedinVideoPartBytes: 64 * 1024,
  });
  client = new LinkedinClient({
    baseUrl: sandbox.linkedinBaseUrl,
    oauthBaseUrl: sandbox.linkedinBaseUrl,
    apiVersion: LINKEDIN_API_VERSION,
    clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.linkedin,
    pollIntervalMs: 10,
  });
});

afterAll(async () => {
  await sandbox.stop();
});

describe('LinkedIn adapter: publishing', () => {
  it('publishes as a person; the URN comes from x-restli-id and makes the public URL', async () => {
    const { account: acct, accessToken } = account('ok');
    const result = await client.publish({ account: acct, accessToken, text: 'Hello LinkedIn', media: [], options: {} });
    expect(result.platformPostId).toMatch(/^urn:li:share:\d{19}$/);
    expect(result.publishedUrl).toBe(`https://www.linkedin.com/feed/update/${result.platformPostId}/`);
    const [post] = sandbox.linkedin.listPosts(acct.id);
    expect(post).toMatchObject({ id: result.platformPostId, text: 'Hello LinkedIn' });
    expect(post?.details).toMatchObject({ author: 'urn:li:person:abC12-xY', visibility: 'PUBLIC', lifecycleState: 'PUBLISHED' });
  });

  it('publishes as an organization', async () => {
    const { account: acct, accessToken } = account('ok', 'organization');
    await client.publish({ account: acct, accessToken, text: 'Company news', media: [], options: {} });
    expect(sandbox.linkedin.listPosts(acct.id)[0]?.details.author).toBe('urn:li:organization:98765');
  });

  it('text with every reserved character arrives whole (escaped, never cut)', async () => {
    const { account: acct, accessToken } = account('ok');
    const text = 'Q&A (part 1) #launch @team [draft] {x} <b> *bold* _it_ ~s~ a|b back\\slash';
    await client.publish({ account: acct, accessToken, text, media: [], options: {} });
    expect(sandbox.linkedin.listPosts(acct.id)[0]?.text).toBe(text);
  });

  it('the sandbox really cuts unescaped text, as LinkedIn does (so the test above can fail)', async () => {
    const { accessToken } = account('ok');
    const response = await fetch(`${sandbox.linkedinBaseUrl}/rest/posts`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${accessToken}`,
        'LinkedIn-Version': LINKEDIN_API_VERSION,
        'X-Restli-Protocol-Version': '2.0.0',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        author: 'urn:li:person:abc',
        commentary: 'Before (after',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
        lifecycleState: 'PUBLISHED',
      }),
    });
    expect(response.status).toBe(201);
    const urn = response.headers.get('x-restli-id');
    expect(sandbox.linkedin.listPosts().find((post) => post.id === urn)?.text).toBe('Before ');
  });

  it('one image: initializeUpload, PUT, content.media', async () => {
    const { account: acct, accessToken } = account('ok');
    await client.publish({ account: acct, accessToken, text: 'A picture', media: [bytesMediaSource(new Uint8Array(4096).fill(1), 'image/png')], options: {} });
    const [image] = sandbox.linkedin.uploadedMedia(acct.id);
    expect(image).toMatchObject({ kind: 'image', sizeBytes: 4096, status: 'AVAILABLE' });
    expect(sandbox.linkedin.listPosts(acct.id)[0]?.mediaIds).toEqual([image?.urn]);
  });

  it('three images: content.multiImage', async () => {
    const { account: acct, accessToken } = account('ok');
    const media = [1, 2, 3].map((n) => bytesMediaSource(new Uint8Array(1000 * n).fill(n), 'image/jpeg'));
    await client.publish({ account: acct, accessToken, text: 'Gallery', media, options: {} });
    const uploaded = sandbox.linkedin.uploadedMedia(acct.id);
    expect(uploaded.map((item) => item.sizeBytes)).toEqual([1000, 2000, 3000]);
    expect(sandbox.linkedin.listPosts(acct.id)[0]?.mediaIds).toEqual(uploaded.map((item) => item.urn));
  });

  it('a video in several parts: ranges PUT with ETags, finalizeUpload, status polled to AVAILABLE', async () => {
    const { account: acct, accessToken } = account('ok', 'organization');
    const bytes = new Uint8Array(150 * 1024).map((_, i) => i % 253);
    await client.publish({ account: acct, accessToken, text: 'Watch this', media: [bytesMediaSource(bytes, 'video/mp4', 40)], options: {} });
    const [video] = sandbox.linkedin.uploadedMedia(acct.id);
    expect(video).toMatchObject({ kind: 'video', sizeBytes: 150 * 1024, status: 'AVAILABLE' });
    expect(sandbox.linkedin.listPosts(acct.id)[0]?.mediaIds).toEqual([video?.urn]);
  });
});

describe('LinkedIn adapter: failures are classified', () => {
  it('commentary over 3000 characters: refused with LinkedIn\'s message', async () => {
    const { account: acct, accessToken } = account('ok');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'a'.repeat(3001), media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(error.message).toBe('ShareCommentary text length (3001 characters) exceeded the maximum allowed (3000 characters)');
  });

  it('refuse: PlatformRefusedError with what LinkedIn said', async () => {
    const { account: acct, accessToken } = account('refuse');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'Nope', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect((error as PlatformRefusedError).status).toBe(422);
    expect(error.message).toMatch(/Professional Community Policies/);
    expect(sandbox.linkedin.createCount(acct.id)).toBe(0);
  });

  it('expired: PlatformAuthError for publish and delete; refresh refused too', async () => {
    const { account: acct, accessToken, refreshToken } = account('expired');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'x', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformAuthError);
    expect(error.message).toBe('The token used in the request has expired');
    expect(await caught(client.deletePost({ account: acct, accessToken, platformPostId: 'urn:li:share:1' }))).toBeInstanceOf(PlatformAuthError);
    const refresh = await caught(client.refreshAccessToken({ refreshToken }));
    expect(refresh).toBeInstanceOf(PlatformAuthError);
    expect(JSON.stringify({ message: refresh.message, cause: refresh.cause })).not.toContain(refreshToken);
  });

  it('flaky: 503 once (ambiguous), then the post goes out once', async () => {
    const { account: acct, accessToken } = account('flaky');
    const first = await caught(client.publish({ account: acct, accessToken, text: 'Try twice', media: [], options: {} }));
    expect(first).toBeInstanceOf(PlatformAmbiguousError);
    await client.publish({ account: acct, accessToken, text: 'Try twice', media: [], options: {} });
    expect(sandbox.linkedin.createCount(acct.id)).toBe(1);
  });

  it('answer lost after the post was created: PlatformAmbiguousError', async () => {
    const { account: acct, accessToken } = account('ok');
    sandbox.linkedin.injectFault(acct.id, 'drop_after_create');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'Lost', media: [], options: {} }));
    expect(error).toBeInstanceOf(PlatformAmbiguousError);
    expect(sandbox.linkedin.createCount(acct.id)).toBe(1);
  });

  it('the connection cut before anything was created is still ambiguous to the caller (it cannot know)', async () => {
    const { account: acct, accessToken } = account('ok');
    sandbox.linkedin.injectFault(acct.id, 'drop_before_create');
    expect(await caught(client.publish({ account: acct, accessToken, text: 'Cut', media: [], options: {} }))).toBeInstanceOf(PlatformAmbiguousError);
    expect(sandbox.linkedin.createCount(acct.id)).toBe(0);
  });
});

describe('LinkedIn adapter: delete and refresh', () => {
  it('deletes with the URL-encoded URN; a second delete is harmless', async () => {
    const { account: acct, accessToken } = account('ok');
    const result = await client.publish({ account: acct, accessToken, text: 'Soon gone', media: [], options: {} });
    await client.deletePost({ account: acct, accessToken, platformPostId: result.platformPostId });
    expect(sandbox.linkedin.listPosts(acct.id)[0]?.deletedAt).toBeInstanceOf(Date);
    await client.deletePost({ account: acct, accessToken, platformPostId: result.platformPostId });
  });

  it('refresh (partner apps) gives a new access token and keeps the refresh token', async () => {
    const { account: acct, refreshToken } = account('ok');
    const tokens = await client.refreshAccessToken({ refreshToken });
    expect(tokens.accessToken).toMatch(new RegExp(`^sandbox\\.${acct.id}\\.`));
    expect(tokens.refreshToken).toBe(refreshToken);
    expect(Date.parse(tokens.expiresAt ?? '') - Date.now()).toBeGreaterThan(59 * 24 * 3600 * 1000);
  });
});

describe('LinkedIn sandbox: strict like LinkedIn', () => {
  it('requires LinkedIn-Version and X-Restli-Protocol-Version, and refuses unknown fields', async () => {
    const { accessToken } = account('ok');
    const noVersion = await fetch(`${sandbox.linkedinBaseUrl}/rest/posts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'X-Restli-Protocol-Version': '2.0.0', 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(noVersion.status).toBe(400);
    const noRestli = await fetch(`${sandbox.linkedinBaseUrl}/rest/posts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'LinkedIn-Version': LINKEDIN_API_VERSION, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(noRestli.status).toBe(400);
    const unknown = await fetch(`${sandbox.linkedinBaseUrl}/rest/posts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'LinkedIn-Version': LINKEDIN_API_VERSION, 'X-Restli-Protocol-Version': '2.0.0', 'Content-Type': 'application/json' },
      body: JSON.stringify({ author: 'urn:li:person:a', text: 'hi' }),
    });
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { message: string }).message).toContain('/text');
  });
});
