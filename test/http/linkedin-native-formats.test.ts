/**
 * LinkedIn document and poll posts through the publish worker, against the local stack and the
 * LinkedIn sandbox. Until the create rules take `options.linkedin.poll` / `documentTitle` (the rules
 * engineer's branch), the post is created through the API as a text post scheduled a few seconds
 * ahead and its item then given the format's fields as create will store them (`options` as
 * validated, `format`, the PDF in `mediaUrls`/`mediaIds`: lib/store/post-item.ts), so what is tested here is the worker, the media
 * bucket and the adapter: the PDF read from the library, uploaded through the Documents API and
 * posted with its title; the poll posted with its question, options and duration. The same flow
 * through the API alone is in linkedin-native-formats.pending.ts.
 */
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import type { SandboxPlatforms } from '../../local/sandbox/index.js';
import { documentedApi } from '../support/openapi.js';
import { pdf } from '../support/pdf.js';
import { startPostsStack } from '../support/posts.js';
import { addMedia, connectAccount, provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostView {
  id: string;
  status: string;
  platformPostId: string | null;
  error: { message: string } | null;
}

let stack: TestStack;
let sandbox: SandboxPlatforms;
let user: ProvisionedUser;
let documents: DynamoDBDocumentClient;

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sweeper: true, sandbox: true, sweeperIntervalMs: 1000 });
  if (!stack.sandbox) throw new Error('the sandbox platforms did not start');
  sandbox = stack.sandbox;
  user = await provisionUser();
  documents = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }), { marshallOptions: { removeUndefinedValues: true } });
});
afterAll(async () => {
  documents?.destroy();
  await stack?.stop();
});

const client = () => documentedApi(stack.baseUrl, user.apiKey);

/**
 * A LinkedIn text post due in a few seconds on an account of its own, then given the fields of a
 * native format while it is still only scheduled. On a slow hour the worker can claim it before
 * the fields are written; that attempt is then left alone (its own account keeps it apart) and
 * the next one gets twice the lead, so the test waits for a write in time, not for a fast machine.
 */
async function nativePost(text: string, fields: { options: Record<string, unknown>; format: string; mediaUrls?: string[]; mediaIds?: string[] }): Promise<{ accountId: string; postId: string }> {
  for (let lead = 4_000; ; lead *= 2) {
    const account = await connectAccount(user.workspaceIds[0] as string, { platform: 'linkedin', sandbox: 'ok' });
    const scheduledFor = new Date(Date.now() + lead).toISOString();
    const created = await client().post<{ posts: { id: string; status: string }[]; error?: { code?: string } }>('/posts', { accounts: [account.id], text, scheduledFor });
    if (created.status === 400 && created.body.error?.code === 'scheduled_for_in_past' && lead < 60_000) continue;
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const postId = created.body.posts[0]?.id as string;
    const written = await documents
      .send(
        new UpdateCommand({
          TableName: stack.info.tables.posts,
          Key: { id: postId },
          UpdateExpression: 'SET #options = :options, #format = :format, mediaUrls = :urls, mediaIds = :ids',
          // Only while nothing was sent: a post already claimed would make the test meaningless.
          ConditionExpression: '#status = :scheduled AND attribute_not_exists(claimToken)',
          ExpressionAttributeNames: { '#options': 'options', '#format': 'format', '#status': 'status' },
          ExpressionAttributeValues: {
            ':options': fields.options,
            ':format': fields.format,
            ':urls': fields.mediaUrls ?? [],
            ':ids': fields.mediaIds ?? [],
            ':scheduled': 'scheduled',
          },
        }),
      )
      .then(
        () => true,
        (error: unknown) => {
          if (error instanceof Error && error.name === 'ConditionalCheckFailedException' && lead < 60_000) return false;
          throw new Error(`could not give post ${postId} its format before it was due: ${String(error)}`);
        },
      );
    if (written) return { accountId: account.id, postId };
  }
}

async function settled(postId: string, timeoutMs = 45_000): Promise<PostView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client().get<PostView>(`/posts/${postId}`);
    expect(response.status).toBe(200);
    if (response.body.status !== 'scheduled') return response.body;
    if (Date.now() > deadline) throw new Error(`post ${postId} still scheduled after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('LinkedIn native formats through the publish worker', () => {
  it('a document post: the library PDF goes through the Documents API and is posted with its title', { timeout: 60_000 }, async () => {
    const deck = await addMedia(user.userId, { fileName: 'deck.pdf', contentType: 'application/pdf', body: pdf(6) });
    expect(deck.pageCount).toBe(6);
    const { accountId, postId } = await nativePost('Our deck', {
      options: { documentTitle: 'Deck, six pages' },
      format: 'document',
      mediaUrls: [deck.url],
      mediaIds: [deck.id],
    });
    const post = await settled(postId);
    expect(post.status, JSON.stringify(post.error)).toBe('published');
    const [document] = sandbox.linkedin.uploadedMedia(accountId);
    expect(document).toMatchObject({ kind: 'document', sizeBytes: pdf(6).byteLength, status: 'AVAILABLE' });
    const [live] = sandbox.linkedin.listPosts(accountId);
    expect(live).toMatchObject({ id: post.platformPostId, text: 'Our deck', mediaIds: [document?.urn] });
    expect(live?.details.documentTitle).toBe('Deck, six pages');
  });

  it('a poll post: question, options and duration on the Posts API', { timeout: 60_000 }, async () => {
    const poll = { question: 'Which day suits the meetup?', choices: ['Tuesday', 'Thursday'], duration: 'SEVEN_DAYS' };
    const { accountId, postId } = await nativePost('Help us pick', { options: { poll }, format: 'poll' });
    const post = await settled(postId);
    expect(post.status, JSON.stringify(post.error)).toBe('published');
    const [live] = sandbox.linkedin.listPosts(accountId);
    expect(live?.details.poll).toEqual({ question: poll.question, options: [{ text: 'Tuesday' }, { text: 'Thursday' }], settings: { duration: 'SEVEN_DAYS' } });
  });
});
