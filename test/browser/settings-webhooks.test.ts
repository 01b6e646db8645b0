/**
 * The settings Webhooks page in a real browser against the local stack, its delivery worker and a
 * receiver on 127.0.0.1 that this test runs: add an endpoint (its secret shown once), send a test
 * event that the receiver gets and verifies with the `standardwebhooks` package (a receiver's
 * library, not our code), see the delivery's status code and latency, resend it, rotate the secret
 * (the next delivery carries two signatures), see why an endpoint was disabled, disable it (nothing
 * more can be sent), delete it after the question. Another user gets 404 for all of it. Each page
 * passes axe and fits a phone; screenshots go to docs/screenshots.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { DynamoDbIdentityStore } from '../../lib/store/dynamodb-identity-store.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { newTestEventId } from '../../lib/domain/webhooks.js';
import { DESKTOP, launchChromium, PHONE, screenshot, signIn, signUp } from '../support/browser.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver as a customer's server would be: records each delivery and answers 204. */
interface Receiver {
  url: string;
  received: Received[];
  waitFor(count: number): Promise<Received[]>;
  stop(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor: async (count) => {
      for (let round = 0; round < 150 && received.length < count; round++) await new Promise((resolve) => setTimeout(resolve, 100));
      if (received.length < count) throw new Error(`The receiver got ${received.length} deliveries, not ${count}`);
      return received;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let stack: TestStack;
let browser: Browser;
let receiver: Receiver;
let owner: ProvisionedUser;
let store: DynamoDbWebhookStore;
const PASSWORD = 'a long local password';

beforeAll(async () => {
  stack = await startTestStack({ consumers: ['WebhookDeliveryWorker'] });
  browser = await launchChromium();
  receiver = await startReceiver();
  owner = await provisionUser({ workspaces: 1 });
  // The owner's login, linked to the provisioned user (so the test knows its user id and API key).
  const login = await stack.oidc.accounts.create('hooks@example.com', PASSWORD);
  await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity(
    { issuer: stack.oidc.issuer, subject: login.id, email: 'hooks@example.com' },
    owner.userId,
  );
  const client = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }), { marshallOptions: { removeUndefinedValues: true } });
  store = new DynamoDbWebhookStore({ tableName: stack.tables.webhooks, client });
});

afterAll(async () => {
  await receiver?.stop();
  await browser?.close();
  await stack?.stop();
});

async function signedInAsOwner(viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${stack.origin}/settings/webhooks`);
  await signIn(page, 'hooks@example.com', PASSWORD);
  await page.waitForURL(`${stack.origin}/settings/webhooks`);
  return { context, page };
}

/** Nothing wider than the viewport (a phone's, when the context has one), and no axe violations. */
async function checkPage(page: Page): Promise<void> {
  // Strings: the test compiles without the DOM's types. Measured before axe runs its script in the page.
  const widths = (await page.evaluate('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })')) as { document: number; viewport: number };
  if (widths.document > widths.viewport) {
    const wide = await page.evaluate(
      `[...document.querySelectorAll('body, body *')].filter((element) => element.getBoundingClientRect().right > window.innerWidth || element.scrollWidth > window.innerWidth).slice(0, 8).map((element) => Math.round(element.getBoundingClientRect().right) + '/' + element.scrollWidth + ' ' + element.outerHTML.slice(0, 100))`,
    );
    expect.fail(`${page.url()} is ${widths.document} px wide on a ${widths.viewport} px screen: ${JSON.stringify(wide)}`);
  }
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
}

function verify(secret: string, delivery: Received): unknown {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  });
}

/** The cells of a delivery's row by their column (the data-label each cell carries for phones). */
async function deliveryCells(page: Page, eventId: string): Promise<Record<string, string>> {
  const cells: Record<string, string> = {};
  for (const cell of await page.locator(`tr[id="${eventId}"] td[data-label]`).all()) {
    cells[(await cell.getAttribute('data-label')) ?? ''] = (await cell.innerText()).trim();
  }
  return cells;
}

/** Reloads the endpoint's page until the delivery's row shows `result` after `attempts` attempts (the worker sends in the background). */
async function waitForRow(page: Page, eventId: string, attempts: number, result = 'Delivered'): Promise<Record<string, string>> {
  let cells: Record<string, string> = {};
  for (let round = 0; round < 50; round++) {
    await page.reload();
    cells = await deliveryCells(page, eventId);
    if (cells.Attempt === String(attempts) && cells.Result?.startsWith(result)) return cells;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The row of ${eventId} never showed ${result} after ${attempts} attempts: ${JSON.stringify(cells)}`);
}

async function secretShown(page: Page): Promise<string> {
  const secret = (await page.getByLabel(/^Signing secret for/).inputValue()).trim();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(await page.locator('.notice.warn').innerText()).toContain('shown only this once');
  return secret;
}

/** A POST of a settings form as the browser would send it, with this context's session cookie and CSRF token. */
async function postForm(context: BrowserContext, page: Page, path: string, fields: Record<string, string> = {}): Promise<Response> {
  const cookie = (await context.cookies()).find((entry) => entry.name === 'sp_session')?.value ?? '';
  const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
  return fetch(`${stack.origin}${path}`, {
    method: 'POST',
    headers: { cookie: `sp_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded', origin: stack.origin },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    redirect: 'manual',
  });
}

describe('the settings Webhooks page', () => {
  // Many pages and four deliveries on a shared two-core machine: more than the default 30 s.
  it('adds an endpoint, sends, resends, rotates, disables and deletes, and keeps it from another user', { timeout: 120_000 }, async () => {
    const { context, page } = await signedInAsOwner();
    const main = page.locator('main');

    // Empty: says what webhooks are for and links to the form.
    expect(await main.innerText()).toContain('No webhook endpoints yet');
    expect(await page.getByRole('link', { name: 'Add an endpoint' }).getAttribute('href')).toBe('#add');
    expect(await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe('page');
    await checkPage(page);

    // A refused URL: the reason in words, the form as typed, never a 5xx.
    await page.getByLabel('Endpoint URL').fill('http://example.com/hooks');
    let answer = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect((await answer).status()).toBe(400);
    expect(await page.getByRole('alert').innerText()).toContain('The URL must use https');
    expect(await page.getByLabel('Endpoint URL').inputValue()).toBe('http://example.com/hooks');
    // No event chosen.
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: /All events/ }).uncheck();
    answer = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect((await answer).status()).toBe(400);
    expect(await page.getByRole('alert').innerText()).toBe('Choose at least one event, or All events.');

    // Added: the secret once, in the answer page only.
    await page.getByRole('checkbox', { name: /All events/ }).check();
    await page.getByLabel('Description').fill('Our order system');
    answer = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const added = await answer;
    expect(added.status()).toBe(201);
    const secret = await secretShown(page);
    expect(page.url()).toBe(`${stack.origin}/settings/webhooks`);
    // The same form sent again (a double click, or a reload of this page, which resends it): the
    // same endpoint and secret, not a second endpoint whose secret no one would see.
    const form = added.request().postData() ?? '';
    expect(form).toContain('submission=');
    const session = (await context.cookies()).find((entry) => entry.name === 'sp_session')?.value ?? '';
    const sentAgain = await fetch(`${stack.origin}/settings/webhooks`, {
      method: 'POST',
      headers: { cookie: `sp_session=${session}`, 'content-type': 'application/x-www-form-urlencoded', origin: stack.origin },
      body: form,
      redirect: 'manual',
    });
    expect(sentAgain.status).toBe(201);
    expect(await sentAgain.text()).toContain(secret);
    expect(await store.allEndpoints(owner.userId)).toHaveLength(1);
    await checkPage(page);
    await screenshot(page, 'webhook-created');
    await page.getByRole('link', { name: 'Done, back to the endpoint' }).click();
    const endpointUrl = page.url();
    const endpointId = new URL(endpointUrl).searchParams.get('endpoint') ?? '';
    expect(endpointId).toMatch(/^we_[0-9A-Za-z]{20}$/);
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${stack.origin}/settings/webhooks`);
    expect(await page.content()).not.toContain(secret);
    const row = page.locator('tr', { hasText: receiver.url });
    expect(await row.innerText()).toContain('Enabled');
    expect(await row.innerText()).toContain('All events');
    expect(await row.innerText()).toContain('Our order system');
    await checkPage(page);
    await screenshot(page, 'webhooks');

    // A test event: the receiver gets it, signed; its row shows the status code and latency.
    await row.getByRole('link', { name: /Deliveries and actions/ }).click();
    expect(await main.innerText()).toContain('No deliveries yet');
    await page.getByRole('button', { name: 'Send test event' }).click();
    expect(await page.getByRole('status').first().innerText()).toContain('Test event queued');
    const [test] = await receiver.waitFor(1);
    expect(verify(secret, test!)).toMatchObject({ object: 'event', type: 'webhook.test' });
    expect(String(test!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    const testId = String(test!.headers['webhook-id']);
    const delivered = await waitForRow(page, testId, 1);
    expect(delivered.Event).toBe(`webhook.test\n${testId}`);
    expect(delivered['Status code']).toBe('204');
    expect(delivered.Latency).toMatch(/^\d+ ms$/);
    expect(delivered.Time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await checkPage(page);
    await screenshot(page, 'webhook-endpoint');

    // Resend: the same event again, with the same webhook-id, as a second attempt.
    await page.locator(`tr[id="${testId}"]`).getByRole('button', { name: /^Resend/ }).click();
    await page.waitForURL(/&done=resent$/);
    const [, resent] = await receiver.waitFor(2);
    expect(resent!.headers['webhook-id']).toBe(testId);
    expect(verify(secret, resent!)).toBeTruthy();
    await waitForRow(page, testId, 2);

    // Rotate: the new secret once, and the next delivery is signed by both.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await secretShown(page);
    expect(rotated).not.toBe(secret);
    expect(await main.innerText()).toContain('keeps signing beside this one for 24 hours');
    await page.getByRole('link', { name: 'Done, back to the endpoint' }).click();
    expect(await page.content()).not.toContain(rotated);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL(/&done=test$/);
    const [, , signedTwice] = await receiver.waitFor(3);
    expect(String(signedTwice!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(secret, signedTwice!)).toBeTruthy();
    expect(verify(rotated, signedTwice!)).toBeTruthy();
    await waitForRow(page, String(signedTwice!.headers['webhook-id']), 1);

    // Another user: not found, whatever they try, and nothing of it on their own page.
    const bob = await browser.newContext({ viewport: DESKTOP });
    const bobPage = await bob.newPage();
    bobPage.setDefaultTimeout(10_000);
    await bobPage.goto(`${stack.origin}/settings/webhooks`);
    await signUp(bobPage, 'bob-hooks@example.com', PASSWORD);
    await bobPage.waitForURL(`${stack.origin}/settings/webhooks`);
    expect((await bobPage.goto(`${stack.origin}/settings/webhooks?endpoint=${endpointId}`))?.status()).toBe(404);
    expect((await bobPage.goto(`${stack.origin}/settings/webhooks?endpoint=${endpointId}&confirm=delete`))?.status()).toBe(404);
    await bobPage.goto(`${stack.origin}/settings/webhooks`);
    expect(await bobPage.content()).not.toContain(endpointId);
    for (const [path, fields] of [
      ['send', {}],
      ['send', { eventId: testId }],
      ['rotate', {}],
      ['status', { status: 'disabled' }],
      ['delete', {}],
    ] as const) {
      expect((await postForm(bob, bobPage, `/settings/webhooks/${endpointId}/${path}`, fields)).status, path).toBe(404);
    }
    await bob.close();
    // Without the CSRF token, nothing is sent.
    const cookie = (await context.cookies()).find((entry) => entry.name === 'sp_session')?.value ?? '';
    const forged = await fetch(`${stack.origin}/settings/webhooks/${endpointId}/send`, {
      method: 'POST',
      headers: { cookie: `sp_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    // Bob's attempts changed nothing: still enabled, still one secret pair, nothing more sent.
    await page.goto(endpointUrl);
    expect(await main.innerText()).toContain('Enabled');
    expect(receiver.received).toHaveLength(3);

    // Disabled by the delivery worker (410, or three days of failures): the reason, in words.
    expect(await store.disableEndpoint(owner.userId, endpointId, 'Disabled after 3 days of failed deliveries.', new Date())).toBe(true);
    await page.goto(`${stack.origin}/settings/webhooks`);
    expect(await page.locator('tr', { hasText: receiver.url }).innerText()).toContain('Disabled after 3 days of failed deliveries.');
    await page.goto(endpointUrl);
    expect(await main.innerText()).toContain('Disabled after 3 days of failed deliveries.');
    await checkPage(page);
    await screenshot(page, 'webhook-disabled');

    // Enable, then disable from the page: no more deliveries (no button, and a direct send is refused).
    await page.getByRole('button', { name: 'Enable' }).click();
    expect(await main.innerText()).toContain('Endpoint enabled.');
    expect(await main.innerText()).not.toContain('Disabled after 3 days');
    await page.getByRole('button', { name: 'Disable' }).click();
    expect(await main.innerText()).toContain('Endpoint disabled');
    expect(await page.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Resend/ }).count()).toBe(0);
    const refused = await postForm(context, page, `/settings/webhooks/${endpointId}/send`);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('This endpoint is disabled and receives nothing: enable it first.');
    const api = await fetch(`${stack.baseUrl}/webhook_endpoints/${endpointId}`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(await api.json()).toMatchObject({ id: endpointId, status: 'disabled', disabledReason: null });

    // Delete, after the question.
    await page.getByRole('link', { name: 'Delete…' }).click();
    expect(await main.innerText()).toContain(`Delete the endpoint ${receiver.url}?`);
    await checkPage(page);
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.waitForURL(/\/settings\/webhooks\?done=deleted$/);
    expect(await main.innerText()).toContain('Endpoint deleted');
    expect(await main.innerText()).toContain('No webhook endpoints yet');
    expect((await page.goto(endpointUrl))?.status()).toBe(404);
    expect(receiver.received).toHaveLength(3);
    await context.close();
  });

  it('shows the recent events also to a user without an endpoint, newest first, and only their own', { timeout: 60_000 }, async () => {
    const user = await provisionUser({ workspaces: 1 });
    const login = await stack.oidc.accounts.create('events@example.com', PASSWORD);
    await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity({ issuer: stack.oidc.issuer, subject: login.id, email: 'events@example.com' }, user.userId);
    // Events as the router records them (the store's own write), one of them another user's.
    const recorded = async (userId: string, type: 'post.published' | 'account.connected', secondsAgo: number) => {
      const id = newTestEventId();
      const createdAt = new Date(Date.now() - secondsAgo * 1000).toISOString();
      return store.putEvent({ id, userId, type, createdAt, body: JSON.stringify({ id, object: 'event', type, createdAt, data: { object: {} } }) });
    };
    const older = await recorded(user.userId, 'account.connected', 60);
    const newer = await recorded(user.userId, 'post.published', 30);
    const theirs = await recorded(owner.userId, 'post.published', 10);
    const context = await browser.newContext({ viewport: DESKTOP });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${stack.origin}/settings/webhooks`);
      await signIn(page, 'events@example.com', PASSWORD);
      await page.waitForURL(`${stack.origin}/settings/webhooks`);
      await expect.poll(() => page.getByRole('heading', { name: 'No webhook endpoints yet' }).isVisible()).toBe(true);
      const section = page.locator('section', { has: page.getByRole('heading', { name: 'Recent events' }) });
      expect(await section.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.id))).toEqual([newer.id, older.id]);
      expect(await section.locator(`tr[id="${newer.id}"] td[data-label="Event"]`).innerText()).toBe('post.published');
      expect(await page.locator(`tr[id="${theirs.id}"]`).count()).toBe(0);
      await checkPage(page);
    } finally {
      await context.close();
    }
  });

  it('fits a phone: the list, an endpoint with its deliveries, the secret and the question', { timeout: 60_000 }, async () => {
    const { context, page } = await signedInAsOwner(PHONE);
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/a-rather-long-path/that-would-not-fit/on-a-phone-screen-unbroken`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await secretShown(page);
    await checkPage(page);
    await page.getByRole('link', { name: 'Done, back to the endpoint' }).click();
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL(/&done=test$/);
    const received = await receiver.waitFor(before + 1);
    await waitForRow(page, String(received[before]!.headers['webhook-id']), 1);
    await checkPage(page);
    await screenshot(page, 'webhook-endpoint-phone');
    await page.getByRole('link', { name: 'Delete…' }).click();
    await checkPage(page);
    await page.goto(`${stack.origin}/settings/webhooks`);
    await checkPage(page);
    await screenshot(page, 'webhooks-phone');
    await context.close();
  });
});
