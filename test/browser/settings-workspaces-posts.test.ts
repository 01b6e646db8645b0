/**
 * Workspaces and Posts in a real browser, signed in as a user made by the admin provisioning (as
 * the local demo user is: a login at the local OpenID provider linked to the existing user):
 * rename and create workspaces, follow their link to the Accounts page (the one place for
 * accounts) and read each account's tokenHealth and what it means, disconnect an account; see
 * posts published, failed (with the platform's message and advice) and scheduled, filter by
 * status, cancel a scheduled post, send a draft now and retry a retryable failure. Another user's
 * workspace, account and post ids are
 * refused. Screenshots go to docs/screenshots.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { DynamoDbIdentityStore } from '../../lib/store/dynamodb-identity-store.js';
import { postToItem } from '../../lib/store/post-item.js';
import { postFixture } from '../support/post-fixture.js';
import { DESKTOP, launchChromium, PHONE, screenshot, signIn, signUp } from '../support/browser.js';
import { connectAccount, provisionUser, updateAccount, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;
let owner: ProvisionedUser;
const PASSWORD = 'a long local password';

beforeAll(async () => {
  stack = await startTestStack({ sandbox: true, consumers: true });
  browser = await launchChromium();
  owner = await provisionUser({
    workspaces: 1,
    accounts: [
      { platform: 'x', handle: '@owner', name: 'Owner on X', sandbox: 'ok' },
      // Healthy, but the sandbox refuses its posts: they fail with the platform's message and advice.
      { platform: 'linkedin', handle: 'owner-li', name: 'Owner on LinkedIn', sandbox: 'refuse' },
      { platform: 'instagram', handle: 'owner.photos', name: 'Owner Photos' },
      { platform: 'x', handle: '@owner_old', name: 'Old X account', tokenHealth: 'needs_reauth', sandbox: 'expired' },
    ],
  });
  // The owner's login, linked to the provisioned user exactly as `npm start` links the demo user.
  const login = await stack.oidc.accounts.create('owner@example.com', PASSWORD);
  await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity(
    { issuer: stack.oidc.issuer, subject: login.id, email: 'owner@example.com' },
    owner.userId,
  );
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedInAsOwner(viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${stack.origin}/settings/workspaces`);
  await signIn(page, 'owner@example.com', PASSWORD);
  await page.waitForURL(`${stack.origin}/settings/workspaces`);
  return { context, page };
}

async function createPost(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${stack.baseUrl}/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { posts: { id: string }[] }).posts[0]!.id;
}

async function waitForStatus(postId: string, status: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await fetch(`${stack.baseUrl}/posts/${postId}`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    if (((await response.json()) as { status: string }).status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Post ${postId} never became ${status}`);
}

describe('workspaces and posts in a browser', () => {
  it('shows each account’s tokenHealth with its meaning, renames and creates workspaces, disconnects an account', async () => {
    const { context, page } = await signedInAsOwner();
    const main = page.locator('main');
    // Accounts are named here and managed in one place, the Accounts page, which this links to.
    expect(await main.innerText()).toContain('Owner on X');
    expect(await page.getByRole('link', { name: 'Connect or manage accounts' }).first().getAttribute('href')).toMatch(/^\/settings\/accounts#ws-/);
    await screenshot(page, 'workspaces');

    await page.getByLabel('Name', { exact: true }).first().fill('Marketing <team>');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(/done=renamed/);
    expect(await page.getByRole('heading', { name: 'Marketing <team>' }).count()).toBe(1);

    await page.getByLabel('Name', { exact: true }).last().fill('');
    await page.locator('#new-workspace').fill('   ');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    expect(await main.innerText()).toContain('A workspace name is 1 to 100 printable characters.');
    await page.locator('#new-workspace').fill('Second brand');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.waitForURL(/done=created/);
    expect(await page.getByRole('heading', { name: 'Second brand' }).count()).toBe(1);

    // The API sees the new workspace at once: two workspaces now, so a create must name one.
    const accounts = await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(((await accounts.json()) as { accounts: unknown[] }).accounts).toHaveLength(4);

    await page.getByRole('link', { name: 'Connect or manage accounts' }).first().click();
    await page.waitForURL(/\/settings\/accounts/);
    const old = page.locator('tr', { hasText: 'Old X account' });
    expect(await old.innerText()).toContain('Needs reconnecting');
    expect(await old.innerText()).toContain('posts fail until you reconnect');
    expect(await page.locator('tr', { hasText: 'Owner on LinkedIn' }).innerText()).toContain('Healthy');
    await page.locator('tr', { hasText: 'Owner Photos' }).getByRole('link', { name: 'Disconnect…' }).click();
    await screenshot(page, 'account-disconnect');
    await page.getByRole('button', { name: 'Disconnect account' }).click();
    await page.waitForURL(/\/settings\/accounts\?notice=disconnected/);
    expect(await main.innerText()).not.toContain('Owner Photos');
    const after = await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(((await after.json()) as { accounts: { name: string }[] }).accounts.map((a) => a.name).sort()).toEqual(['Old X account', 'Owner on LinkedIn', 'Owner on X']);
    await context.close();
  });

  it('lists published, failed and scheduled posts, filters them and cancels a scheduled one', async () => {
    const workspaceId = owner.workspaceIds[0]!;
    const [x, linkedin] = owner.accounts;
    const published = await createPost({ workspaceId, accounts: [x!.id], text: 'Hello from the settings test' });
    const failed = await createPost({ workspaceId, accounts: [linkedin!.id], text: 'This one fails' });
    const scheduled = await createPost({ workspaceId, accounts: [x!.id], text: 'Later <b>bold</b>?', scheduledFor: new Date(Date.now() + 3600_000).toISOString() });
    await waitForStatus(published, 'published');
    await waitForStatus(failed, 'failed');

    const { context, page } = await signedInAsOwner();
    await page.goto(`${stack.origin}/settings/posts`);
    const main = page.locator('main');
    expect(await main.innerText()).toContain('Hello from the settings test');
    expect(await main.innerText()).toContain('Later <b>bold</b>?'); // shown as text, never as markup
    expect(await page.locator('main b').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'View live post' }).count()).toBe(1);
    const failedRow = page.locator('tr', { hasText: 'This one fails' });
    expect(await failedRow.locator('.error-text').innerText()).not.toBe('');
    await screenshot(page, 'posts');

    await page.getByRole('link', { name: 'Scheduled' }).click();
    await page.waitForURL(/status=scheduled/);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    await rows.first().getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(/done=cancelled/);
    expect(await main.innerText()).toContain('Post cancelled');
    const gone = await fetch(`${stack.baseUrl}/posts/${scheduled}`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(gone.status).toBe(404);
    await context.close();
  });

  it('shows a post\'s format, its thread parts with a link to each live one, and the first comment\'s state', async () => {
    const workspaceId = owner.workspaceIds[0]!;
    const [x, linkedin] = owner.accounts;
    const at = new Date().toISOString();
    // Written through the store: the outcomes of publishing (parts live, a comment refused) are the publish worker's to make.
    const thread = postFixture({
      id: 'post_nfthreadsettings000001',
      userId: owner.userId,
      createdAt: at,
      workspaceId,
      accountId: x!.id,
      text: 'A thread, part one',
      status: 'failed',
      format: 'thread',
      platformPostId: '1001',
      publishedUrl: 'https://x.com/owner/status/1001',
      threadParts: [
        { text: 'part two', mediaUrls: [], mediaIds: [], platformPostId: '1002', publishedUrl: 'https://x.com/owner/status/1002' },
        { text: 'part three', mediaUrls: [], mediaIds: [], platformPostId: null, publishedUrl: null },
      ],
      error: { message: 'X refused part 3 of the thread; 2 of 3 parts are live.', advice: 'Retry to send the missing part.', retryable: true },
    });
    const poll = postFixture({
      id: 'post_nfpollsettings00000001',
      userId: owner.userId,
      createdAt: at,
      workspaceId,
      accountId: linkedin!.id,
      platform: 'linkedin',
      text: 'A poll with a first comment',
      status: 'published',
      publishedAt: at,
      format: 'poll',
      options: { poll: { question: 'Q?', choices: ['a', 'b'], duration: 'ONE_DAY' } },
      firstComment: { text: 'link', status: 'failed', platformCommentId: null, error: { message: 'LinkedIn refused the comment.', advice: 'Post it by hand.' } },
    });
    const documents = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }));
    for (const post of [thread, poll]) await documents.send(new PutCommand({ TableName: stack.tables.posts, Item: postToItem(post) }));
    documents.destroy();

    const { context, page } = await signedInAsOwner();
    await page.goto(`${stack.origin}/settings/posts`);
    const threadRow = page.locator('tr', { hasText: 'A thread, part one' });
    expect(await threadRow.locator('.post-format').innerText()).toContain('Thread of 3 parts');
    expect(await threadRow.getByRole('link', { name: 'Part 2 live' }).getAttribute('href')).toBe('https://x.com/owner/status/1002');
    expect(await threadRow.innerText()).toContain('Part 3 not live yet');
    expect(await threadRow.locator('.first-comment').count()).toBe(0);
    const pollRow = page.locator('tr', { hasText: 'A poll with a first comment' });
    expect(await pollRow.locator('.post-format').innerText()).toContain('Poll');
    expect(await pollRow.locator('.first-comment').innerText()).toMatch(/First comment: failed\s+LinkedIn refused the comment\. Post it by hand\./);
    // A text post shows no format line.
    expect(await page.locator('tr', { hasText: 'Hello from the settings test' }).locator('.post-format').count()).toBe(0);
    await screenshot(page, 'posts-native-formats');
    await context.close();
  });

  it('sends a draft now and retries a retryable failure from their buttons; each goes out once', async () => {
    const workspaceId = owner.workspaceIds[0]!;
    const [x] = owner.accounts;
    // The sandbox says its token is bad: failed before anything was created, so retryable.
    const flaky = await connectAccount(workspaceId, { platform: 'x', handle: '@owner_retry', name: 'Owner to retry', sandbox: 'expired' });
    const draft = await createPost({ workspaceId, accounts: [x!.id], text: 'A draft to send now', draft: true });
    const failing = await createPost({ workspaceId, accounts: [flaky.id], text: 'Fails, then retried' });
    await waitForStatus(failing, 'failed');

    const { context, page } = await signedInAsOwner();
    await page.goto(`${stack.origin}/settings/posts`);
    const main = page.locator('main');
    const draftRow = page.locator(`tr[id="${draft}"]`);
    const failedRow = page.locator(`tr[id="${failing}"]`);
    expect(await draftRow.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await failedRow.getByRole('button', { name: 'Send now' }).count()).toBe(0);

    // Still disconnected: the retry is refused with the reason, and the post stays failed.
    await failedRow.getByRole('button', { name: 'Retry' }).click();
    expect(await main.innerText()).toMatch(/reconnect the account/);
    await page.goto(`${stack.origin}/settings/posts`);

    await draftRow.getByRole('button', { name: 'Send now' }).click();
    await page.waitForURL(/done=sent/);
    expect(await main.innerText()).toContain('Post sent');
    await waitForStatus(draft, 'published');

    await updateAccount(flaky.id, { sandbox: 'ok', tokenHealth: 'healthy' });
    await page.locator(`tr[id="${failing}"]`).getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL(/done=retried/);
    expect(await main.innerText()).toContain('Post sent again');
    await waitForStatus(failing, 'published');
    expect(stack.sandbox?.x.listPosts(flaky.id).map((live) => live.text)).toEqual(['Fails, then retried']);
    expect(stack.sandbox?.x.listPosts(x!.id).filter((live) => live.text === 'A draft to send now')).toHaveLength(1);
    await context.close();
  });

  it('refuses another user’s workspace, account and post ids', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${stack.origin}/settings/workspaces`);
    await signUp(page, 'mallory@example.com', PASSWORD);
    await page.waitForURL(`${stack.origin}/settings/workspaces`);
    await screenshot(page, 'workspaces-phone');
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const cookie = (await context.cookies()).find((c) => c.name === 'sp_session')?.value ?? '';
    const post = (path: string, body: Record<string, string>) =>
      fetch(`${stack.origin}${path}`, {
        method: 'POST',
        headers: { cookie: `sp_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...body }).toString(),
        redirect: 'manual',
      });
    const [x] = owner.accounts;
    expect((await post(`/settings/workspaces/${owner.workspaceIds[0]}/rename`, { name: 'Taken over' })).status).toBe(404);
    expect((await post(`/settings/accounts/${x!.id}/disconnect`, {})).status).toBe(404);
    expect((await page.goto(`${stack.origin}/settings/accounts/${x!.id}/disconnect`))?.status()).toBe(404);
    const ownersPost = await createPost({ workspaceId: owner.workspaceIds[0], accounts: [x!.id], text: 'Mine', scheduledFor: new Date(Date.now() + 3600_000).toISOString() });
    expect((await post(`/settings/posts/${ownersPost}/cancel`, {})).status).toBe(404);
    // Nothing of the owner's changed.
    const still = await fetch(`${stack.baseUrl}/posts/${ownersPost}`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(still.status).toBe(200);
    const accounts = await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(((await accounts.json()) as { accounts: { id: string; workspaceId: string }[] }).accounts.some((a) => a.id === x!.id)).toBe(true);
    await page.goto(`${stack.origin}/settings/posts`);
    expect(await page.locator('main').innerText()).not.toContain('Mine');
    await context.close();
  });
});
