/**
 * Codes and tokens are opaque random strings; only their SHA-256 is stored, so a copy of the
 * table lets no one call the server. An access token carries its grant id in the clear
 * (`mcpat_<grantId>_<secret>`), so checking it reads the token and the grant at the same time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../domain/ids.js';

export const ACCESS_TOKEN_PREFIX = 'mcpat';
export const REFRESH_TOKEN_PREFIX = 'mcprt';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function newGrantId(): string {
  return `grt_${randomToken(20)}`;
}

export function newToken(prefix: typeof ACCESS_TOKEN_PREFIX | typeof REFRESH_TOKEN_PREFIX, grantId: string): string {
  return `${prefix}_${grantId}_${randomToken(40)}`;
}

/** The grant id of a token of this service, or null when it is not shaped like one. */
export function grantIdOfToken(token: string, prefix: typeof ACCESS_TOKEN_PREFIX | typeof REFRESH_TOKEN_PREFIX): string | null {
  const match = /^([a-z]+)_(grt_[0-9A-Za-z]{20})_[0-9A-Za-z]{40}$/.exec(token);
  if (!match || match[1] !== prefix) return null;
  return match[2] ?? null;
}

export function newSecret(): string {
  return randomToken(43);
}

/** PKCE S256 (RFC 7636 4.6): BASE64URL(SHA256(verifier)) equals the challenge; compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

export function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
