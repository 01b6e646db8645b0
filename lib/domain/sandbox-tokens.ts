/**
 * Tokens of the sandbox platforms (local stack and tests). They name the account they belong to,
 * so a sandbox server can tell which account is calling and answer with that account's
 * `sandbox` behaviour, without any shared state with the service:
 *   access  `sandbox.<accountId>.<random>`
 *   refresh `sandbox-refresh.<accountId>.<random>`
 * Account ids are `acct_<base62>` and never contain a dot.
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

export function issueSandboxTokens(accountId: string, platform: string, now: Date): SandboxTokens {
  const lifetime = ACCESS_TOKEN_LIFETIME_MS[platform] ?? DEFAULT_ACCESS_TOKEN_LIFETIME_MS;
  return {
    accessToken: `${ACCESS_PREFIX}.${accountId}.${randomToken(24)}`,
    refreshToken: `${REFRESH_PREFIX}.${accountId}.${randomToken(24)}`,
    accessTokenExpiresAt: new Date(now.getTime() + lifetime).toISOString(),
  };
}

/** The account a sandbox token belongs to, or null for anything not shaped like one. */
export function parseSandboxToken(token: string): { kind: 'access' | 'refresh'; accountId: string } | null {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1] || !parts[2]) return null;
  if (parts[0] === ACCESS_PREFIX) return { kind: 'access', accountId: parts[1] };
  if (parts[0] === REFRESH_PREFIX) return { kind: 'refresh', accountId: parts[1] };
  return null;
}
