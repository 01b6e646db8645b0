/**
 * What a new customer does in the settings app, in a real browser against the local stack and its
 * OpenID provider: sign up, see the Overview's path to a first post, make a key and run the curl
 * line its page shows, see the first step done, read how to add an assistant, revoke it
 * and get 401 api_key_revoked, sign out (and the old session is dead), sign in again. Plus the
 * refusals: a POST without the CSRF token, another user's key id, a sign-in callback replayed.
 * Screenshots of each page go to docs/screenshots (the README and docs/settings.md show them).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launchChromium, PHONE, screenshot, signIn, signUp } from '../support/browser.js';
import { accessibilityViolations, overflowWidth } from '../support/axe.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  // A revoked key must fail within the test, not after the 60 s cache.
  stack = await startTestStack({ env: { API_KEY_CACHE_SECONDS: '0' } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const PASSWORD = 'correct horse battery staple';

/** The page passes axe (WCAG 2 A and AA) and is no wider than its viewport. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  expect(await accessibilityViolations(page), what).toEqual([]);
  expect(await overflowWidth(page), `${what} is wider than the screen`).toBe(0);
}

/** The Overview's path to a first post: each step's title and whether it is done. */
async function pathSteps(page: Page): Promise<Array<[string, string]>> {
  const items = await page.locator('ol.path li').all();
  return Promise.all(items.map(async (item) => [await item.locator('strong').innerText(), await item.locator('.badge').innerText()] as [string, string]));
}

/** Runs a shell line exactly as a page shows it (the curl line "works as shown"). */
async function runAsShown(line: string): Promise<string> {
  const { stdout } = await promisify(execFile)('sh', ['-c', line], { timeout: 10_000 });
  return stdout;
}

async function newUser(email: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  // Fail with Playwright's own message (what it waited for) well before the test's timeout.
  page.setDefaultTimeout(10_000);
  await page.goto(`${stack.origin}/settings`);
  await signUp(page, email, PASSWORD);
  await page.waitForURL(`${stack.origin}/settings`, { timeout: 10_000 }).catch(async (error: unknown) => {
    throw new Error(`Sign-up did not land on the Overview: at ${page.url()}\n${(await page.locator('body').innerText()).slice(0, 500)}`, { cause: error });
  });
  return { context, page };
}

async function createKey(page: Page): Promise<string> {
  await page.goto(`${stack.origin}/settings/keys`);
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByLabel('Your new API key').waitFor().catch(async (error: unknown) => {
    throw new Error(`No new key shown: at ${page.url()}\n${(await page.locator('main').innerText()).slice(0, 500)}`, { cause: error });
  });
  const key = (await page.getByLabel('Your new API key').inputValue()).trim();
  expect(key).toMatch(/^ak_[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/);
  return key;
}

describe('settings in a browser', () => {
  it('signs up, makes a key that works on the API, revokes it (401 api_key_revoked), signs out and in again', async () => {
    const { context, page } = await newUser('ada@example.com');
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeDefined();
    expect(await page.locator('main').innerText()).toContain('100 posts per month');
    // A new user sees the way to a first post, nothing done yet, each step with its link.
    expect(await pathSteps(page)).toEqual([
      ['Make an API key', 'To do'],
      ['Connect an account', 'To do'],
      ['Upload media', 'To do'],
      ['Send a first post', 'To do'],
    ]);
    expect(await page.locator('main').innerText()).toContain('0 of 4 steps done');
    const links = await page.locator('ol.path a').evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
    expect(links).toEqual(['/settings/keys', '/settings/accounts', '/settings/media', '/docs#/posts/createposts']);
    // How to call the API: the base URL, the reference, a curl line for the reader's own key.
    expect(await page.getByLabel('API base URL').inputValue()).toBe(stack.baseUrl);
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe(`${stack.origin}/docs`);
    expect(await page.getByLabel(/^Try it/).inputValue()).toBe(`curl -s -H "Authorization: Bearer $API_KEY" ${stack.baseUrl}/accounts`);
    await expectAccessible(page, 'Overview');
    await screenshot(page, 'overview');

    // Security headers on every page.
    const response = await page.goto(`${stack.origin}/settings`);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['x-content-type-options']).toBe('nosniff');

    const key = await createKey(page);
    expect(page.url()).not.toContain(key.slice(3, 19) + '_');
    expect(await page.locator('.notice.warn').innerText()).toContain('shown only this once');
    // The new key's page: the curl line with the key in it works exactly as shown.
    const curl = await page.getByLabel(/^Try your key/).inputValue();
    expect(curl).toBe(`curl -s -H "Authorization: Bearer ${key}" ${stack.baseUrl}/accounts`);
    expect(JSON.parse(await runAsShown(curl))).toEqual({ object: 'list', accounts: [] });
    expect(await page.getByLabel('API base URL').inputValue()).toBe(stack.baseUrl);
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe(`${stack.origin}/docs`);
    await expectAccessible(page, 'the new key');
    await screenshot(page, 'key-created');

    // Back on the Overview, the first step is done.
    await page.goto(`${stack.origin}/settings`);
    expect((await pathSteps(page))[0]).toEqual(['Make an API key', 'Done']);
    expect(await page.locator('main').innerText()).toContain('1 of 4 steps done');

    // The Assistants page says how to add one: the MCP URL to copy and the clients that take it.
    await page.goto(`${stack.origin}/settings/assistants`);
    expect(await page.getByLabel('MCP server URL').inputValue()).toBe(`${stack.origin}/mcp`);
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    for (const client of ['Claude', 'ChatGPT', 'VS Code', 'Cursor', 'mcp-remote']) expect(await page.locator('main').innerText()).toContain(client);
    await expectAccessible(page, 'Assistants');
    await screenshot(page, 'assistants-add');

    const accounts = await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${key}` } });
    expect(accounts.status).toBe(200);
    expect(await accounts.json()).toEqual({ object: 'list', accounts: [] });

    await page.goto(`${stack.origin}/settings/keys`);
    const keyId = key.split('_')[1] ?? '';
    const row = page.locator('tr', { hasText: `ak_${keyId}_` });
    expect(await row.innerText()).not.toContain('Never'); // its use was just recorded
    expect(await page.content()).not.toContain(key); // never shown again
    await screenshot(page, 'keys');

    await row.getByRole('link', { name: 'Revoke…' }).click();
    await screenshot(page, 'key-revoke');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/\/settings\/keys\?revoked=/);
    expect(await page.locator('tr', { hasText: `ak_${keyId}_` }).innerText()).toContain('Revoked');

    const refused = await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('api_key_revoked');

    // Sign out ends the server-side session: the old cookie is worth nothing afterwards.
    const cookies = await context.cookies();
    const providerOrigin = new URL(stack.env.OIDC_ISSUER_URL ?? '').origin;
    const providerSession = () => context.cookies(providerOrigin).then((all) => all.filter((cookie) => cookie.name.startsWith('_session')).map((cookie) => cookie.value));
    expect(await providerSession()).not.toEqual([]);
    // The answer is read as it passes (its Refresh navigates away at once, taking its body with it).
    // The route stays to the end: taking it away turns the browser's interception off, and a request
    // it holds at that moment (the signed-out page's script, say) never gets an answer, so the page
    // never loads and its Refresh never fires (a flake seen in CI).
    const signOut = `${stack.origin}/settings/sign-out`;
    let passed: (answer: { body: string; refresh: string }) => void = () => undefined;
    const answer = new Promise<{ body: string; refresh: string }>((resolve) => (passed = resolve));
    await page.route(signOut, async (route) => {
      const response = await route.fetch();
      const body = await response.text();
      await route.fulfill({ response, body });
      passed({ body, refresh: response.headers().refresh ?? '' });
    });
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    // The answer renders signed out, never with the session it just ended (no e-mail, no navigation,
    // no Sign out button), and sends the browser on through the provider's logout (Cognito's contract).
    const { body: answered, refresh } = await answer;
    expect(answered).toContain('You are signed out');
    expect(answered).not.toContain('ada@example.com');
    expect(answered).not.toContain('/settings/sign-out');
    expect(refresh).toBe(`0; url=${providerOrigin}/logout?client_id=settings-local&logout_uri=${encodeURIComponent(`${stack.origin}/settings`)}`);
    // The provider's session ends too, and the browser comes back to settings, which asks for a sign-in.
    await page.waitForURL(/\/interaction\/[^/]+$/);
    expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    expect(await providerSession()).toEqual([]);
    const session = cookies.find((cookie) => cookie.name === 'sp_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    const replay = await fetch(`${stack.origin}/settings`, { headers: { cookie: `sp_session=${session?.value}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/settings\/sign-in/);

    // Signing in again asks for the password and lands where it was going.
    await page.goto(`${stack.origin}/settings/keys`);
    await signIn(page, 'ada@example.com', PASSWORD);
    await page.waitForURL(`${stack.origin}/settings/keys`);
    await context.close();
  });

  it('refuses a form without the CSRF token, and another user’s key id', async () => {
    const ada = await newUser('grace@example.com');
    const key = await createKey(ada.page);
    const keyId = key.split('_')[1] ?? '';
    const bob = await newUser('bob@example.com');

    // Bob's session, Ada's key id: not found, and the key still works.
    const confirm = await bob.page.goto(`${stack.origin}/settings/keys/${keyId}/revoke`);
    expect(confirm?.status()).toBe(404);
    const csrf = await bob.page.locator('input[name="_csrf"]').first().inputValue();
    const bobCookie = (await bob.context.cookies()).find((cookie) => cookie.name === 'sp_session')?.value ?? '';
    const post = (path: string, body: string) =>
      fetch(`${stack.origin}${path}`, {
        method: 'POST',
        headers: { cookie: `sp_session=${bobCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
    expect((await post(`/settings/keys/${keyId}/revoke`, `_csrf=${encodeURIComponent(csrf)}`)).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/accounts`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    // No token, a wrong token, or a foreign Origin: 403, and nothing is created.
    expect((await post('/settings/keys', '')).status).toBe(403);
    expect((await post('/settings/keys', '_csrf=wrong')).status).toBe(403);
    const foreign = await fetch(`${stack.origin}/settings/keys`, {
      method: 'POST',
      headers: { cookie: `sp_session=${bobCookie}`, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: `_csrf=${encodeURIComponent(csrf)}`,
      redirect: 'manual',
    });
    expect(foreign.status).toBe(403);
    await bob.page.goto(`${stack.origin}/settings/keys`);
    expect(await bob.page.locator('main').innerText()).toContain('No keys yet');
    // With the token, the same request works.
    expect((await post('/settings/keys', `_csrf=${encodeURIComponent(csrf)}`)).status).toBe(201);
    await ada.context.close();
    await bob.context.close();
  });

  it('works on a phone-sized screen', async () => {
    const { context, page } = await newUser('phone@example.com', PHONE);
    await expectAccessible(page, 'Overview on a phone');
    await screenshot(page, 'overview-phone');
    await createKey(page);
    await expectAccessible(page, 'the new key on a phone');
    await screenshot(page, 'key-created-phone');
    for (const path of ['/settings/keys', '/settings/workspaces', '/settings/accounts', '/settings/media', '/settings/posts', '/settings/assistants']) {
      await page.goto(`${stack.origin}${path}`);
      await expectAccessible(page, `${path} on a phone`);
    }
    await context.close();
  });

  it('sends a signed-out visitor to sign in, and refuses a replayed or forged callback', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${stack.origin}/settings/keys`);
    expect(page.url()).toContain('/interaction/');
    await screenshot(page, 'sign-in');
    const forged = await page.goto(`${stack.origin}/settings/auth/callback?code=abc&state=def`);
    expect(forged?.status()).toBe(400);
    await context.close();
  });
});
