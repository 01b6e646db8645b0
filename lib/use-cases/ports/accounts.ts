import type { Account, AccountCredentials, TokenHealth } from '../../domain/model.js';

export interface AccountReader {
  /** Every account of the user, optionally of one workspace; one Query on the byOwner index. */
  listAccounts(userId: string, filter: { workspaceId?: string }): Promise<Account[]>;
  /** BatchGetItem by account id; ids that do not exist are absent from the map. */
  getAccounts(accountIds: string[]): Promise<Map<string, Account>>;
  getAccount(accountId: string): Promise<Account | null>;
}

/**
 * The publish worker's read of an account: the account and its stored credentials together, one
 * strongly consistent Query on the account's partition (both items live there). Never used to
 * answer a request: account views come from AccountReader, which touches no credentials item.
 */
export interface AccountWithCredentialsReader {
  getAccountWithCredentials(accountId: string): Promise<{ account: Account | null; credentials: AccountCredentials | null }>;
}

export interface CredentialStore {
  getCredentials(accountId: string): Promise<AccountCredentials | null>;
  /** A blind write (connect, reconnect): always a new revision, so any refresh begun before it loses. */
  putCredentials(credentials: AccountCredentials): Promise<void>;
  setTokenHealth(accountId: string, tokenHealth: TokenHealth): Promise<void>;
  /** X's subscription_type as just read (connect, publish): what the account's text limit follows. */
  setXSubscription(accountId: string, xSubscription: string | null, checkedAt: Date): Promise<void>;
  /**
   * Takes the account's refresh lock until `until`, if the credentials are still at `revision`
   * and nobody holds an unexpired lock. False: another worker is refreshing, or already did.
   */
  lockRefresh(accountId: string, input: { revision: string | null; now: Date; until: Date }): Promise<boolean>;
  /**
   * Stores refreshed tokens (a new revision, lock released) and marks the account healthy, in one
   * transaction, only if the credentials are still at `expectedRevision`. False: something newer is stored.
   */
  replaceRefreshed(next: AccountCredentials, expectedRevision: string | null): Promise<boolean>;
  /**
   * Marks the account refresh_failed (and releases the lock) only if its credentials are still at
   * `revision`: a refusal of a token somebody has replaced since says nothing about the account.
   */
  markRefreshFailed(accountId: string, revision: string | null): Promise<boolean>;
}

/** Writes of the account-settings stand-in (admin CLI, demo seed, tests' provisioning). */
export interface AccountAdmin {
  putAccount(account: Account): Promise<void>;
  updateAccount(accountId: string, changes: Partial<Pick<Account, 'tokenHealth' | 'sandbox' | 'active' | 'name' | 'sandboxXSubscription'>>): Promise<Account>;
  /** New tokens' end (null: refreshable); the account is healthy again and warns 7 days before it. */
  setTokenExpiry(accountId: string, tokenExpiresAt: string | null): Promise<Account>;
}
