/**
 * What the browser tests hold every settings page to: axe-core's WCAG 2 A and AA rules with no
 * violation, and nothing wider than the viewport (a phone's included). axe runs inside the page
 * through Playwright's evaluate, which the pages' Content-Security-Policy does not govern.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Each violation as `rule: selectors`, empty when the page passes. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate<string[]>(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((result) => result.violations.map((violation) => violation.id + ': ' + violation.nodes.map((node) => node.target.join(' ')).join(', ')))`,
  );
}

/** How many CSS pixels the page is wider than its viewport (0 when it fits). */
export async function overflowWidth(page: Page): Promise<number> {
  return page.evaluate<number>('Math.max(0, document.documentElement.scrollWidth - window.innerWidth)');
}
