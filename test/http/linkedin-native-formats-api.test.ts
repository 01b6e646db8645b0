/**
 * LinkedIn's native formats created through POST /posts alone and published by the worker against
 * the LinkedIn sandbox: a document post, a poll post, and a first comment (posted on the live post,
 * or refused by a `refuse-comment` account without costing the post), each shown by GET /posts/{id}.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { documentedApi } from '../support/openapi.js';
import { pdf } from '../support/pdf.js';
import { startPostsStack } from '../support/posts.js';
import { addMedia, connectAccount, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostView {
  id: string;
  status: string;
  format: string;
  platformPostId: string | null;
  firstComment: { status: string; platformCommentId: string | null; error: { message: string } | null } | null;
  threadParts: unknown[];
  error: { message: string } | null;
}

let stack: TestStack;
let sandbox: SandboxPlatforms;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sweeper: true, sandbox: true, sweeperIntervalMs: 1000 });
  if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
  sandbox = stack.sandbox;
  user = await provisionUser();
});
afterAll(() => stack?.stop());

const client = () => documentedApi(stack.baseUrl, user.apiKey);

async function create(body: Record<string, unknown>): Promise<string> {
  const response = await client().post<{ posts: { id: string | null; status: string; reason: string | null }[] }>('/posts', body);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect(response.body.posts[0]?.status, JSON.stringify(response.body)).toBe('accepted');
  return response.body.posts[0]?.id as string;
}

/** The post once it has left `scheduled` (and, with `comment`, once its first comment is settled too). */
async function settled(postId: string, timeoutMs = 45_000, comment = false): Promise<PostView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client().get<PostView>(`/posts/${postId}`);
    expect(response.status).toBe(200);
    const commentSettled = !comment || (response.body.firstComment !== null && response.body.firstComment.status !== 'pending');
    if (response.body.status !== 'scheduled' && commentSettled) return response.body;
    if (Date.now() > deadline) throw new Error(`post ${postId} still scheduled after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('LinkedIn native formats through the API', () => {
  it('a document post: one library PDF and options.linkedin.documentTitle', { timeout: 60_000 }, async () => {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'linkedin', sandbox: 'ok' });
    const deck = await addMedia(user.userId, { fileName: 'deck.pdf', contentType: 'application/pdf', body: pdf(3) });
    const post = await settled(
      await create({ accounts: [account.id], text: 'The deck from today', media: [deck.url], options: { linkedin: { documentTitle: 'Meetup deck' } } }),
    );
    expect(post).toMatchObject({ status: 'published', format: 'document', threadParts: [], firstComment: null });
    const [live] = sandbox.linkedin.listPosts(account.id);
    expect(live?.id).toBe(post.platformPostId);
    expect(live?.details.documentTitle).toBe('Meetup deck');
    expect(sandbox.linkedin.uploadedMedia(account.id)).toEqual([expect.objectContaining({ kind: 'document', status: 'AVAILABLE' })]);
  });

  it('a poll post: options.linkedin.poll', { timeout: 60_000 }, async () => {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'linkedin', sandbox: 'ok' });
    const poll = { question: 'Next meetup topic?', choices: ['Testing', 'Tracing', 'Typing'], duration: 'THREE_DAYS' };
    const post = await settled(await create({ accounts: [account.id], text: 'Vote below', options: { linkedin: { poll } } }));
    expect(post).toMatchObject({ status: 'published', format: 'poll' });
    const [live] = sandbox.linkedin.listPosts(account.id);
    expect(live?.details.poll).toEqual({ question: poll.question, options: poll.choices.map((text) => ({ text })), settings: { duration: 'THREE_DAYS' } });
  });

  it('a first comment: posted on the live post once, as the account', { timeout: 60_000 }, async () => {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'linkedin', sandbox: 'ok' });
    const post = await settled(
      await create({ accounts: [account.id], text: 'Slides are out', options: { linkedin: { firstComment: 'Link: https://example.com/slides' } } }),
      45_000,
      true,
    );
    expect(post).toMatchObject({ status: 'published', format: 'text', firstComment: { status: 'published', error: null } });
    const comments = sandbox.linkedin.listComments({ accountId: account.id });
    expect(comments).toHaveLength(1);
    expect(comments[0]?.postUrn).toBe(post.platformPostId);
    expect(post.firstComment?.platformCommentId).toBe(comments[0]?.urn);
  });

  it('a refused first comment leaves the post published and says why', { timeout: 60_000 }, async () => {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'linkedin', sandbox: 'refuse-comment' });
    const post = await settled(
      await create({ accounts: [account.id], text: 'Comments refused here', options: { linkedin: { firstComment: 'Link: https://example.com' } } }),
      45_000,
      true,
    );
    expect(post).toMatchObject({ status: 'published', error: null, firstComment: { status: 'failed', platformCommentId: null } });
    expect(post.firstComment?.error?.message).toBeTruthy();
    expect(sandbox.linkedin.listComments({ accountId: account.id })).toEqual([]);
  });
});
