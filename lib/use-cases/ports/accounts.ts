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
  putCredentials(credentials: AccountCredentials): Promise<void>;
  setTokenHealth(accountId: string, tokenHealth: TokenHealth): Promise<void>;
}

/** Writes of the account-settings stand-in (admin CLI, demo seed, tests' provisioning). */
export interface AccountAdmin {
  putAccount(account: Account): Promise<void>;
  updateAccount(accountId: string, changes: Partial<Pick<Account, 'tokenHealth' | 'sandbox' | 'active' | 'name'>>): Promise<Account>;
}
