/**
 * The API reference at /docs in a real browser, served by the local stack as on AWS: Redoc renders
 * the openapi.yaml of this checkout (every operation's summary is on the page, with each response
 * status it documents, the errors among them), under the reference's Content-Security-Policy with
 * no script or style refused, and linked from the settings pages.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DESKTOP, DOCS_DIR, launchChromium, PHONE } from '../support/browser.js';
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

interface Operation {
  summary: string;
  operationId: string;
  tags: string[];
  responses: Record<string, unknown>;
}

/** The operations of openapi.yaml as it is now, by tag. */
function operations(): Operation[] {
  const document = parse(readFileSync('openapi.yaml', 'utf8')) as { paths: Record<string, Record<string, Operation>> };
  return Object.values(document.paths).flatMap((item) => Object.values(item).filter((value): value is Operation => typeof value === 'object' && value !== null && 'responses' in value));
}

/** Everything the Content-Security-Policy refused while the page ran. */
function refusals(page: Page): string[] {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/.test(message.text())) refused.push(message.text());
  });
  page.on('pageerror', (error) => refused.push(`page error: ${error.message}`));
  return refused;
}

describe('the API reference at /docs', () => {
  it('shows every operation of openapi.yaml with its responses, errors included, and the CSP refuses nothing of its own', async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    page.setDefaultTimeout(10_000);
    const refused = refusals(page);
    const response = await page.goto(`${stack.origin}/docs`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    await page.getByRole('heading', { name: /Social Publishing API/ }).first().waitFor();

    // Redoc's sidebar links each operation (a page of its own); each shows every response status.
    for (const operation of operations()) {
      // A tag's operations are listed once the tag is open.
      const tag = page.locator('.menu-content a').filter({ hasText: new RegExp(`^${operation.tags[0] ?? ''}$`) }).first();
      if ((await page.locator('.menu-content a').filter({ hasText: operation.summary }).count()) === 0) await tag.click();
      const link = page.locator('.menu-content a').filter({ hasText: operation.summary }).first();
      const href = await link.getAttribute('href');
      expect(href, operation.summary).toMatch(/^#\//);
      await page.goto(`${stack.origin}/docs${href ?? ''}`);
      await page.getByText(operation.summary, { exact: true }).filter({ visible: true }).first().waitFor();
      const text = await page.locator('body').innerText();
      for (const status of Object.keys(operation.responses)) expect(text, `${operation.summary}: response ${status}`).toMatch(new RegExp(`^${status}$`, 'm'));
    }
    await page.goto(`${stack.origin}/docs#/posts/createposts`);
    await page.getByText('Create posts', { exact: true }).filter({ visible: true }).first().waitFor();
    // The viewport, not the full page: Redoc's sidebar is fixed and the page scrolls beside it.
    await page.screenshot({ path: `${DOCS_DIR}/screenshots/api-reference.png` });
    // Redoc's own logo from its CDN is the one thing refused: nothing loads from another origin.
    expect(refused.filter((line) => !line.includes('https://cdn.redoc.ly/'))).toEqual([]);
    await page.close();
  });

  it('fits a phone', async () => {
    const page = await browser.newPage({ viewport: PHONE });
    await page.goto(`${stack.origin}/docs`);
    await page.getByRole('heading', { name: /Social Publishing API/ }).first().waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await page.close();
  });
});
