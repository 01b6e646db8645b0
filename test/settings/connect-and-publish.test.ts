/**
 * The whole path a customer takes after settings, below the browser: connect an X account and a
 * LinkedIn page through the sandbox consent pages, upload an image with a presigned POST, then
 * publish through the API with a key, until `published`. Everything runs through the local stack
 * (API over HTTP, queue consumers, sandbox platforms), with the adapters built from the stack's
 * environment as the settings functions build them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV, requireEnv } from '../../lib/config.js';
import { linkedinConnectorFromEnv } from '../../lib/platforms/linkedin-connect.js';
import { xConnectorFromEnv } from '../../lib/platforms/x-connect.js';
import { DynamoDbAccountConnectionStore } from '../../lib/store/dynamodb-account-connections.js';
import { DynamoDbConnectAttemptStore } from '../../lib/store/dynamodb-connect-attempts.js';
import { directoryStores } from '../../lib/store/directory-stores.js';
import { DynamoDbMediaLibraryStore } from '../../lib/store/dynamodb-media-library.js';
import { S3MediaUploads } from '../../lib/store/s3-media-uploads.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { ConnectAccount } from '../../lib/use-cases/settings/connect-account.js';
import { MediaLibrary } from '../../lib/use-cases/settings/media-library.js';
import { connectRedirectUri } from '../../lib/web/connect-dependencies.js';
import { answerConsent, browserPost, PNG_1X1 } from '../support/connect.js';
import { api } from '../support/http.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let connect: ConnectAccount;
let library: MediaLibrary;

beforeAll(async () => {
  stack = await startPostsStack({ sandbox: true, consumers: true });
  const directory = directoryStores();
  connect = new ConnectAccount({
    connectors: { x: xConnectorFromEnv(), linkedin: linkedinConnectorFromEnv() },
    attempts: new DynamoDbConnectAttemptStore(),
    connections: new DynamoDbAccountConnectionStore(),
    accounts: directory.accounts,
    workspaces: directory.workspaces,
    cipher: tokenCipherFromEnv(),
    redirectUri: (platform) => connectRedirectUri('http://127.0.0.1:9', platform),
  });
  library = new MediaLibrary({ storage: new S3MediaUploads(), library: new DynamoDbMediaLibraryStore(), mediaBaseUrl: () => requireEnv(ENV.mediaBaseUrl) });
});
afterAll(() => stack?.stop());

interface PostView {
  status: string;
  publishedUrl: string | null;
  mediaUrls: string[];
  error: unknown;
}

async function settled(client: ReturnType<typeof api>, postId: string): Promise<PostView> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const response = await client.get<PostView>(`/posts/${postId}`);
    if (response.body.status !== 'scheduled') return response.body;
    if (Date.now() > deadline) throw new Error(`post ${postId} still scheduled`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('connect, upload, publish', () => {
  it('accounts connected through the consent pages are healthy in GET /accounts and publish a post with an uploaded image', async () => {
    const user = await provisionUser();
    const principal = { userId: user.userId, sessionId: 'session-1' };
    const workspaceId = user.workspaceIds[0] ?? '';

    const xStart = await connect.start(principal, { kind: 'x', workspaceId });
    const xBack = await answerConsent(xStart.authorizeUrl, '1850000000000000002');
    const [xAccount] = (await connect.finish(principal, 'x', Object.fromEntries(xBack.searchParams))).accounts;
    const liStart = await connect.start(principal, { kind: 'linkedin_pages', workspaceId });
    const liBack = await answerConsent(liStart.authorizeUrl, 'sbxAnaExample1');
    const pages = (await connect.finish(principal, 'linkedin', Object.fromEntries(liBack.searchParams))).accounts;
    const page = pages.find((account) => account.name === 'Example Org');

    const client = api(stack.info.baseUrl, user.apiKey);
    const listed = await client.get<{ accounts: { id: string; platform: string; handle: string; tokenHealth: string; accountType: string }[] }>('/accounts');
    expect(listed.status).toBe(200);
    expect(listed.body.accounts.map((account) => [account.platform, account.handle, account.accountType, account.tokenHealth])).toEqual([
      ['x', '@sandbox_bo', 'personal', 'healthy'],
      ['linkedin', 'example-org', 'organization', 'healthy'],
      ['linkedin', 'example-labs', 'organization', 'healthy'],
    ]);

    const prepared = await library.prepare(user.userId, { fileName: 'pixel.png', contentType: 'image/png', sizeBytes: PNG_1X1.byteLength });
    expect((await browserPost(prepared.upload, PNG_1X1)).status).toBe(204);
    const image = await library.register(user.userId, prepared.objectKey);

    const created = await client.post<{ posts: { id: string; status: string; reason: string | null }[] }>('/posts', {
      accounts: [xAccount?.id, page?.id],
      text: 'Connected from settings, with an uploaded image',
      media: [image.url],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.posts.map((post) => post.status)).toEqual(['accepted', 'accepted']);
    const [xPost, liPost] = await Promise.all(created.body.posts.map((post) => settled(client, post.id)));
    expect(xPost).toMatchObject({ status: 'published', mediaUrls: [image.url], error: null });
    expect(xPost?.publishedUrl).toMatch(/^https:\/\/x\.com\/sandbox_bo\/status\/\d+$/);
    expect(liPost).toMatchObject({ status: 'published', error: null });
    expect(liPost?.publishedUrl).toMatch(/^https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:share:\d+\/$/);

    // The sandboxes hold the posts under the identities that were granted, with the image attached.
    const sandbox = stack.sandbox;
    expect(sandbox?.x.listPosts('1850000000000000002')).toEqual([expect.objectContaining({ mediaIds: [expect.any(String)] })]);
    expect(sandbox?.linkedin.listPosts('sbxAnaExample1')).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ author: `urn:li:organization:${page?.platformUserId}` }) }),
    ]);
  });
});
