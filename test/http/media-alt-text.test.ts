/**
 * Alt text end to end (beyond-v2.md "Media through the API"): a PNG uploaded through the API with
 * its alt text, posted to X and to LinkedIn by the publish worker over real HTTP to the sandbox
 * platforms; each platform's record (GET /sandbox/record) shows the media with the alt text as
 * received (X through POST /2/media/metadata, LinkedIn in the post's content.media.altText). The
 * X request itself is checked against X's OpenAPI document in test/platforms/x-openapi.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedApi } from '../support/openapi.js';
import { PNG_1X1 } from '../support/connect.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface RecordedPost {
  id: string;
  media: Array<{ id: string; altText: string | null }>;
}
interface SandboxRecord {
  [platform: string]: { accounts: Record<string, { live: RecordedPost[] }> };
}

let stack: TestStack;

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sandbox: true });
  if (!stack.sandboxOrigin) throw new Error('the sandbox platforms did not start');
});
afterAll(() => stack?.stop());

async function until<T>(what: string, read: () => Promise<T | null>, timeoutMs = 25_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('alt text reaches the platforms', () => {
  it('an uploaded image\'s alt text goes to X (media metadata) and LinkedIn (the post\'s altText), changed once by PATCH', { timeout: 60_000 }, async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x', handle: '@alt_text' }, { platform: 'linkedin' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const created = await api.post<{ id: string; upload: { url: string; headers: Record<string, string> } }>('/media', {
      fileName: 'chart.png',
      contentType: 'image/png',
      size: PNG_1X1.byteLength,
      altText: 'A draft description',
    });
    expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: PNG_1X1 })).status).toBe(200);
    expect((await api.request('PATCH', `/media/${created.body.id}`, { body: { altText: 'Sales grew 12% in May' } })).status).toBe(200);
    const ready = await api.post<{ url: string }>(`/media/${created.body.id}/complete`);
    const batch = await api.post<{ posts: Array<{ id: string; accountId: string }> }>('/posts', {
      accounts: user.accounts.map((account) => account.id),
      text: 'May in one chart',
      media: [ready.body.url],
    });
    expect(batch.status).toBe(202);
    for (const post of batch.body.posts) {
      const platform = user.accounts.find((account) => account.id === post.accountId)?.platform ?? '';
      const recorded = await until(`${platform} post`, async () => {
        const view = await api.get<{ status: string; error: unknown }>(`/posts/${post.id}`);
        if (view.body.status === 'failed') throw new Error(`${platform}: ${JSON.stringify(view.body.error)}`);
        const record = (await (await fetch(`${stack.sandboxOrigin}/sandbox/record`)).json()) as SandboxRecord;
        return record[platform]?.accounts[post.accountId]?.live[0] ?? null;
      });
      expect(recorded.media, platform).toEqual([{ id: expect.any(String), altText: 'Sales grew 12% in May' }]);
    }
  });
});
