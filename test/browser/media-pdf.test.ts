/**
 * A PDF in the settings media library, in a real browser against the local stack: chosen in the
 * file picker (its type from the file), sent straight to storage, listed as a PDF document with the
 * page count read from it; a file named .pdf that is no PDF is refused in words and not listed.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launchChromium, signUp } from '../support/browser.js';
import { pdf } from '../support/pdf.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  stack = await startTestStack();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('PDFs in the media library page', () => {
  it('uploads a PDF and lists it with its pages; refuses a fake one', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${stack.origin}/settings`);
    await signUp(page, 'pdf-reader@example.com', 'correct horse battery staple');
    await page.waitForURL(`${stack.origin}/settings`);

    await page.goto(`${stack.origin}/settings/media`);
    expect(await page.locator('main').innerText()).toContain('a PDF document up to 100 MB');
    await page.getByRole('button', { name: 'Upload a file…' }).click();
    await page.getByLabel('File', { exact: true }).waitFor({ state: 'visible' }); // the page's script has taken the form
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'Quarterly deck.pdf', mimeType: 'application/pdf', buffer: pdf(12) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.waitForURL(`${stack.origin}/settings/media?notice=added`);
    expect(await page.locator('input.media-url').first().inputValue()).toMatch(/\/med_[0-9A-Za-z]{20}\/Quarterly-deck\.pdf$/);
    expect(await page.locator('td[data-label="File"]').first().innerText()).toMatch(/^Quarterly-deck\.pdf\nPDF document \(LinkedIn only\), \d+ kB, 12 pages/);

    await page.getByRole('button', { name: 'Upload a file…' }).click();
    await page.getByLabel('File', { exact: true }).waitFor({ state: 'visible' }); // the page's script has taken the form
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: Buffer.from('<html>not a pdf</html>') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(async () => page.locator('main').innerText()).toContain('not really a PDF document');
    await page.goto(`${stack.origin}/settings/media`);
    expect(await page.locator('input.media-url').count()).toBe(1);
    await context.close();
  });
});
