/**
 * The settings media page against the local stack, in Chromium: an import from a URL (a file
 * served on 127.0.0.1) shows processing, then ready with its facts; alt text is saved and cleared,
 * too long is refused in words; another customer's id in a form is not found; the page passes axe.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from '../support/axe.js';
import { DESKTOP, launchChromium, screenshot, signUp } from '../support/browser.js';
import { PNG_1X1 } from '../support/connect.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;
let files: Server;
let filesOrigin: string;

beforeAll(async () => {
  files = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG_1X1.length });
    response.end(PNG_1X1);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  stack = await startTestStack({ consumers: ['MediaImportWorker'] });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => files?.close(resolve));
});

async function statusOfFirst(page: Page): Promise<string | null> {
  await page.goto(`${stack.origin}/settings/media`);
  return page.locator('.media-status').first().getAttribute('data-status');
}

describe('the media page', () => {
  it('imports from a URL, edits alt text, refuses others\u2019 ids', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${stack.origin}/settings`);
    await signUp(page, 'media-settings@example.com', 'correct horse battery staple');
    await page.waitForURL(`${stack.origin}/settings`);

    await page.goto(`${stack.origin}/settings/media`);
    await page.getByLabel('File URL (https)').fill(`${filesOrigin}/pixel.png`);
    await page.getByLabel('Alt text (optional)').fill('A single pixel');
    await page.getByRole('button', { name: 'Import' }).click();
    await page.waitForURL(`${stack.origin}/settings/media?notice=importing`);
    const first = await page.locator('.media-status').first().getAttribute('data-status');
    expect(['processing', 'ready']).toContain(first);
    await expect.poll(() => statusOfFirst(page), { timeout: 60_000, interval: 500 }).toBe('ready');
    const file = await page.locator('td[data-label="File"]').first().innerText();
    expect(file).toContain('PNG image');
    expect(file).toContain('1 × 1 px');
    expect(await page.locator('tr textarea[name="altText"]').first().inputValue()).toBe('A single pixel');
    expect(await page.locator('input.media-url').first().inputValue()).toMatch(/\/med_[0-9A-Za-z]{20}\//);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'media-library');

    // A URL the use case refuses: its words on the page.
    await page.getByLabel('File URL (https)').fill('ftp://example.com/a.png');
    await page.getByRole('button', { name: 'Import' }).click();
    expect(await page.getByRole('alert').innerText()).toContain('invalid_media_request');

    // Alt text: saved, cleared, too long refused.
    await page.goto(`${stack.origin}/settings/media`);
    await page.locator('tr textarea[name="altText"]').first().fill('A pixel, renamed');
    await page.getByRole('button', { name: 'Save alt text' }).first().click();
    await page.waitForURL(`${stack.origin}/settings/media?notice=alt-text`);
    expect(await page.locator('tr textarea[name="altText"]').first().inputValue()).toBe('A pixel, renamed');
    const mediaId = await page.locator('tr[data-media-id]').first().getAttribute('data-media-id');
    await page.locator('tr textarea[name="altText"]').first().evaluate((element) => element.removeAttribute('maxlength'));
    await page.locator('tr textarea[name="altText"]').first().fill('x'.repeat(1001));
    await page.getByRole('button', { name: 'Save alt text' }).first().click();
    expect(await page.getByRole('alert').innerText()).toContain('at most 1000 characters');
    await page.goto(`${stack.origin}/settings/media`);
    await page.locator('tr textarea[name="altText"]').first().fill('');
    await page.getByRole('button', { name: 'Save alt text' }).first().click();
    await page.waitForURL(`${stack.origin}/settings/media?notice=alt-text`);
    expect(await page.locator('tr textarea[name="altText"]').first().inputValue()).toBe('');

    // Another customer: the first one's id in each form is not found.
    const other = await browser.newContext({ viewport: DESKTOP });
    const otherPage = await other.newPage();
    await otherPage.goto(`${stack.origin}/settings`);
    await signUp(otherPage, 'media-other@example.com', 'correct horse battery staple');
    await otherPage.waitForURL(`${stack.origin}/settings`);
    await otherPage.goto(`${stack.origin}/settings/media`);
    const csrf = await otherPage.locator('input[name="_csrf"]').first().inputValue();
    for (const [action, extra] of [['alt-text', { altText: 'mine now' }], ['delete', {}]] as const) {
      const answer = await otherPage.request.post(`${stack.origin}/settings/media/${action}`, { form: { _csrf: csrf, mediaId: mediaId ?? '', ...extra } });
      expect(answer.status()).toBe(404);
      expect(await answer.text()).toContain('media_not_found');
    }
    await other.close();

    // A free file is deleted.
    await page.goto(`${stack.origin}/settings/media`);
    await page.getByText('Delete…').first().click();
    await page.getByRole('button', { name: 'Delete this file' }).first().click();
    await page.waitForURL(`${stack.origin}/settings/media?notice=deleted`);
    expect(await page.locator('tr[data-media-id]').count()).toBe(0);
    await context.close();
  });

  it('an import form sent twice starts one import; the same page sent with another URL is another', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${stack.origin}/settings`);
    await signUp(page, 'media-twice@example.com', 'correct horse battery staple');
    await page.waitForURL(`${stack.origin}/settings`);
    await page.goto(`${stack.origin}/settings/media`);
    const form = page.locator('form[action="/settings/media/import"]');
    const fields = {
      _csrf: await form.locator('input[name="_csrf"]').inputValue(),
      importToken: await form.locator('input[name="importToken"]').inputValue(),
    };
    expect(fields.importToken).toMatch(/^[0-9A-Za-z]{24}$/);
    // A double click, or a resend after a lost answer: the same form, twice.
    for (let sent = 0; sent < 2; sent++) {
      const answer = await page.request.post(`${stack.origin}/settings/media/import`, { form: { ...fields, sourceUrl: `${filesOrigin}/once.png`, altText: '' }, maxRedirects: 0 });
      expect(answer.status(), await answer.text()).toBe(303);
    }
    await page.goto(`${stack.origin}/settings/media`);
    expect(await page.locator('tr[data-media-id]').count()).toBe(1);
    // The same page, another URL: a second import.
    const other = await page.request.post(`${stack.origin}/settings/media/import`, { form: { ...fields, sourceUrl: `${filesOrigin}/twice.png`, altText: '' }, maxRedirects: 0 });
    expect(other.status()).toBe(303);
    await page.goto(`${stack.origin}/settings/media`);
    expect(await page.locator('tr[data-media-id]').count()).toBe(2);
    // A new page has a new token.
    expect(await page.locator('form[action="/settings/media/import"] input[name="importToken"]').inputValue()).not.toBe(fields.importToken);
    await context.close();
  });
});
