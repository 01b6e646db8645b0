/**
 * PENDING until the rules' branch (nf-rules) lands: POST /posts with `options.x.thread` and
 * `options.x.firstComment` (nf-design.md). Rename to threads-api.test.ts at merge. The same
 * outcomes as test/http/threads.test.ts, whose posts get their parts written on the item instead.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostView {
  id: string;
  status: string;
  format: string;
  platformPostId: string | null;
  threadParts: { platformPostId: string | null; publishedUrl: string | null }[];
  firstComment: { status: string; platformCommentId: string | null } | null;
  error: { message: string; retryable: boolean } | null;
}

let stack: TestStack;
let sandbox: SandboxPlatforms;
let user: ProvisionedUser;
const client = () => documentedApi(stack.baseUrl, user.apiKey);

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sweeper: true, sandbox: true, sweeperIntervalMs: 1000, env: { [ENV.sweeperGraceSeconds]: '3' } });
  if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
  sandbox = stack.sandbox;
  user = await provisionUser();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function settled(postId: string, done: (post: PostView) => boolean): Promise<PostView> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const response = await client().get<PostView>(`/posts/${postId}`);
    expect(response.status).toBe(200);
    if (done(response.body)) return response.body;
    if (Date.now() > deadline) throw new Error(`post ${postId} did not settle`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

it('a thread of 5 through the API on refuse-part-3: failed with 2 live parts named', async () => {
  const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', sandbox: 'refuse-part-3', handle: '@api_thread' });
  const response = await client().post<{ posts: { id: string; status: string }[] }>('/posts', {
    accounts: [account.id],
    text: 'API thread part 1',
    options: { x: { thread: [2, 3, 4, 5].map((n) => ({ text: `API thread part ${n}` })) } },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const post = await settled(response.body.posts[0]?.id as string, (view) => view.status !== 'scheduled');
  expect(post.format).toBe('thread');
  expect(post.status).toBe('failed');
  expect(post.error?.message).toMatch(/^Parts 1-2 of 5 are live on X/);
  expect(sandbox.x.listPosts(account.id)).toHaveLength(2);
});

it('a first comment through the API on refuse-comment: the post published, the comment failed', async () => {
  const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'x', sandbox: 'refuse-comment', handle: '@api_comment' });
  const response = await client().post<{ posts: { id: string; status: string }[] }>('/posts', {
    accounts: [account.id],
    text: 'API post with a comment',
    options: { x: { firstComment: 'The link: https://example.com' } },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const post = await settled(response.body.posts[0]?.id as string, (view) => view.firstComment !== null && view.firstComment.status !== 'pending');
  expect(post.status).toBe('published');
  expect(post.firstComment?.status).toBe('failed');
});
