/**
 * The settings app's two cookies, both HttpOnly and SameSite=Lax, Secure whenever the app is
 * served over https (always on AWS; the local stack is plain http on 127.0.0.1):
 *   sp_session  a random session id; its SHA-256 keys the server-side session (lib/store/dynamodb-session-store.ts)
 *   sp_login    a random id for one sign-in under way (state, nonce, PKCE verifier server-side)
 * Neither value means anything without the record it names, and the records hold only hashes.
 * A third, sp_tz, is the browser's own time zone, written by web/static/settings.js (so not
 * HttpOnly): the zone pages use until the person chooses one. It is only ever a default.
 */
export { hashCookieSecret, newCookieSecret } from '../domain/session-secret.js';

export const SESSION_COOKIE = 'sp_session';
export const LOGIN_COOKIE = 'sp_login';
export const TIME_ZONE_COOKIE = 'sp_tz';

/** A cookie value as we write it: base64url only, so anything else is not ours. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

/** API Gateway payload 2.0 hands cookies as `name=value` strings. */
export function readCookie(cookies: readonly string[] | undefined, name: string): string | null {
  for (const cookie of cookies ?? []) {
    const index = cookie.indexOf('=');
    if (index === -1 || cookie.slice(0, index).trim() !== name) continue;
    const value = cookie.slice(index + 1).trim();
    if (COOKIE_VALUE.test(value)) return value;
  }
  return null;
}

/** The browser's zone from sp_tz, only when shaped like an IANA name (Intl decides whether it is one). */
export function readTimeZoneCookie(cookies: readonly string[] | undefined): string | null {
  for (const cookie of cookies ?? []) {
    const index = cookie.indexOf('=');
    if (index === -1 || cookie.slice(0, index).trim() !== TIME_ZONE_COOKIE) continue;
    const value = cookie.slice(index + 1).trim();
    if (/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(value)) return value;
  }
  return null;
}

export interface CookieOptions {
  path: string;
  maxAgeSeconds: number;
  secure: boolean;
}

export function setCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearCookie(name: string, options: Omit<CookieOptions, 'maxAgeSeconds'>): string {
  return setCookie(name, '', { ...options, maxAgeSeconds: 0 });
}
