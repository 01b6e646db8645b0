import type { Account } from '../model.js';
import { textLimitFor } from '../text-limits.js';

/** The `account` object of api-v1.md: what GET /accounts returns and the admin CLI prints. */
export interface AccountView {
  object: 'account';
  id: string;
  workspaceId: string;
  platform: string;
  name: string;
  handle: string;
  accountType: Account['accountType'];
  active: boolean;
  tokenHealth: Account['tokenHealth'];
  connectedAt: string;
  /** When access ends for good: set when it cannot be refreshed (tokenHealth turns `expiring` 7 days before), else null. */
  tokenExpiresAt: string | null;
  /** Accounts that can be posted to: the text limit of this account (X Premium: 25,000). */
  limits?: { textLength: number };
}

/**
 * Picks the public fields one by one, so nothing internal (owner id, platform user id, sandbox
 * behaviour, and never a token) can leak by being added to the record later.
 */
export function accountView(account: Account): AccountView {
  return {
    object: 'account',
    id: account.id,
    workspaceId: account.workspaceId,
    platform: account.platform,
    name: account.name,
    handle: account.handle,
    accountType: account.accountType,
    active: account.active,
    tokenHealth: account.tokenHealth,
    // Stored with toISOString already; normalising again guards any record written by hand.
    connectedAt: new Date(account.connectedAt).toISOString(),
    tokenExpiresAt: account.tokenExpiresAt ? new Date(account.tokenExpiresAt).toISOString() : null,
    ...limitsOf(account),
  };
}

function limitsOf(account: Account): { limits?: { textLength: number } } {
  const textLength = textLimitFor(account);
  return textLength === null ? {} : { limits: { textLength } };
}
