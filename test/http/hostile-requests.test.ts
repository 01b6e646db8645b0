/**
 * What a hostile or careless caller can make one request cost, through HTTP against the local
 * stack (issue 10, items 1 and 3): texts that made X's text counting quadratic, and bodies over
 * our 256 KiB limit and over API Gateway's 10 MB. The answers are checked here; the time they take
 * is measured in bench/text-rules.ts, never asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/http.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostResult {
  accountId: string;
  status: string;
  reason: string | null;
  message: string | null;
}

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startPostsStack();
  user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'x' }, { platform: 'x' }, { platform: 'linkedin' }] });
});

afterAll(async () => {
  await stack?.stop();
});

const id = (index: number): string => user.accounts[index]?.id ?? '';

describe('texts that made X text counting quadratic', () => {
  it('a draft of ~250 KiB of repeating patterns gets its per-target answers, and GET /accounts is answered meanwhile', async () => {
    const client = documentedApi(stack.baseUrl, user.apiKey);
    const fill = (pattern: string, bytes: number): string => pattern.repeat(Math.floor(bytes / Buffer.byteLength(pattern)));
    const body = {
      accounts: [id(0), id(1), id(2), id(3)],
      draft: true,
      // ~100 KiB each for the per-account texts, ~40 KiB shared: the body stays under 256 KiB.
      text: fill('a.', 40_000),
      texts: { [id(1)]: fill('www.', 100_000), [id(2)]: fill('ab-cd. ', 100_000) },
    };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(256 * 1024);
    const [created, accounts] = await Promise.all([
      client.post<{ posts: PostResult[] }>('/posts', body),
      // Sent while the create is being checked: before the fix it waited for the create (seconds).
      new Promise((resolveSoon) => setTimeout(resolveSoon, 50)).then(() => client.get<{ accounts: unknown[] }>('/accounts')),
    ]);
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts).toHaveLength(4);
    expect(created.status).toBe(400);
    const posts = created.body.posts;
    expect(posts.map((post) => post.reason)).toEqual(['text_too_long', 'text_too_long', 'text_too_long', 'text_too_long']);
    // One run of 40,000 characters with a dot: refused without the quadratic parse.
    expect(posts[0]?.message).toBe('The text has 40000 characters without a space, more than x can count as one link; the limit is 280.');
    expect(posts[1]?.message).toMatch(/without a space/);
    // Spaced out: counted segment by segment, stopping just past the limit.
    expect(posts[2]?.message).toBe('The text is more than 280 characters as x counts them; the limit is 280 (X Premium accounts post up to 25,000).');
    expect(posts[3]?.message).toBe('The text is 40000 characters as linkedin counts them; the limit is 3000.');
  });

  it('a text within the limit is still counted exactly, links as 23', async () => {
    const client = documentedApi(stack.baseUrl, user.apiKey);
    const link = `https://example.com/${'p'.repeat(300)}`;
    const fits = `${'a'.repeat(280 - 2 * 23 - 2)} ${link} ${link}`;
    const ok = await client.post<{ posts: PostResult[] }>('/posts', { accounts: [id(0)], draft: true, text: fits });
    expect(ok.status).toBe(202);
    const over = await client.post<{ posts: PostResult[] }>('/posts', { accounts: [id(0)], draft: true, text: `${fits}!` });
    expect(over.body.posts[0]?.message).toBe('The text is 281 characters as x counts them; the limit is 280 (X Premium accounts post up to 25,000).');
  });
});

describe('bodies over the limits', () => {
  const jsonOf = (bytes: number): string => `{"accounts":["${id(0)}"],"draft":true,"text":"${'a'.repeat(bytes)}"}`;

  it('over 256 KiB, up to what API Gateway lets through: 400 invalid_body with the rate-limit headers', async () => {
    const client = documentedApi(stack.baseUrl, user.apiKey);
    for (const bytes of [256 * 1024, 5 * 1024 * 1024]) {
      const response = await client.request('POST', '/posts', { rawBody: jsonOf(bytes), headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: { code: 'invalid_body', param: null, message: 'The request body is larger than 256 KiB.' } });
      expect(response.headers['x-ratelimit-limit']).toBeDefined();
      expect(response.headers['x-ratelimit-remaining']).toBeDefined();
    }
  });

  it('over 10 MB: API Gateway itself answers 413 before any of our code runs (as on AWS, see docs/api.md)', async () => {
    const response = await api(stack.baseUrl, user.apiKey).request('POST', '/posts', {
      rawBody: jsonOf(10 * 1024 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'Request Entity Too Large' });
    // Our code never ran, so there is no rate-limit decision to describe.
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
