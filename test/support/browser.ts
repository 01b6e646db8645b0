/**
 * A real browser for the settings tests: Debian's Chromium driven by playwright-core (Playwright's
 * own browser download cannot work here; .ci/run installs the `chromium` package when missing).
 */
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * Where the browser tests write what the README and docs/ show (screenshots, the assistant transcript):
 * `docs/` when `UPDATE_DOCS=1` (`UPDATE_DOCS=1 npx vitest run test/browser` refreshes them), else
 * the ignored `.test-data/docs/`, so an ordinary `npm test` leaves the working tree clean.
 */
export const DOCS_DIR = process.env.UPDATE_DOCS === '1' ? 'docs' : '.test-data/docs';

/** <DOCS_DIR>/screenshots/<name>.png, full page. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${DOCS_DIR}/screenshots/${name}.png`, fullPage: true });
}

/** Signs up at the local OpenID provider from any settings page that redirected there. */
export async function signUp(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Repeat the password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
