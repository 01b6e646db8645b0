/**
 * Tokens that warn before they end (decisions.md `tokenHealth: "expiring"`): an account whose access
 * cannot be refreshed (LinkedIn without a partner refresh token: 60 days, then the user must
 * reconnect) turns `expiring` 7 days before its access ends, so the user reconnects before a post
 * fails. Nothing is refused while it is only expiring. Pure.
 */

/** How long before the end an account warns. */
export const TOKEN_EXPIRY_WARNING_MS = 7 * 24 * 60 * 60 * 1000;

/** The account's tokenExpiresAt for freshly stored tokens: their end when nothing can refresh them, else null. */
export function tokenExpiresAtOf(tokens: { refreshToken: string | null; expiresAt: string | null }): string | null {
  return tokens.refreshToken === null && tokens.expiresAt !== null ? new Date(tokens.expiresAt).toISOString() : null;
}

/** When an account whose access ends at `tokenExpiresAt` turns `expiring`. */
export function expiryWarningAt(tokenExpiresAt: string): Date {
  return new Date(Date.parse(tokenExpiresAt) - TOKEN_EXPIRY_WARNING_MS);
}
