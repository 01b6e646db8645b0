/**
 * The secrets a settings cookie carries (a session id, a sign-in id) and the hash the server keys
 * their records by: 32 random bytes, base64url (43 characters); SHA-256 hex. A copy of the
 * sessions table therefore holds nothing a browser could present.
 */
import { createHash, randomBytes } from 'node:crypto';

export function newCookieSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashCookieSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A CSRF token: as unguessable as the session id, and different from it. */
export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}
