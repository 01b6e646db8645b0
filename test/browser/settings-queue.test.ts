/**
 * An account's posting times in settings, in a real browser at a phone and a desktop width: the
 * accounts page links to the queue page, the form sets a time zone and slots through the API's own
 * use case (GET /accounts/{id}/queue then reads them back), a bad slot is a 400 page saying why with
 * what was typed kept, another user's account is a 404, and the page is axe clean.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbIdentityStore } from '../../lib/store/dynamodb-identity-store.js';
import { DESKTOP, launchChromium, PHONE, screenshot, signIn } from '../support/browser.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;
let owner: ProvisionedUser;
let other: ProvisionedUser;
const PASSWORD = 'a long local password';

beforeAll(async () => {
  stack = await startTestStack({ sandbox: true });
  browser = await launchChromium();
  owner = await provisionUser({ workspaces: 1, accounts: [{ platform: 'x', handle: '@owner', name: 'Owner on X', sandbox: 'ok' }] });
  other = await provisionUser({ workspaces: 1, accounts: [{ platform: 'x', handle: '@other', name: 'Other on X', sandbox: 'ok' }] });
  const login = await stack.oidc.accounts.create('queue-owner@example.com', PASSWORD);
  await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity(
    { issuer: stack.oidc.issuer, subject: login.id, email: 'queue-owner@example.com' },
    owner.userId,
  );
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${stack.origin}/settings/accounts`);
  await signIn(page, 'queue-owner@example.com', PASSWORD);
  await page.waitForURL(`${stack.origin}/settings/accounts`);
  return page;
}

async function apiQueue(accountId: string): Promise<unknown> {
  const response = await fetch(`${stack.baseUrl}/accounts/${accountId}/queue`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
  expect(response.status).toBe(200);
  return response.json();
}

describe('an account queue in settings', () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`sets the time zone and slots at ${name} width`, async () => {
      const page = await signedIn(viewport);
      const account = owner.accounts[0]!;
      await page.getByRole('link', { name: 'Posting times' }).first().click();
      await page.waitForURL(`${stack.origin}/settings/accounts/${account.id}/queue`);
      const zone = name === 'desktop' ? 'Europe/Berlin' : 'Pacific/Chatham';
      await page.getByLabel('Time zone').selectOption(zone);
      await page.getByLabel(/Posting times, one a line/).fill('Thursday 17:30\nmonday 09:00\n');
      await page.getByRole('button', { name: 'Save posting times' }).click();
      await page.waitForURL(/\?done=saved$/);
      expect(await page.getByRole('status').textContent()).toBe('Posting times saved.');
      expect(await apiQueue(account.id)).toEqual({
        object: 'queue',
        accountId: account.id,
        timeZone: zone,
        slots: [{ day: 'monday', time: '09:00' }, { day: 'thursday', time: '17:30' }],
      });
      expect(await page.getByLabel('Time zone').inputValue()).toBe(zone);
      const axe = await new AxeBuilder({ page }).analyze();
      expect(axe.violations).toEqual([]);
      await screenshot(page, `settings-queue-${name}`);

      await page.getByLabel(/Posting times, one a line/).fill('monday 25:00');
      await page.getByRole('button', { name: 'Save posting times' }).click();
      expect(await page.getByRole('alert').textContent()).toMatch(/time/i);
      expect(await page.getByLabel(/Posting times, one a line/).inputValue()).toBe('monday 25:00');
      expect(((await apiQueue(account.id)) as { timeZone: string }).timeZone).toBe(zone);
      await page.context().close();
    });
  }

  it("refuses another user's account", async () => {
    const page = await signedIn(DESKTOP);
    const response = await page.goto(`${stack.origin}/settings/accounts/${other.accounts[0]!.id}/queue`);
    expect(response?.status()).toBe(404);
    await page.context().close();
  });
});
