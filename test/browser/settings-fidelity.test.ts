/**
 * Platform fidelity in settings, in a real browser: an account whose access ends within 7 days and
 * cannot be refreshed shows Expiring, when its access ends and a Reconnect button; an X Premium
 * account its longer limit; a LinkedIn post with hashtags and mentions how it renders there.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbIdentityStore } from '../../lib/store/dynamodb-identity-store.js';
import { DESKTOP, launchChromium, signIn } from '../support/browser.js';
import { provisionUser, updateAccount, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;
let owner: ProvisionedUser;
const PASSWORD = 'a long local password';

beforeAll(async () => {
  stack = await startTestStack({ sandbox: true, consumers: true, sweeper: true, sweeperIntervalMs: 1000 });
  browser = await launchChromium();
  owner = await provisionUser({
    accounts: [
      { platform: 'linkedin', handle: 'ends-soon', name: 'Ending on LinkedIn', sandbox: 'ok' },
      { platform: 'x', handle: '@longform', name: 'Premium on X', sandbox: 'ok', xSubscription: 'Premium' },
    ],
  });
  await updateAccount(owner.accounts[0]!.id, { tokenExpiresInDays: 3, noRefreshToken: true });
  const login = await stack.oidc.accounts.create('fidelity@example.com', PASSWORD);
  await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity({ issuer: stack.oidc.issuer, subject: login.id, email: 'fidelity@example.com' }, owner.userId);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('platform fidelity in settings', () => {
  it('shows an expiring account with when its access ends and Reconnect, an X Premium limit, and how a LinkedIn text renders', async () => {
    // The sweeper marks the account expiring (sparse index): wait for that through the API.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const listed = await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
      const accounts = ((await listed.json()) as { accounts: { id: string; tokenHealth: string }[] }).accounts;
      if (accounts.find((account) => account.id === owner.accounts[0]!.id)?.tokenHealth === 'expiring') break;
      if (Date.now() > deadline) throw new Error('the account never became expiring');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const created = await fetch(`${stack.baseUrl}/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ accounts: [owner.accounts[0]!.id], text: 'Hello #launch with @[Ana](urn:li:person:ana1) in C#', draft: true }),
    });
    expect(created.status).toBe(202);

    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${stack.origin}/settings/accounts`);
    await signIn(page, 'fidelity@example.com', PASSWORD);
    await page.waitForURL(`${stack.origin}/settings/accounts`);
    const ending = page.locator('tr', { hasText: 'Ending on LinkedIn' });
    expect(await ending.innerText()).toContain('Expiring');
    expect(await ending.locator('.token-expires').innerText()).toMatch(/^Access ends /);
    expect(await ending.getByRole('button', { name: 'Reconnect' }).count()).toBe(1);
    const premium = page.locator('tr', { hasText: 'Premium on X' });
    expect(await premium.locator('.text-limit').innerText()).toBe('X Premium: posts up to 25,000 characters');
    expect(await premium.getByRole('button', { name: 'Reconnect' }).count()).toBe(0);

    await page.goto(`${stack.origin}/settings/posts`);
    const row = page.locator('tr', { hasText: 'Hello #launch' });
    expect(await row.locator('.linkedin-rendering').innerText()).toBe('On LinkedIn: hashtags #launch; mentions Ana. Readers see: “Hello #launch with Ana in C#”');
    await context.close();
  }, 120_000);
});
