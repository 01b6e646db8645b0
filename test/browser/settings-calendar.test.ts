/**
 * The Calendar and the person's time zone in a real browser at desktop and phone widths (issue 33
 * item 4): with no zone chosen the pages use the browser's (Chromium set to Europe/Berlin; the
 * pages' script sends it), the week Berlin's clocks go back shows a 25-hour Sunday, choosing
 * America/New_York in the form moves every time, a post links to its row on the Posts page, each
 * time carries its UTC instant on hover, and every page is axe clean and no wider than the screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbIdentityStore } from '../../lib/store/dynamodb-identity-store.js';
import { accessibilityViolations, overflowWidth } from '../support/axe.js';
import { DESKTOP, launchChromium, PHONE, screenshot, signIn } from '../support/browser.js';
import { placePost } from '../support/calendar.js';
import { futureInstant } from '../support/clock.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;
let owner: ProvisionedUser;
const PASSWORD = 'a long local password';
const EMAIL = 'calendar-owner@example.com';
const TOMORROW = futureInstant(1).toISOString();

beforeAll(async () => {
  stack = await startTestStack({ sandbox: true });
  browser = await launchChromium();
  owner = await provisionUser({ accounts: [{ platform: 'x', handle: '@owner', name: 'Owner on X', sandbox: 'ok' }] });
  const other = await provisionUser({ accounts: [{ platform: 'x', handle: '@other', name: 'Other on X', sandbox: 'ok' }] });
  const login = await stack.oidc.accounts.create(EMAIL, PASSWORD);
  await new DynamoDbIdentityStore({ tableName: stack.tables.directory }).linkIdentity({ issuer: stack.oidc.issuer, subject: login.id, email: EMAIL }, owner.userId);
  // Berlin: clocks back on Sunday 2026-10-25. New York: a week later, on Sunday 2026-11-01.
  await placePost(stack, owner, 'published', '2026-10-20T07:15:00.000Z', 'Tuesday morning launch note');
  await placePost(stack, owner, 'published', '2026-10-22T16:00:00.000Z', 'Thursday afternoon thread about the release, long enough to wrap on a phone screen');
  await placePost(stack, owner, 'published', '2026-10-25T00:30:00.000Z', 'First 02:30 (summer time)');
  await placePost(stack, owner, 'published', '2026-10-25T01:30:00.000Z', 'Second 02:30 (winter time)');
  await placePost(stack, owner, 'published', '2026-11-01T05:30:00.000Z', 'New York, first 01:30');
  await placePost(stack, owner, 'published', '2026-11-01T06:30:00.000Z', 'New York, second 01:30');
  await placePost(stack, owner, 'scheduled', TOMORROW, 'Tomorrow’s scheduled post');
  await placePost(stack, other, 'published', '2026-10-25T00:30:00.000Z', 'Not the owner’s post');
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport, timezoneId: 'Europe/Berlin' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${stack.origin}/settings/calendar`);
  await signIn(page, EMAIL, PASSWORD);
  await page.waitForURL(`${stack.origin}/settings/calendar`);
  return page;
}

async function clean(page: Page, what: string): Promise<void> {
  expect(await accessibilityViolations(page), what).toEqual([]);
  expect(await overflowWidth(page), `${what} is wider than the screen`).toBe(0);
}

describe('the Calendar in a browser', () => {
  it('at desktop width: the browser’s zone until one is chosen, the DST week, then America/New_York chosen', async () => {
    const page = await signedIn(DESKTOP);
    // The pages' script has sent the browser's zone (sp_tz) by now: the next page reads in it.
    await page.getByRole('link', { name: 'Calendar', exact: true }).click();
    await expect.poll(() => page.locator('.zone').textContent()).toContain('Times in Europe/Berlin');
    expect(await page.locator('.zone').getAttribute('data-time-zone-source')).toBe('browser');
    expect(await page.getByLabel('Time zone', { exact: true }).inputValue()).toBe('Europe/Berlin');
    expect(await page.locator('.calendar-day.today').count()).toBe(1);
    await clean(page, 'this week');
    // Tomorrow's week (this one, or the next on a Sunday), with the scheduled post.
    await page.goto(`${stack.origin}/settings/calendar?week=${TOMORROW.slice(0, 10)}`);
    expect(await page.getByText('Tomorrow’s scheduled post').count()).toBe(1);
    await clean(page, 'tomorrow’s week');
    await screenshot(page, 'settings-calendar-desktop');

    await page.goto(`${stack.origin}/settings/calendar?week=2026-10-25`);
    const sunday = page.locator('[data-date="2026-10-25"]');
    expect(await sunday.getAttribute('data-hours')).toBe('25');
    await expect.poll(() => sunday.locator('h4').allTextContents()).toEqual(['02:00 UTC+2', '02:00 UTC+1']);
    const first = sunday.locator('time').first();
    expect(await first.textContent()).toBe('02:30');
    expect(await first.getAttribute('title')).toBe('2026-10-25 00:30 UTC');
    expect(await page.getByText('Not the owner’s post').count()).toBe(0);
    await clean(page, 'the week Berlin’s clocks go back');
    await screenshot(page, 'settings-calendar-dst-berlin-desktop');

    // Previous/next week links walk the weeks.
    await page.getByRole('link', { name: '← Previous week' }).click();
    await page.waitForURL(/week=2026-10-12$/);
    await page.getByRole('link', { name: 'Next week →' }).click();
    await page.waitForURL(/week=2026-10-19$/);

    // Each post links to its row on the Posts page.
    await page.getByRole('link', { name: 'Tuesday morning launch note' }).click();
    await page.waitForURL(/\/settings\/posts\?status=published#post_/);
    const rowId = new URL(page.url()).hash.slice(1);
    expect(await page.locator(`tr[id="${rowId}"]`).textContent()).toContain('Tuesday morning launch note');
    // The Posts page shows the same instant in the same zone.
    expect(await page.locator(`tr[id="${rowId}"] time`).textContent()).toBe('2026-10-20 09:15 UTC+2');

    await page.goto(`${stack.origin}/settings/calendar?week=2026-10-25`);
    await page.getByLabel('Time zone', { exact: true }).selectOption('America/New_York');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.waitForURL(/\/settings\/calendar\?week=2026-10-19&done=time-zone#time-zone$/);
    expect(await page.getByRole('status').first().textContent()).toContain('Time zone saved');
    expect(await page.locator('.zone').textContent()).toContain('Times in America/New_York');
    // In New York that week is an ordinary one; the 02:30s in Berlin were 20:30 and 21:30 on Saturday.
    expect(await page.locator('[data-date="2026-10-25"]').getAttribute('data-hours')).toBe('24');
    expect(await page.locator('[data-date="2026-10-24"] time').allTextContents()).toEqual(['20:30', '21:30']);
    await page.context().close();
  });

  it('at phone width: the week New York’s clocks go back, one day below the other', async () => {
    const page = await signedIn(PHONE);
    expect(await page.locator('.zone').textContent()).toContain('Times in America/New_York');
    await page.goto(`${stack.origin}/settings/calendar?week=2026-11-01`);
    const sunday = page.locator('[data-date="2026-11-01"]');
    expect(await sunday.getAttribute('data-hours')).toBe('25');
    expect(await sunday.locator('.day-note').textContent()).toBe('25 hours: clocks go back');
    expect(await sunday.locator('h4').allTextContents()).toEqual(['01:00 UTC-4', '01:00 UTC-5']);
    expect(await sunday.locator('time').evaluateAll((times) => times.map((time) => time.getAttribute('title')))).toEqual(['2026-11-01 05:30 UTC', '2026-11-01 06:30 UTC']);
    await clean(page, 'the week New York’s clocks go back, on a phone');
    await screenshot(page, 'settings-calendar-dst-new-york-phone');

    const bad = await page.goto(`${stack.origin}/settings/calendar?week=2026-02-30`);
    expect(bad?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('is not a date');
    await clean(page, 'a bad week');
    await page.context().close();
  });
});
