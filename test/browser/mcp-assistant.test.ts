/**
 * The "done when", in a real browser against the local stack: an MCP client given only the
 * server's URL (the SDK's own client and OAuth support: discovery, dynamic registration, PKCE, the
 * resource indicator, the token exchange) sends a person through the browser, who signs up at the
 * local OpenID provider and sees the consent page naming the assistant; then the assistant lists
 * the accounts, previews a post, publishes it to the sandbox platforms after confirming, and polls
 * it to `published`. The person then revokes the assistant on the Assistants page and its very
 * next call is refused. Also: refusing on the consent page, and approving fewer scopes.
 *
 * The assistant session is written to docs/mcp-session.md (docs/assistant-server.md's transcript comes from it),
 * and the pages to docs/screenshots.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV, requireEnv } from '../../lib/config.js';
import { DynamoDbUserStore } from '../../lib/store/dynamodb-user-store.js';
import { DynamoDbGrantStore } from '../../lib/store/dynamodb-grant-store.js';
import { DESKTOP, DOCS_DIR, launchChromium, screenshot, signUp } from '../support/browser.js';
import { CALLBACK_URL, connectAssistant, testProvider, type Consent } from '../support/mcp-client.js';
import { mcpCall, toolsList } from '../support/mcp-http.js';
import { startPostsStack } from '../support/posts.js';
import { connectAccount } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  stack = await startPostsStack({ consumers: true, sandbox: true });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/**
 * The person's part in a browser page: open the authorization URL, sign up or be signed in, look at
 * the consent page, untick what `untick` names, then Allow (or Refuse); the URL the browser is sent
 * back to is read off the consent's 303 (the context answers CALLBACK_URL itself).
 */
function browserConsent(page: Page, options: { signUpAs?: string; untick?: string[]; refuse?: boolean; screenshotAs?: string }): Consent {
  return async (authorizationUrl) => {
    await page.goto(authorizationUrl.toString());
    if (options.signUpAs) await signUp(page, options.signUpAs, PASSWORD);
    await page.waitForURL(/\/settings\/assistants\/consent\?request=/);
    for (const scope of options.untick ?? []) await page.getByRole('checkbox', { name: new RegExp(`^${scope}:`) }).uncheck();
    if (options.screenshotAs) await screenshot(page, options.screenshotAs);
    // The answer is a 303 to the assistant's redirect URI: read it off that response (nothing listens there).
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/settings/assistants/consent')),
      page.getByRole('button', { name: options.refuse ? 'Refuse' : 'Allow' }).click({ noWaitAfter: true }),
    ]);
    const location = answer.headers().location;
    if (answer.status() !== 303 || !location?.startsWith(CALLBACK_URL)) throw new Error(`the browser was not sent back to the assistant: ${answer.status()}`);
    return new URL(location);
  };
}

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
}

const transcript: string[] = [];

async function tool(client: Client, name: string, args: Record<string, unknown> = {}, record = true): Promise<ToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  if (record) {
    transcript.push(`**Assistant calls \`${name}\`**\n\n\`\`\`json\n${JSON.stringify(args, null, 2)}\n\`\`\`\n`);
    transcript.push(`**Server answers**${result.isError ? ' (tool error)' : ''}\n\n\`\`\`\n${result.content[0]?.text ?? ''}\n\`\`\`\n`);
  }
  return result;
}

/** The person behind an access token: its grant names the user (test bookkeeping only). */
async function userOfToken(accessToken: string): Promise<{ userId: string; workspaceId: string }> {
  const grantId = /^mcpat_(grt_[0-9A-Za-z]{20})_/.exec(accessToken)?.[1] ?? '';
  const grant = await new DynamoDbGrantStore({ tableName: stack.tables.oauth }).getGrant(grantId);
  const user = await new DynamoDbUserStore({ tableName: requireEnv(ENV.directoryTable) }).getUser(grant?.userId ?? '');
  return { userId: user?.id ?? '', workspaceId: user?.workspaceIds[0] ?? '' };
}

describe('an assistant signs a person in through the browser and posts with their consent', () => {
  let context: BrowserContext;
  let page: Page;

  it('connects with only the URL, previews, publishes and polls a post; revoking it in settings stops it at once', async () => {
    context = await browser.newContext({ viewport: DESKTOP });
    // The assistant's redirect URI has nobody listening: answer it here, so the browser's navigation
    // there ends at once instead of failing later and interrupting the next page load.
    await context.route(`${CALLBACK_URL}**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'Back at the assistant.' }));
    page = await context.newPage();
    // Generous: the machine running the suite may be busy, and every step here waits for a page.
    page.setDefaultTimeout(30_000);
    const mcpUrl = `${stack.origin}/mcp`;
    const assistant = await connectAssistant(mcpUrl, browserConsent(page, { signUpAs: 'ada.assistant@example.com', screenshotAs: 'assistant-consent' }), testProvider('Claude (test)'));
    const tokens = assistant.provider.savedTokens;
    expect(tokens?.scope).toBe('read write publish media');

    // The person's sandbox accounts (the settings connect flow is another issue's test).
    const person = await userOfToken(tokens?.access_token ?? '');
    const x = await connectAccount(person.workspaceId, { platform: 'x', sandbox: 'ok', handle: '@ada_writes', name: 'Ada' });
    const linkedin = await connectAccount(person.workspaceId, { platform: 'linkedin', sandbox: 'ok', handle: 'ada-lovelace', name: 'Ada Lovelace' });

    transcript.push(`# An assistant session (recorded by test/browser/mcp-assistant.test.ts)\n`);
    transcript.push(`The MCP client was given only \`${mcpUrl}\`. It met a 401 with \`WWW-Authenticate: Bearer resource_metadata=…\`, read the metadata, registered itself, sent the person's browser to the consent page, and exchanged the code for tokens (scope \`${tokens?.scope}\`).\n`);
    const accounts = await tool(assistant.client, 'list_accounts');
    expect((accounts.structuredContent?.accounts as { id: string }[]).map((account) => account.id)).toEqual([x.id, linkedin.id]);

    const post = { accounts: [x.id, linkedin.id], text: 'Our spring release is out: faster uploads and scheduled threads. https://example.com/spring', idempotencyKey: 'spring-release-1' };
    const preview = await tool(assistant.client, 'create_posts', post);
    expect(preview.structuredContent?.mode).toBe('preview');
    const listedAfterPreview = await tool(assistant.client, 'list_posts', {}, false);
    expect(listedAfterPreview.structuredContent?.posts).toEqual([]);

    const created = await tool(assistant.client, 'create_posts', { ...post, confirm: true });
    const posts = created.structuredContent?.posts as { id: string; status: string; settingsUrl: string }[];
    expect(posts.map((entry) => entry.status)).toEqual(['accepted', 'accepted']);

    let status = '';
    for (let attempt = 0; attempt < 100 && status !== 'published'; attempt++) {
      const polled = await tool(assistant.client, 'get_post', { id: posts[0]?.id }, false);
      status = (polled.structuredContent?.post as { status: string }).status;
      if (status !== 'published') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const final = await tool(assistant.client, 'get_post', { id: posts[0]?.id });
    expect((final.structuredContent?.post as { status: string; publishedUrl: string }).status).toBe('published');
    expect(stack.sandbox?.x.listPosts(x.id).map((live) => live.text)).toEqual([post.text]);

    // The link each created post carries opens its row on the person's Posts page.
    await page.goto(posts[0]?.settingsUrl ?? '');
    expect(await page.locator(`tr[id="${posts[0]?.id}"]`).innerText()).toContain('published');

    // A retry of the confirmed call (the answer was lost, say) creates nothing new.
    const retried = await tool(assistant.client, 'create_posts', { ...post, confirm: true });
    expect(retried.structuredContent?.replayed).toBe(true);
    expect(stack.sandbox?.x.listPosts(x.id)).toHaveLength(1);
    await mkdir(DOCS_DIR, { recursive: true });
    await writeFile(`${DOCS_DIR}/mcp-session.md`, `${transcript.join('\n')}\n`);

    // The Assistants page lists the grant; revoking it ends the assistant's access at once.
    await page.goto(`${stack.origin}/settings/assistants`);
    const row = page.locator('tr', { hasText: 'Claude (test)' });
    expect(await row.innerText()).toContain('read, write, publish');
    await screenshot(page, 'assistants');
    await row.getByRole('button', { name: 'Revoke Claude (test)' }).click();
    await page.waitForURL(/\/settings\/assistants\?revoked=1/);
    expect(await page.locator('tr', { hasText: 'Claude (test)' }).innerText()).toContain('Revoked');
    const refused = await mcpCall(stack.origin, tokens?.access_token ?? '', toolsList);
    expect(refused.status).toBe(401);
    await assistant.close();
  }, 120_000);

  it('approves fewer scopes when the person unticks them, and refuses when the person refuses', async () => {
    const reader = await connectAssistant(`${stack.origin}/mcp`, browserConsent(page, { untick: ['write', 'publish', 'media'] }), testProvider('Read-only helper'));
    expect(reader.provider.savedTokens?.scope).toBe('read');
    // A call beyond the grant is an HTTP 403 insufficient_scope challenge: the SDK tries to step up
    // (it can only refresh the same read grant here), then gives up (test/mcp/mcp-tools.test.ts has the challenge).
    await expect(tool(reader.client, 'create_posts', { accounts: ['acct_x'], text: 'no', idempotencyKey: 'ro', confirm: true }, false)).rejects.toThrow(/403/);
    await reader.close();

    await expect(connectAssistant(`${stack.origin}/mcp`, browserConsent(page, { refuse: true }), testProvider('Refused helper'))).rejects.toThrow(/access_denied/);
    await context.close();
  }, 120_000);

  it('escapes what an assistant says about itself on the consent page', async () => {
    const other = await browser.newContext({ viewport: DESKTOP });
    const otherPage = await other.newPage();
    otherPage.setDefaultTimeout(30_000);
    const sneaky = testProvider('<img src=x onerror=alert(1)> Helper');
    let shown = '';
    await expect(
      connectAssistant(`${stack.origin}/mcp`, async (authorizationUrl) => {
        await otherPage.goto(authorizationUrl.toString());
        await signUp(otherPage, 'mallory.target@example.com', PASSWORD);
        await otherPage.waitForURL(/\/settings\/assistants\/consent/);
        shown = await otherPage.locator('.assistant-name').innerText();
        expect(await otherPage.locator('main img').count()).toBe(0);
        throw new Error('stopped at the consent page');
      }, sneaky),
    ).rejects.toThrow(/stopped/);
    expect(shown).toBe('<img src=x onerror=alert(1)> Helper');
    await other.close();
  }, 60_000);
});
