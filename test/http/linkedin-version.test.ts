/**
 * LinkedIn retires each monthly LinkedIn-Version about a year after its month and then answers
 * 426 NONEXISTENT_VERSION to every call (issue 20, item 7). The sandbox does the same; a post sent
 * with a retired version fails at once (nothing was created, so there is nothing to retry) with
 * LinkedIn's words and advice that tells the operator where the version lives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import { LINKEDIN_API_VERSION } from '../../lib/platforms/linkedin-version.js';
import { inactiveVersionAnswer, LINKEDIN_VERSION_LIFETIME_MONTHS } from '../../local/sandbox/linkedin.js';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

/** The LinkedIn-Version (YYYYMM) `monthsAgo` months before `now`. */
function versionOf(now: Date, monthsAgo: number): string {
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, 1));
  return `${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

const RETIRED = versionOf(new Date(), LINKEDIN_VERSION_LIFETIME_MONTHS + 1);

describe('the sandbox serves a version as LinkedIn does', () => {
  it('for 12 months after its month, not after and not before', () => {
    const now = new Date('2026-11-25T08:00:00Z');
    expect(inactiveVersionAnswer('202611', now)).toBeNull();
    expect(inactiveVersionAnswer('202511', now)).toBeNull();
    expect(inactiveVersionAnswer('202511.02', now)).toBeNull();
    expect(inactiveVersionAnswer('202510', now)).toEqual({ status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 20251001 is not active' });
    expect(inactiveVersionAnswer('202612', now)?.code).toBe('NONEXISTENT_VERSION');
    expect(inactiveVersionAnswer('202613', now)?.code).toBe('NONEXISTENT_VERSION');
    expect(inactiveVersionAnswer('202600', now)?.code).toBe('NONEXISTENT_VERSION');
  });

  it('still serves the version the service calls it with (when this fails, move LINKEDIN_API_VERSION: docs/deploy.md)', () => {
    expect(inactiveVersionAnswer(LINKEDIN_API_VERSION, new Date())).toBeNull();
  });
});

describe('a post sent with a retired LinkedIn-Version', () => {
  let stack: TestStack;
  let sandbox: SandboxPlatforms;
  let user: ProvisionedUser;

  beforeAll(async () => {
    stack = await startPostsStack({ consumers: true, sandbox: true, env: { [ENV.linkedinApiVersion]: RETIRED } });
    if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
    sandbox = stack.sandbox;
    user = await provisionUser();
  });
  afterAll(() => stack?.stop());

  it('fails with LinkedIn’s words and advice naming where the version lives; nothing is created', async () => {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'linkedin', sandbox: 'ok' });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const created = await api.post<{ posts: { id: string | null; status: string }[] }>('/posts', { accounts: [account.id], text: 'Sent with a retired version' });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const postId = created.body.posts[0]?.id as string;

    const deadline = Date.now() + 45_000;
    let post: { status: string; error: { message: string; advice: string } | null; publishedAt: string | null };
    for (;;) {
      const answer = await api.get<typeof post>(`/posts/${postId}`);
      expect(answer.status).toBe(200);
      post = answer.body;
      if (post.status !== 'scheduled') break;
      if (Date.now() > deadline) throw new Error(`post ${postId} still scheduled`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(post.status).toBe('failed');
    expect(post.publishedAt).toBeNull();
    expect(post.error?.message).toBe(`Requested version ${RETIRED}01 is not active`);
    expect(post.error?.advice).toBe(
      `LinkedIn no longer serves API version ${RETIRED}, so no post to it can go out: the operator must move LINKEDIN_API_VERSION in lib/platforms/linkedin-version.ts (or the LINKEDIN_API_VERSION environment variable) to a current version and redeploy; then create the post again.`,
    );
    expect(sandbox.linkedin.createCount(account.id)).toBe(0);
  });
});
