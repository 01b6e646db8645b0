/**
 * CSRF: every state-changing request (every POST) must carry the session's token in the form
 * field `_csrf`, compared in constant time, and, when the browser says where it comes from
 * (Origin), come from the settings origin itself. SameSite=Lax already keeps the session cookie
 * off cross-site POSTs; the token also covers same-site attackers and old browsers.
 */
import { timingSafeEqual } from 'node:crypto';

export const CSRF_FIELD = '_csrf';

export function csrfTokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Absent Origin (some same-origin navigations) passes; a present one must be ours exactly. */
export function originAllowed(origin: string | undefined, settingsOrigin: string): boolean {
  return origin === undefined || origin === settingsOrigin;
}
