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

  it('a #word becomes a LinkedIn hashtag and @[Name](urn) a mention; C# and the rest stay text', async () => {
    const { account: acct, accessToken } = account('ok');
    const text = 'We ship #launch with @[Ana Lima](urn:li:person:a_1) and @[Acme](urn:li:organization:42) in C# (beta)';
    await client.publish({ account: acct, accessToken, text, media: [], options: {} });
    const [post] = sandbox.linkedin.listPosts(acct.id);
    expect(post?.details.commentary).toBe(
      'We ship {hashtag|\\#|launch} with @[Ana Lima](urn:li:person:a\\_1) and @[Acme](urn:li:organization:42) in C\\# \\(beta\\)',
    );
    expect(post?.text).toBe(text);
  });

  it('the sandbox refuses malformed little text with 422, as LinkedIn does', async () => {
    const { accessToken } = account('ok');
    for (const commentary of ['Hi @[Ana](urn:li:group:1)', 'Hi {hashtag|\\#|open']) {
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
          commentary,
          visibility: 'PUBLIC',
          distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
          lifecycleState: 'PUBLISHED',
        }),
      });
      expect(response.status, commentary).toBe(422);
      expect(((await response.json()) as { message: string }).message).toMatch(/^ERROR :: \/commentary :: invalid little text/);
    }
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

/** A one-page PDF, small and real enough: starts with %PDF- as every PDF does. */
const SMALL_PDF = new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

async function rest(accessToken: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${sandbox.linkedinBaseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${accessToken}`,
      'LinkedIn-Version': LINKEDIN_API_VERSION,
      'X-Restli-Protocol-Version': '2.0.0',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

function postBody(author: string, content: unknown): Record<string, unknown> {
  return {
    author,
    commentary: 'Native format',
    visibility: 'PUBLIC',
    distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: 'PUBLISHED',
    content,
  };
}

describe('LinkedIn adapter: polls and documents', () => {
  it('a poll post: content.poll with the question, the choices as options and the duration', async () => {
    const { account: acct, accessToken } = account('ok');
    const poll = { question: 'Tabs or spaces?', choices: ['Tabs', 'Spaces', 'Both (sometimes)'], duration: 'THREE_DAYS' };
    const result = await client.publish({ account: acct, accessToken, text: 'Settle it #devlife', media: [], options: { poll } });
    const [post] = sandbox.linkedin.listPosts(acct.id);
    expect(post).toMatchObject({ id: result.platformPostId, text: 'Settle it #devlife', mediaIds: [] });
    expect(post?.details.poll).toEqual({
      question: 'Tabs or spaces?',
      options: [{ text: 'Tabs' }, { text: 'Spaces' }, { text: 'Both (sometimes)' }],
      settings: { duration: 'THREE_DAYS' },
    });
    // The lookup after a lost answer recognises a poll post by its text.
    expect(await client.findRecentPost({ account: acct, accessToken, text: 'Settle it #devlife', since: new Date(Date.now() - 60_000) })).toEqual(result);
  });

  it('a poll with media is refused before anything is uploaded', async () => {
    const { account: acct, accessToken } = account('ok');
    const poll = { question: 'Q?', choices: ['a', 'b'], duration: 'ONE_DAY' };
    const error = await caught(client.publish({ account: acct, accessToken, text: 'x', media: [bytesMediaSource(new Uint8Array(10).fill(1), 'image/png')], options: { poll } }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(sandbox.linkedin.uploadedMedia(acct.id)).toEqual([]);
    expect(sandbox.linkedin.createAttemptCount(acct.id)).toBe(0);
  });

  it('a bad duration reaches LinkedIn only to be refused (the sandbox checks as LinkedIn does)', async () => {
    const { account: acct, accessToken } = account('ok');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'x', media: [], options: { poll: { question: 'Q?', choices: ['a', 'b'], duration: 'TWO_DAYS' } } }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(error.message).toContain('/content/poll/settings/duration');
    expect(sandbox.linkedin.createCount(acct.id)).toBe(0);
  });

  it('a document post: Documents API upload, status polled to AVAILABLE, content.media with the title', async () => {
    const { account: acct, accessToken } = account('ok', 'organization');
    const result = await client.publish({
      account: acct,
      accessToken,
      text: 'Our annual report',
      media: [bytesMediaSource(SMALL_PDF, 'application/pdf')],
      options: { documentTitle: 'Annual report 2026' },
    });
    const [document] = sandbox.linkedin.uploadedMedia(acct.id);
    expect(document).toMatchObject({ kind: 'document', sizeBytes: SMALL_PDF.length, status: 'AVAILABLE' });
    expect(document?.urn).toMatch(/^urn:li:document:/);
    const [post] = sandbox.linkedin.listPosts(acct.id);
    expect(post).toMatchObject({ id: result.platformPostId, mediaIds: [document?.urn] });
    expect(post?.details.documentTitle).toBe('Annual report 2026');
    expect(await client.findRecentPost({ account: acct, accessToken, text: 'Our annual report', mediaIds: [document?.urn ?? ''], since: new Date(Date.now() - 60_000) })).toEqual(result);
  });

  it('a large document is streamed from ranged reads, never read whole', async () => {
    const { account: acct, accessToken } = account('ok');
    const bytes = new Uint8Array(17 * 1024 * 1024).fill(0x20);
    bytes.set(SMALL_PDF);
    const source = bytesMediaSource(bytes, 'application/pdf');
    const reads: (string | number)[] = [];
    const recorded = { ...source, read: (range?: { start: number; end: number }) => (reads.push(range ? range.end - range.start : 'whole'), source.read(range)) };
    await client.publish({ account: acct, accessToken, text: 'Big deck', media: [recorded], options: { documentTitle: 'Big' } });
    expect(sandbox.linkedin.uploadedMedia(acct.id)).toEqual([expect.objectContaining({ kind: 'document', sizeBytes: bytes.length, status: 'AVAILABLE' })]);
    expect(reads).toEqual([8 * 1024 * 1024, 8 * 1024 * 1024, 1024 * 1024]);
  });

  it('a "PDF" that is not one fails LinkedIn\'s processing: refused for good, no post', async () => {
    const { account: acct, accessToken } = account('ok');
    const fake = new TextEncoder().encode('<html>not a pdf</html>');
    const error = await caught(client.publish({ account: acct, accessToken, text: 'x', media: [bytesMediaSource(fake, 'application/pdf')], options: { documentTitle: 'Fake' } }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(error.message).toContain('not of a supported type');
    expect(sandbox.linkedin.createAttemptCount(acct.id)).toBe(0);
  });

  it('the sandbox refuses a document post without a title, a poll beside media, and 5 poll options', async () => {
    const { account: acct, accessToken } = account('ok');
    const author = 'urn:li:person:abC12-xY';
    const init = await rest(accessToken, 'POST', '/rest/documents?action=initializeUpload', { initializeUploadRequest: { owner: author } });
    const value = init.json.value as { uploadUrl: string; document: string };
    await fetch(value.uploadUrl, { method: 'PUT', headers: { Authorization: `Bearer ${accessToken}` }, body: SMALL_PDF });
    // Processed after a few status reads, as LinkedIn converts the pages.
    for (let read = 0; read < 5; read++) await rest(accessToken, 'GET', `/rest/documents/${encodeURIComponent(value.document)}`);
    const untitled = await rest(accessToken, 'POST', '/rest/posts', postBody(author, { media: { id: value.document } }));
    expect(untitled.status).toBe(422);
    expect(String(untitled.json.message)).toContain('/content/media/title');
    const poll = { question: 'Q?', options: [{ text: 'a' }, { text: 'b' }], settings: { duration: 'ONE_DAY' } };
    const both = await rest(accessToken, 'POST', '/rest/posts', postBody(author, { poll, media: { id: value.document, title: 'T' } }));
    expect(both.status).toBe(422);
    const five = await rest(accessToken, 'POST', '/rest/posts', postBody(author, { poll: { ...poll, options: ['a', 'b', 'c', 'd', 'e'].map((text) => ({ text })) } }));
    expect(five.status).toBe(422);
    expect(sandbox.linkedin.createCount(acct.id)).toBe(0);
  });
});

describe('LinkedIn adapter: comments', () => {
  it('publishComment comments as the account, text whole; findComment finds it again, and only since the send', async () => {
    const { account: acct, accessToken } = account('ok');
    const post = await client.publish({ account: acct, accessToken, text: 'Launch day', media: [], options: {} });
    const since = new Date(Date.now() - 1000);
    const text = 'Link in here: https://example.com/launch (details #1)';
    const result = await client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text });
    expect(result.platformCommentId).toMatch(new RegExp(`^urn:li:comment:\\(${post.platformPostId},\\d+\\)$`));
    const [comment] = sandbox.linkedin.listComments({ postUrn: post.platformPostId });
    expect(comment).toMatchObject({ urn: result.platformCommentId, actor: 'urn:li:person:abC12-xY', text });
    expect(await client.findComment({ account: acct, accessToken, platformPostId: post.platformPostId, text, since })).toEqual(result);
    expect(await client.findComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'another text', since })).toBeNull();
    expect(await client.findComment({ account: acct, accessToken, platformPostId: post.platformPostId, text, since: new Date(Date.now() + 60_000) })).toBeNull();
  });

  it('an organization comments as the organization', async () => {
    const { account: acct, accessToken } = account('ok', 'organization');
    const post = await client.publish({ account: acct, accessToken, text: 'Org post', media: [], options: {} });
    await client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'First!' });
    expect(sandbox.linkedin.listComments({ postUrn: post.platformPostId })[0]?.actor).toBe('urn:li:organization:98765');
  });

  it('refuse-comment: the post is taken, the comment refused for good', async () => {
    const { account: acct, accessToken } = account('refuse-comment');
    const post = await client.publish({ account: acct, accessToken, text: 'Posts still go out', media: [], options: {} });
    expect(sandbox.linkedin.createCount(acct.id)).toBe(1);
    const error = await caught(client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'Never shown' }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(sandbox.linkedin.listComments({ accountId: acct.id })).toEqual([]);
  });

  it('refuse-part-3 means nothing on LinkedIn: posts and comments are taken', async () => {
    const { account: acct, accessToken } = account('refuse-part-3');
    for (const text of ['one', 'two', 'three']) await client.publish({ account: acct, accessToken, text, media: [], options: {} });
    const third = sandbox.linkedin.listPosts(acct.id)[2];
    await client.publishComment({ account: acct, accessToken, platformPostId: third?.id ?? '', text: 'ok' });
    expect(sandbox.linkedin.createCount(acct.id)).toBe(3);
    expect(sandbox.linkedin.listComments({ accountId: acct.id })).toHaveLength(1);
  });

  it('a comment on an unknown or deleted post is refused', async () => {
    const { account: acct, accessToken } = account('ok');
    const unknown = await caught(client.publishComment({ account: acct, accessToken, platformPostId: 'urn:li:share:1234567890123456789', text: 'hi' }));
    expect(unknown).toBeInstanceOf(PlatformRefusedError);
    const post = await client.publish({ account: acct, accessToken, text: 'Short-lived', media: [], options: {} });
    await client.deletePost({ account: acct, accessToken, platformPostId: post.platformPostId });
    expect(await caught(client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'hi' }))).toBeInstanceOf(PlatformRefusedError);
  });

  it('a comment whose answer is lost is ambiguous, and findComment settles it (no second comment)', async () => {
    const { account: acct, accessToken } = account('ok');
    const post = await client.publish({ account: acct, accessToken, text: 'Lost answers', media: [], options: {} });
    const since = new Date(Date.now() - 1000);
    sandbox.linkedin.injectFault(acct.id, 'drop_after_create');
    const error = await caught(client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'Was it sent?' }));
    expect(error).toBeInstanceOf(PlatformAmbiguousError);
    const found = await client.findComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'Was it sent?', since });
    expect(found?.platformCommentId).toBe(sandbox.linkedin.listComments({ postUrn: post.platformPostId })[0]?.urn);
    expect(sandbox.linkedin.listComments({ postUrn: post.platformPostId })).toHaveLength(1);
  });

  it('flaky: the comment is answered 503 once (ambiguous to the caller, settled by a lookup), then taken once', async () => {
    const { account: acct, accessToken } = account('flaky');
    const post = await client.publish({ account: acct, accessToken, text: 'Flaky', media: [], options: {} }).catch(() =>
      client.publish({ account: acct, accessToken, text: 'Flaky', media: [], options: {} }),
    );
    const first = await caught(client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'c' }));
    expect(first).toBeInstanceOf(PlatformAmbiguousError);
    await client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'c' });
    expect(sandbox.linkedin.listComments({ accountId: acct.id })).toHaveLength(1);
  });
});
