/**
 * The small interfaces that use cases take in their constructors. Adapters in lib/store,
 * lib/dispatch and lib/platforms implement them; nothing in lib/domain or lib/use-cases imports
 * an AWS SDK. Post-side ports (post store, idempotency store, dispatcher, platform clients) live
 * beside these in this file as they are built.
 */
import type { Account, AccountCredentials, ApiKeyRecord, MediaItem, Scope, TokenHealth, User, Workspace } from './domain/model.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Reads of the directory that the request path needs. */
export interface ApiKeyReader {
  getApiKey(keyId: string): Promise<ApiKeyRecord | null>;
}

export interface UserReader {
  getUser(userId: string): Promise<User | null>;
}

export interface AccountReader {
  /** Every account of the user, optionally of one workspace; one Query on the byOwner index. */
  listAccounts(userId: string, filter: { workspaceId?: string }): Promise<Account[]>;
  /** BatchGetItem by account id; ids that do not exist are absent from the map. */
  getAccounts(accountIds: string[]): Promise<Map<string, Account>>;
  getAccount(accountId: string): Promise<Account | null>;
}

export interface MediaReader {
  /** BatchGetItem by media id; ids that do not exist are absent from the map. */
  getMediaItems(mediaIds: string[]): Promise<Map<string, MediaItem>>;
}

export interface CredentialStore {
  getCredentials(accountId: string): Promise<AccountCredentials | null>;
  putCredentials(credentials: AccountCredentials): Promise<void>;
  setTokenHealth(accountId: string, tokenHealth: TokenHealth): Promise<void>;
}

/** Writes used by the admin CLI (the account-settings stand-in) and the demo seed. */
export interface DirectoryAdmin {
  putUser(user: User): Promise<void>;
  updateUser(userId: string, changes: { active?: boolean; monthlyPostAllowance?: number }): Promise<User>;
  putWorkspace(workspace: Workspace): Promise<void>;
  putAccount(account: Account): Promise<void>;
  updateAccount(accountId: string, changes: Partial<Pick<Account, 'tokenHealth' | 'sandbox' | 'active' | 'name'>>): Promise<Account>;
  putApiKey(key: ApiKeyRecord): Promise<void>;
  revokeApiKey(keyId: string, revokedAt: string): Promise<void>;
  putMediaItem(item: MediaItem): Promise<void>;
}

export type RateBucket = { kind: 'key'; keyId: string } | { kind: 'address'; address: string };

export interface RateDecision {
  allowed: boolean;
  /** Set when not allowed. */
  code: 'rate_limit_burst' | 'rate_limit_daily' | null;
  /** The window the headers describe (the minute, or the day once the daily budget is spent). */
  limit: number;
  remaining: number;
  /** Unix seconds at which the described window resets. */
  resetAt: number;
  /** Seconds until a retry can succeed (only meaningful when not allowed). */
  retryAfterSeconds: number;
}

/** Counts one request against a bucket, atomically, and says whether it may proceed. */
export interface RateLimiter {
  hit(bucket: RateBucket, now: Date): Promise<RateDecision>;
}

/** Who is calling, once the API key is verified. */
export interface Caller {
  userId: string;
  keyId: string;
  scopes: Scope[];
  user: User;
}
