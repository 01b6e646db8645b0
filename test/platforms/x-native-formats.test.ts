/**
 * The X adapter's native formats against the X sandbox over real HTTP: replies (a thread's parts),
 * polls, the first comment as a reply, the lookup of replies, and the two sandbox behaviours that
 * fail a thread midway or a first comment alone. (Their shapes against X's OpenAPI document:
 * test/platforms/x-openapi.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBehaviour } from '../../lib/domain/model.js';
import { PlatformRefusedError } from '../../lib/domain/platform-errors.js';
import { bytesMediaSource } from '../../lib/platforms/media-source.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { caught, SandboxAccounts, type SandboxAccount } from '../support/platform-sandbox.js';

const accounts = new SandboxAccounts();
let sandbox: SandboxPlatforms;
let client: XClient;

function account(behaviour: SandboxBehaviour = 'ok'): SandboxAccount {
  return accounts.create('x', behaviour, { platformUserId: '1234567890', handle: '@sandbox_user', accountType: 'personal' });
}

const since = () => new Date(Date.now() - 60_000);

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({ port: 0, accountBehaviour: accounts.accountBehaviour });
  client = new XClient({ baseUrl: sandbox.xBaseUrl, clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x, maxPollWaitMs: 20 });
});

afterAll(async () => {
  await sandbox.stop();
});

describe('X adapter: replies and their lookup', () => {
  it('a reply carries reply.in_reply_to_tweet_id, and only the lookup with that replyTo finds it', async () => {
    const { account: acct, accessToken } = account();
    const first = await client.publish({ account: acct, accessToken, text: 'Part one', media: [], options: {} });
    const second = await client.publish({ account: acct, accessToken, text: 'Part two', media: [], options: {}, replyTo: first.platformPostId });
    const stored = sandbox.x.listPosts(acct.id).find((post) => post.id === second.platformPostId);
    expect(stored?.details.in_reply_to_tweet_id).toBe(first.platformPostId);

    expect(await client.findRecentPost({ account: acct, accessToken, text: 'Part two', since: since(), replyTo: first.platformPostId })).toEqual(second);
    // Not a reply to this post, or looked up as a post of its own: not this one.
    expect(await client.findRecentPost({ account: acct, accessToken, text: 'Part two', since: since(), replyTo: second.platformPostId })).toBeNull();
    expect(await client.findRecentPost({ account: acct, accessToken, text: 'Part two', since: since() })).toBeNull();
  });

  it('a reply to a deleted or unknown post is refused, as X refuses it', async () => {
    const { account: acct, accessToken } = account();
    const gone = await client.publish({ account: acct, accessToken, text: 'Soon gone', media: [], options: {} });
    await client.deletePost({ account: acct, accessToken, platformPostId: gone.platformPostId });
    for (const replyTo of [gone.platformPostId, '1999999999999999999']) {
      const error = await caught(client.publish({ account: acct, accessToken, text: `Answer to ${replyTo}`, media: [], options: {}, replyTo }));
      expect(error).toBeInstanceOf(PlatformRefusedError);
      expect(error.message).toMatch(/deleted or not visible/);
    }
  });
});

describe('X adapter: polls', () => {
  it('options.poll goes out as X poll {options, duration_minutes}', async () => {
    const { account: acct, accessToken } = account();
    const result = await client.publish({ account: acct, accessToken, text: 'Which one?', media: [], options: { poll: { choices: ['A', 'B', 'C'], durationMinutes: 60 } } });
    const stored = sandbox.x.listPosts(acct.id).find((post) => post.id === result.platformPostId);
    expect(stored?.details.poll).toEqual({ options: ['A', 'B', 'C'], duration_minutes: 60 });
  });

  it('the sandbox refuses what X refuses: media beside a poll, a bad duration, too few or too long choices', async () => {
    const { account: acct, accessToken } = account();
    const png = bytesMediaSource(new Uint8Array(2000).fill(3), 'image/png');
    const cases: { media: ReturnType<typeof bytesMediaSource>[]; poll: unknown; said: RegExp }[] = [
      { media: [png], poll: { choices: ['A', 'B'], durationMinutes: 60 }, said: /both media and a poll/ },
      { media: [], poll: { choices: ['A', 'B'], durationMinutes: 4 }, said: /duration_minutes/ },
      { media: [], poll: { choices: ['A', 'B'], durationMinutes: 10081 }, said: /duration_minutes/ },
      { media: [], poll: { choices: ['A'], durationMinutes: 60 }, said: /poll\.options/ },
      { media: [], poll: { choices: ['A', 'x'.repeat(26)], durationMinutes: 60 }, said: /poll\.options/ },
    ];
    for (const [index, entry] of cases.entries()) {
      const error = await caught(client.publish({ account: acct, accessToken, text: `Poll ${index}`, media: entry.media, options: { poll: entry.poll } }));
      expect(error).toBeInstanceOf(PlatformRefusedError);
      expect(error.message).toMatch(entry.said);
    }
    expect(sandbox.x.listPosts(acct.id)).toEqual([]);
  });
});

describe('X adapter: the first comment', () => {
  it('is a reply to the post, and findComment finds it (and nothing else)', async () => {
    const { account: acct, accessToken } = account();
    const post = await client.publish({ account: acct, accessToken, text: 'The post', media: [], options: {} });
    const request = { account: acct, accessToken, platformPostId: post.platformPostId, text: 'The link: https://example.com/a' };
    expect(await client.findComment({ ...request, since: since() })).toBeNull();
    const comment = await client.publishComment(request);
    expect(sandbox.x.listPosts(acct.id).find((item) => item.id === comment.platformCommentId)?.details.in_reply_to_tweet_id).toBe(post.platformPostId);
    expect(await client.findComment({ ...request, since: since() })).toEqual(comment);
    expect(await client.findComment({ ...request, text: 'Another text', since: since() })).toBeNull();
  });
});

describe('X sandbox behaviours for native formats', () => {
  it('refuse-part-3 takes the first two posts of a reply chain and refuses the third', async () => {
    const { account: acct, accessToken } = account('refuse-part-3');
    const one = await client.publish({ account: acct, accessToken, text: 'Chain 1', media: [], options: {} });
    const two = await client.publish({ account: acct, accessToken, text: 'Chain 2', media: [], options: {}, replyTo: one.platformPostId });
    const error = await caught(client.publish({ account: acct, accessToken, text: 'Chain 3', media: [], options: {}, replyTo: two.platformPostId }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    // A second reply to part 1 is the chain's second post again: taken.
    await client.publish({ account: acct, accessToken, text: 'Chain 2 bis', media: [], options: {}, replyTo: one.platformPostId });
    expect(sandbox.x.listPosts(acct.id).map((post) => post.text)).toEqual(['Chain 1', 'Chain 2', 'Chain 2 bis']);
  });

  it('refuse-comment takes posts and refuses a reply to the account\'s own post', async () => {
    const { account: acct, accessToken } = account('refuse-comment');
    const post = await client.publish({ account: acct, accessToken, text: 'Taken', media: [], options: {} });
    const error = await caught(client.publishComment({ account: acct, accessToken, platformPostId: post.platformPostId, text: 'Refused comment' }));
    expect(error).toBeInstanceOf(PlatformRefusedError);
    expect(sandbox.x.listPosts(acct.id).map((item) => item.text)).toEqual(['Taken']);
  });
});
