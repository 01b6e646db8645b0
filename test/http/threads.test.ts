/**
 * X threads and first comments through the local stack (issue 22, items 3, 4 and 7): the publish
 * worker sends a thread part by part to the X sandbox over real HTTP, and GET /posts/{id} (checked
 * against openapi.yaml) shows the outcome. The sandbox's own record proves that no part or comment
 * went out twice and none is missing.
 *
 * Until the rules' branch lets POST /posts take `options.x.thread` / `firstComment`, a post is
 * created through the API as a text post and its thread parts or first comment are written on its
 * item, as the rules will store them (nf-design.md). The crash points are set up the same way: the
 * item is left exactly as a worker that stopped at that point leaves it (a part recorded, a part or
 * a comment sent without an answer), and the next attempt must carry on from there.
 */
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import type { Account } from '../../lib/domain/model.js';
import { newId } from '../../lib/domain/ids.js';
import { issueSandboxTokens } from '../../lib/domain/sandbox-tokens.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { dueShard } from '../../lib/store/post-item.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { SANDBOX_CLIENT_CREDENTIALS, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount, provisionUser, updateAccount, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostView {
  id: string;
  status: 'draft' | 'scheduled' | 'published' | 'failed';
  format: string;
  platformPostId: string | null;
  threadParts: { platformPostId: string | null; publishedUrl: string | null }[];
  firstComment: { status: string; platformCommentId: string | null; error: { message: string } | null } | null;
  error: { message: string; advice: string; retryable: boolean } | null;
}

let stack: TestStack;
let sandbox: SandboxPlatforms;
let user: ProvisionedUser;
let documents: DynamoDBDocumentClient;
let x: XClient;

const client = () => documentedApi(stack.baseUrl, user.apiKey);

function account(behaviour: NonNullable<Account['sandbox']>): Promise<Account> {
  return connectAccount(user.workspaceIds[0] as string, { platform: 'x', sandbox: behaviour, handle: `@thread_${behaviour.replace(/-/g, '_')}` });
}

let counter = 0;
function texts(label: string, count: number): string[] {
  counter += 1;
  const tag = `${counter}-${newId('post').slice(-6)}`;
  return Array.from({ length: count }, (_, index) => `${label} ${tag} part ${index + 1}`);
}

/** A scheduled text post due `seconds` from now, its item then given the thread parts and/or first comment. */
async function createPost(accountId: string, input: { parts: string[]; firstComment?: string; seconds?: number; item?: Record<string, unknown> }): Promise<string> {
  const [first, ...rest] = input.parts;
  const response = await client().post<{ posts: { id: string; status: string }[] }>('/posts', {
    accounts: [accountId],
    text: first,
    scheduledFor: new Date(Date.now() + (input.seconds ?? 4) * 1000).toISOString(),
  });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const id = response.body.posts[0]?.id as string;
  const set: Record<string, unknown> = { ...(input.item ?? {}) };
  if (rest.length > 0) {
    set.format = 'thread';
    set.threadParts = rest.map((text) => ({ text, mediaUrls: [], mediaIds: [] }));
  }
  if (input.firstComment !== undefined) set.firstComment = { text: input.firstComment, status: 'pending' };
  await updateItem(id, set);
  return id;
}

async function updateItem(postId: string, set: Record<string, unknown>): Promise<void> {
  const names = Object.keys(set);
  if (names.length === 0) return;
  await documents.send(
    new UpdateCommand({
      TableName: stack.info.tables.posts,
      Key: { id: postId },
      UpdateExpression: `SET ${names.map((_, index) => `#a${index} = :a${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#a${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:a${index}`, set[name]])),
    }),
  );
}

async function view(postId: string): Promise<PostView> {
  const response = await client().get<PostView>(`/posts/${postId}`);
  expect(response.status).toBe(200);
  return response.body;
}

async function until(what: string, check: () => Promise<PostView | null>, timeoutMs = 45_000): Promise<PostView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const settled = (postId: string) =>
  until(`post ${postId} to settle`, async () => {
    const post = await view(postId);
    return post.status === 'scheduled' ? null : post;
  });

const commentSettled = (postId: string) =>
  until(`the first comment of ${postId} to settle`, async () => {
    const post = await view(postId);
    return post.firstComment && post.firstComment.status !== 'pending' ? post : null;
  });

/** The account's posts on the sandbox as [text, the id it answers] in creation order, deleted ones included. */
function onX(accountId: string) {
  return sandbox.x.listPosts(accountId).map((post) => ({ id: post.id, text: post.text, replyTo: (post.details.in_reply_to_tweet_id as string | undefined) ?? null }));
}

/** Parts live on X for a thread of these texts: each once, each answering the one before. */
function expectChain(accountId: string, parts: string[]): string[] {
  const live = onX(accountId).filter((post) => parts.includes(post.text));
  expect(live.map((post) => post.text)).toEqual(parts);
  live.forEach((post, index) => expect(post.replyTo).toBe(index === 0 ? null : live[index - 1]?.id));
  return live.map((post) => post.id);
}

function tokenOf(accountId: string): string {
  return issueSandboxTokens(accountId, 'x', new Date()).accessToken;
}

function xAccount(acct: Account) {
  return { id: acct.id, platformUserId: acct.platformUserId, handle: acct.handle, accountType: acct.accountType };
}

beforeAll(async () => {
  stack = await startPostsStack({
    consumers: true,
    sweeper: true,
    sandbox: true,
    sweeperIntervalMs: 1000,
    env: { [ENV.sweeperGraceSeconds]: '3', [ENV.publishAmbiguousRecheckSeconds]: '1' },
  });
  if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
  sandbox = stack.sandbox;
  user = await provisionUser();
  documents = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }), { marshallOptions: { removeUndefinedValues: true } });
  x = new XClient({ baseUrl: sandbox.xBaseUrl, clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x });
}, 60_000);

afterAll(async () => {
  documents?.destroy();
  await stack?.stop();
});

// The tests of each block run side by side: each has an account of its own and checks only what
// the sandbox holds for it, and its time is waiting for the worker and the sweeper.
describe('a thread on X', { concurrent: true }, () => {
  it('goes out part by part, each answering the one before, and is published once every part is live', async () => {
    const acct = await account('ok');
    const parts = texts('Thread', 4);
    const postId = await createPost(acct.id, { parts });
    const post = await settled(postId);
    expect(post.status).toBe('published');
    expect(post.format).toBe('thread');
    const ids = expectChain(acct.id, parts);
    expect([post.platformPostId, ...post.threadParts.map((part) => part.platformPostId)]).toEqual(ids);
    expect(post.threadParts.every((part) => part.publishedUrl?.endsWith(`/status/${part.platformPostId}`))).toBe(true);
  });

  it('deleted with deleteFromPlatform once live: every part comes down, not only the first', async () => {
    const acct = await account('ok');
    const parts = texts('Deleted thread', 3);
    const postId = await createPost(acct.id, { parts });
    expect((await settled(postId)).status).toBe('published');
    const ids = expectChain(acct.id, parts);
    const deleted = await client().delete<{ softDeleted: boolean }>(`/posts/${postId}?deleteFromPlatform=true`);
    expect(deleted.status).toBe(200);
    await until('every part deleted on X', async () => {
      const live = sandbox.x.listPosts(acct.id).filter((post) => ids.includes(post.id) && post.deletedAt === null);
      return live.length === 0 ? ({} as PostView) : null;
    });
  });

  it('part 3 of 5 refused (refuse-part-3): failed with the 2 live parts named; a retry continues from part 3', async () => {
    const acct = await account('refuse-part-3');
    const parts = texts('Refused midway', 5);
    const postId = await createPost(acct.id, { parts });
    const failed = await settled(postId);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toMatch(/^Parts 1-2 of 5 are live on X; part 3 did not go out/);
    expect(failed.error?.retryable).toBe(true);
    expect(failed.platformPostId).not.toBeNull();
    expect(failed.threadParts.map((part) => part.platformPostId !== null)).toEqual([true, false, false, false]);
    expectChain(acct.id, parts.slice(0, 2));

    await updateAccount(acct.id, { sandbox: 'ok' });
    const retried = await client().post<PostView>(`/posts/${postId}/retry`, {});
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const post = await settled(postId);
    expect(post.status).toBe('published');
    // Parts 1 and 2 were not sent again; 3 answers the part 2 that was already live.
    const ids = expectChain(acct.id, parts);
    expect([post.platformPostId, ...post.threadParts.map((part) => part.platformPostId)]).toEqual(ids);
    expect(onX(acct.id)).toHaveLength(5);
  });
});

describe('a thread whose worker stopped between parts', { concurrent: true }, () => {
  it('a part recorded, then the crash: the next attempt sends the next parts only', async () => {
    const acct = await account('ok');
    const parts = texts('Resumed', 3);
    const account_ = xAccount(acct);
    const accessToken = tokenOf(acct.id);
    const one = await x.publish({ account: account_, accessToken, text: parts[0] as string, media: [], options: {} });
    const two = await x.publish({ account: account_, accessToken, text: parts[1] as string, media: [], options: {}, replyTo: one.platformPostId });
    const postId = await createPost(acct.id, {
      parts,
      item: { platformPostId: one.platformPostId, publishedUrl: one.publishedUrl, inFlightSince: new Date().toISOString() },
    });
    await documents.send(
      new UpdateCommand({
        TableName: stack.info.tables.posts,
        Key: { id: postId },
        UpdateExpression: 'SET threadParts[0].platformPostId = :id, threadParts[0].publishedUrl = :url',
        ExpressionAttributeValues: { ':id': two.platformPostId, ':url': two.publishedUrl },
      }),
    );
    const post = await settled(postId);
    expect(post.status).toBe('published');
    expect(expectChain(acct.id, parts)).toEqual([one.platformPostId, two.platformPostId, post.threadParts[1]?.platformPostId]);
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(3);
  });

  it('a part sent without an answer and live: looked up and recorded, never sent again', async () => {
    const acct = await account('ok');
    const parts = texts('Looked up', 3);
    const account_ = xAccount(acct);
    const accessToken = tokenOf(acct.id);
    const one = await x.publish({ account: account_, accessToken, text: parts[0] as string, media: [], options: {} });
    const two = await x.publish({ account: account_, accessToken, text: parts[1] as string, media: [], options: {}, replyTo: one.platformPostId });
    const sentAt = new Date(Date.now() - 5_000).toISOString();
    const postId = await createPost(acct.id, {
      parts,
      item: { platformPostId: one.platformPostId, publishedUrl: one.publishedUrl, inFlightSince: sentAt, platformCreateSentAt: sentAt },
    });
    const post = await settled(postId);
    expect(post.status).toBe('published');
    expect(post.threadParts[0]?.platformPostId).toBe(two.platformPostId);
    expectChain(acct.id, parts);
    // Parts 1 and 2 by hand, part 3 by the worker: part 2 was not sent again.
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(3);
  });

  it('a part sent without an answer and not live: looked up, then sent once', async () => {
    const acct = await account('ok');
    const parts = texts('Not there', 3);
    const one = await x.publish({ account: xAccount(acct), accessToken: tokenOf(acct.id), text: parts[0] as string, media: [], options: {} });
    const sentAt = new Date(Date.now() - 5_000).toISOString();
    const postId = await createPost(acct.id, {
      parts,
      item: { platformPostId: one.platformPostId, publishedUrl: one.publishedUrl, inFlightSince: sentAt, platformCreateSentAt: sentAt },
    });
    const post = await settled(postId);
    expect(post.status).toBe('published');
    expectChain(acct.id, parts);
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(3);
  });
});

describe('the first comment on X', { concurrent: true }, () => {
  it('goes out as a reply once the post is live', async () => {
    const acct = await account('ok');
    const [text] = texts('With a comment', 1);
    const postId = await createPost(acct.id, { parts: [text as string], firstComment: `The link for ${text}: https://example.com/read` });
    const post = await commentSettled(postId);
    expect(post.status).toBe('published');
    expect(post.firstComment?.status).toBe('published');
    const replies = onX(acct.id).filter((live) => live.replyTo === post.platformPostId);
    expect(replies.map((reply) => reply.id)).toEqual([post.firstComment?.platformCommentId]);
  });

  it('failing transiently (flaky: 503 once): retried with backoff by a publish message, posted once', async () => {
    const acct = await account('flaky');
    const [text] = texts('Comment retried', 1);
    const comment = `Retried comment of ${text}`;
    const postId = await createPost(acct.id, { parts: [text as string], firstComment: comment });
    const post = await commentSettled(postId);
    expect(post.status).toBe('published');
    expect(post.firstComment?.status).toBe('published');
    expect(onX(acct.id).filter((live) => live.text === comment).map((live) => live.id)).toEqual([post.firstComment?.platformCommentId]);
    // The post's create and the comment's each refused once (503), then taken: four requests.
    expect(sandbox.x.createAttemptCount(acct.id)).toBe(4);
  });

  it('refused (refuse-comment): the post stays published, firstComment failed', async () => {
    const acct = await account('refuse-comment');
    const [text] = texts('Comment refused', 1);
    const postId = await createPost(acct.id, { parts: [text as string], firstComment: 'Refused comment' });
    const post = await commentSettled(postId);
    expect(post.status).toBe('published');
    expect(post.error).toBeNull();
    expect(post.firstComment?.status).toBe('failed');
    expect(post.firstComment?.platformCommentId).toBeNull();
    expect(post.firstComment?.error?.message).toMatch(/not permitted/);
    expect(onX(acct.id).map((live) => live.text)).toEqual([text]);
  });

  it('sent without an answer (the worker stopped): the sweeper brings it back, findComment finds it, it is not posted twice', async () => {
    const acct = await account('ok');
    const [text] = texts('Comment lost', 1);
    const postId = await createPost(acct.id, { parts: [text as string] });
    const post = await settled(postId);
    expect(post.status).toBe('published');
    const comment = `The lost answer of ${text}`;
    const reply = await x.publishComment({ account: xAccount(acct), accessToken: tokenOf(acct.id), platformPostId: post.platformPostId as string, text: comment });
    const earlier = new Date(Date.now() - 10_000).toISOString();
    // As the worker leaves it when it stops between the comment's marker and its answer: pending,
    // marked sent, its lease run out, its due entry kept.
    await updateItem(postId, {
      firstComment: { text: comment, status: 'pending' },
      commentSentAt: earlier,
      commentClaimToken: 'gone',
      commentClaimUntil: earlier,
      commentAttempts: 1,
      commentFirstAttemptAt: earlier,
      duePk: `due#${dueShard(postId)}`,
      dueSk: `${earlier}#${postId}`,
    });
    const done = await commentSettled(postId);
    expect(done.firstComment).toMatchObject({ status: 'published', platformCommentId: reply.platformCommentId });
    expect(onX(acct.id).filter((live) => live.text === comment)).toHaveLength(1);
  });
});
