/**
 * Tokens of the sandbox platforms (local stack and tests). They name the account they belong to,
 * so a sandbox server can tell which account is calling and answer with that account's
 * `sandbox` behaviour, without any shared state with the service:
 *   access  `sandbox.<accountId>.<endsAt>.<random>`  (endsAt: Unix seconds its access ends)
 *   refresh `sandbox-refresh.<accountId>.<random>`
 * An access token carries its end, so a sandbox refuses it once it has ended as the platform would
 * (the LinkedIn sandbox: a token issued without a refresh token for N days). Tokens issued before
 * the end was carried (`sandbox.<accountId>.<random>`) never end. Account ids are `acct_<base62>`
 * and never contain a dot.
 */
import { randomToken } from './ids.js';

const ACCESS_PREFIX = 'sandbox';
const REFRESH_PREFIX = 'sandbox-refresh';

/** How long a fresh access token lives, per platform-facts (X 2 hours, LinkedIn 60 days). */
const ACCESS_TOKEN_LIFETIME_MS: Record<string, number> = {
  x: 2 * 60 * 60 * 1000,
  linkedin: 60 * 24 * 60 * 60 * 1000,
};
const DEFAULT_ACCESS_TOKEN_LIFETIME_MS = 60 * 24 * 60 * 60 * 1000;

export interface SandboxTokens {
  accessToken: string;
  refreshToken: string;
  /** ISO time the access token expires. */
  accessTokenExpiresAt: string;
}

/** Fresh tokens; `lifetimeMs` overrides the platform's (the admin CLI's --token-expires-in-days). */
export function issueSandboxTokens(accountId: string, platform: string, now: Date, lifetimeMs?: number): SandboxTokens {
  const endsAt = new Date(now.getTime() + (lifetimeMs ?? ACCESS_TOKEN_LIFETIME_MS[platform] ?? DEFAULT_ACCESS_TOKEN_LIFETIME_MS));
  return {
    accessToken: `${ACCESS_PREFIX}.${accountId}.${Math.floor(endsAt.getTime() / 1000)}.${randomToken(24)}`,
    refreshToken: `${REFRESH_PREFIX}.${accountId}.${randomToken(24)}`,
    accessTokenExpiresAt: endsAt.toISOString(),
  };
}

export interface ParsedSandboxToken {
  kind: 'access' | 'refresh';
  accountId: string;
  /** When an access token's access ends; absent: it never ends (refresh tokens, older access tokens). */
  endsAt?: Date;
}

/** The account a sandbox token belongs to, or null for anything not shaped like one. */
export function parseSandboxToken(token: string): ParsedSandboxToken | null {
  const parts = token.split('.');
  if (parts.some((part) => part === '') || !parts[1]) return null;
  if (parts[0] === ACCESS_PREFIX && parts.length === 4 && /^\d{1,12}$/.test(parts[2] ?? '')) {
    return { kind: 'access', accountId: parts[1], endsAt: new Date(Number(parts[2]) * 1000) };
  }
  if (parts.length !== 3) return null;
  if (parts[0] === ACCESS_PREFIX) return { kind: 'access', accountId: parts[1] };
  if (parts[0] === REFRESH_PREFIX) return { kind: 'refresh', accountId: parts[1] };
  return null;
}
