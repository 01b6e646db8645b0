/**
 * A signed-in settings browser without the browser: the session the sign-in callback would leave
 * (its cookie and CSRF token), put straight in the sessions table, for HTTP tests of settings pages
 * (the sign-in itself is test/browser's).
 */
import { hashCookieSecret, newCookieSecret } from '../../lib/domain/session-secret.js';
import { DynamoDbSessionStore } from '../../lib/store/dynamodb-session-store.js';
import type { ProvisionedUser } from './provision.js';
import type { TestStack } from './stack.js';

export interface SettingsBrowser {
  get(path: string, cookies?: string): Promise<Response>;
  post(path: string, form?: Record<string, string>): Promise<Response>;
}

/** A signed-in settings session of `user`: GETs and CSRF-carrying POSTs with its cookie. */
export async function settingsSession(stack: TestStack, user: ProvisionedUser): Promise<SettingsBrowser> {
  const cookie = newCookieSecret();
  const csrf = newCookieSecret();
  await new DynamoDbSessionStore({ tableName: stack.tables.sessions }).putSession(hashCookieSecret(cookie), {
    userId: user.userId,
    csrfToken: csrf,
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 3_600_000),
    idleExpiresAt: new Date(Date.now() + 1_800_000),
  });
  const session = `sp_session=${cookie}`;
  return {
    get: (path, cookies) => fetch(`${stack.origin}${path}`, { headers: { cookie: cookies ? `${session}; ${cookies}` : session, origin: stack.origin }, redirect: 'manual' }),
    post: (path, form = {}) =>
      fetch(`${stack.origin}${path}`, {
        method: 'POST',
        headers: { cookie: session, origin: stack.origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
        redirect: 'manual',
      }),
  };
}
