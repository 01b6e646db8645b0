/**
 * Connecting accounts and the media library in a real browser, against the local stack with its
 * sandbox platforms and queue consumers: a new customer signs up, makes a key, connects an X
 * account and the LinkedIn pages they administer through the sandbox consent pages (and refuses
 * once), sees them healthy in GET /api/v1/accounts, uploads an image straight to storage and
 * publishes a post with its URL through the API until `published`, then reconnects an account
 * marked needs_reauth. Screenshots go to docs/screenshots (the README and docs/settings.md show them).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launchChromium, PHONE, screenshot, signUp } from '../support/browser.js';
import { PNG_1X1 } from '../support/connect.js';
import { GENEROUS_LIMITS } from '../support/posts.js';
import { updateAccount } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  stack = await startTestStack({ sandbox: true, consumers: true, env: GENEROUS_LIMITS });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

interface AccountView {
  id: string;
  platform: string;
  handle: string;
  name: string;
  accountType: string;
  tokenHealth: string;
}

async function listAccounts(key: string): Promise<AccountView[]> {
  const response = await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { accounts: AccountView[] }).accounts;
}

async function mainText(page: Page): Promise<string> {
  return page.locator('main').innerText();
}

/** On a sandbox consent page: pick the identity, then Authorize app or Cancel. */
async function consent(page: Page, identity: string, decision: 'Authorize app' | 'Cancel'): Promise<void> {
  await page.getByRole('radio', { name: identity }).check();
  await page.getByRole('button', { name: decision }).click();
}

describe('connecting accounts and the media library in a browser', () => {
  // Four consent round trips, an upload and a publish: more than the default 30 s on a busy machine.
  it('connects X and LinkedIn pages (refusing once), uploads an image, publishes with it, and reconnects', { timeout: 90_000 }, async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${stack.origin}/settings`);
    await signUp(page, 'grace@example.com', 'correct horse battery staple');
    await page.waitForURL(`${stack.origin}/settings`);

    await page.goto(`${stack.origin}/settings/keys`);
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByLabel('Your new API key').inputValue()).trim();
    expect(key).toMatch(/^ak_/);

    // Connect X: the accounts page sends the browser to the sandbox's consent page.
    await page.goto(`${stack.origin}/settings/accounts`);
    expect(await mainText(page)).toContain('No account connected to this workspace yet');
    await page.getByRole('button', { name: 'Connect X' }).click();
    await page.waitForURL(/\/x\/i\/oauth2\/authorize\?/);
    const asked = new URL(page.url()).searchParams;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('scope')).toBe('tweet.read tweet.write users.read media.write offline.access');
    await screenshot(page, 'connect-x-consent');
    await consent(page, '@sandbox_ana (Ana Sandbox)', 'Authorize app');
    await page.waitForURL(`${stack.origin}/settings/accounts?notice=connected`);
    expect(await mainText(page)).toContain('@sandbox_ana');
    // Nothing secret in the address: the callback's code and state were consumed by a redirect.
    expect(page.url()).not.toMatch(/code=|state=|token/);

    // Refuse once: a clear message, nothing connected, no 5xx.
    await page.getByRole('button', { name: 'Connect LinkedIn (yourself)' }).click();
    await page.waitForURL(/\/linkedin\/oauth\/v2\/authorization\?/);
    const refused = page.waitForResponse((response) => response.url().includes('/settings/connect/linkedin/callback'));
    await consent(page, 'Ana Example', 'Cancel');
    expect((await refused).status()).toBe(400);
    expect(await mainText(page)).toContain('You cancelled on LinkedIn, so nothing was connected.');
    await screenshot(page, 'connect-refused');

    // The pages the member administers.
    await page.goto(`${stack.origin}/settings/accounts`);
    await page.getByRole('button', { name: 'Connect LinkedIn pages you administer' }).click();
    await page.waitForURL(/\/linkedin\/oauth\/v2\/authorization\?/);
    expect(new URL(page.url()).searchParams.get('scope')).toContain('w_organization_social');
    await screenshot(page, 'connect-linkedin-consent');
    await consent(page, 'Ana Example (administers Example Org, Example Labs)', 'Authorize app');
    await page.waitForURL(`${stack.origin}/settings/accounts?notice=connected_pages`);
    expect(await mainText(page)).toContain('Example Org');
    await screenshot(page, 'accounts');

    const accounts = await listAccounts(key);
    expect(accounts.map((account) => [account.platform, account.handle, account.accountType, account.tokenHealth])).toEqual([
      ['x', '@sandbox_ana', 'personal', 'healthy'],
      ['linkedin', 'example-org', 'organization', 'healthy'],
      ['linkedin', 'example-labs', 'organization', 'healthy'],
    ]);
    const xAccount = accounts[0]!;
    const orgAccount = accounts[1]!;

    // Upload an image in one step: the type comes from the file (a PNG, where a JPEG type used to
    // be preselected), and it goes straight to storage. A file of no postable kind is refused in words.
    await page.goto(`${stack.origin}/settings/media`);
    await page.getByRole('button', { name: 'Upload a file…' }).click();
    // The click only starts the next page: its script shows the file field and removes the list of
    // types in one step, so once the field is visible the list is gone (counted at once, a slow
    // hour once found the list still there, the script not yet run).
    await page.getByLabel('File', { exact: true }).waitFor({ state: 'visible' });
    expect(await page.getByLabel('Type of file').count()).toBe(0); // the list is only for browsers without scripts
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.getByRole('button', { name: 'Upload' }).click();
    expect(await page.getByRole('alert').innerText()).toMatch(/^“notes\.txt” is not a kind of file that can be posted\. You can upload a JPEG image up to 5 MB, /);
    expect(await mainText(page)).not.toContain('text/plain');
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PNG_1X1 });
    expect(await page.locator('#upload-status').textContent()).toBe(''); // the refusal was of the last file
    await screenshot(page, 'media-upload');
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.waitForURL(`${stack.origin}/settings/media?notice=added`);
    const mediaUrl = await page.locator('input.media-url').first().inputValue();
    expect(mediaUrl).toMatch(new RegExp(`^${stack.origin}/media/usr_[0-9A-Za-z]{20}/med_[0-9A-Za-z]{20}/pixel\\.png$`));
    // The thumbnail really loads under the page's Content-Security-Policy.
    expect(await page.locator('img.thumb').first().evaluate((img) => { const image = img as unknown as { complete: boolean; naturalWidth: number }; return image.complete && image.naturalWidth > 0; })).toBe(true);
    await screenshot(page, 'media');

    // Publish through the API with the uploaded image, until published.
    const created = await fetch(`${stack.baseUrl}/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ accounts: [xAccount.id, orgAccount.id], text: 'Hello from settings', media: [mediaUrl] }),
    });
    expect(created.status).toBe(202);
    const batch = (await created.json()) as { posts: { id: string; status: string }[] };
    expect(batch.posts.map((post) => post.status)).toEqual(['accepted', 'accepted']);
    for (const post of batch.posts) {
      const deadline = Date.now() + 45_000;
      let status = 'scheduled';
      while (status === 'scheduled' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const got = await fetch(`${stack.baseUrl}/posts/${post.id}`, { headers: { authorization: `Bearer ${key}` } });
        status = ((await got.json()) as { status: string }).status;
      }
      expect(status).toBe('published');
    }

    // An account the platform stopped accepting: Reconnect brings it back to healthy.
    await updateAccount(xAccount.id, { tokenHealth: 'needs_reauth' });
    await page.goto(`${stack.origin}/settings/accounts`);
    const xRow = page.locator('tr', { hasText: '@sandbox_ana' });
    expect(await xRow.innerText()).toContain('Needs reconnecting');
    await screenshot(page, 'account-needs-reauth');
    await xRow.getByRole('button', { name: 'Reconnect' }).click();
    await page.waitForURL(/\/x\/i\/oauth2\/authorize\?/);
    await consent(page, '@sandbox_ana (Ana Sandbox)', 'Authorize app');
    await page.waitForURL(`${stack.origin}/settings/accounts?notice=reconnected`);
    expect(await page.locator('tr', { hasText: '@sandbox_ana' }).innerText()).toContain('Healthy');
    expect((await listAccounts(key)).find((account) => account.id === xAccount.id)?.tokenHealth).toBe('healthy');

    // The accounts page on a phone.
    await page.setViewportSize(PHONE);
    await screenshot(page, 'accounts-phone');
    await context.close();
  });
});
