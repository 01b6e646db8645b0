/**
 * The ports of the settings web app (sessions, sign-in identities, keys, workspaces, accounts and
 * counts as the settings pages see them). Adapters: lib/store/dynamodb-session-store.ts,
 * dynamodb-identity-store.ts, dynamodb-api-key-store.ts, dynamodb-workspace-store.ts,
 * dynamodb-account-store.ts, dynamodb-post-count.ts.
 *
 * Every read and write that names a record by id also names the user it must belong to, so a
 * store answers "not found" for another user's record exactly as the API does for a key.
 */
import type { ApiKeyRecord, User, Workspace } from '../../domain/model.js';

/** A signed-in browser. Keyed in the store by the SHA-256 of the cookie's session id. */
export interface SessionRecord {
  userId: string;
  /** Checked on every POST (lib/web/csrf.ts). */
  csrfToken: string;
  createdAt: string;
  /** After this the session is over, whether or not TTL has deleted it yet (absolute, 8 h). */
  expiresAt: Date;
  /** After this, too, unless a page pushes it back first (idle, sliding: lib/domain/session-rules.ts). */
  idleExpiresAt: Date;
}

/** A sign-in between the redirect to the OpenID provider and its callback. */
export interface LoginTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A settings path (validated) to return to after sign-in. */
  returnTo: string;
  expiresAt: Date;
}

export interface SessionStore {
  putSession(idHash: string, session: SessionRecord): Promise<void>;
  /** Null when absent or expired. */
  getSession(idHash: string, now: Date): Promise<SessionRecord | null>;
  deleteSession(idHash: string): Promise<void>;
  /** Pushes the idle end back (the session must still exist: a session signed out meanwhile stays out). */
  extendIdle(idHash: string, idleExpiresAt: Date): Promise<void>;
  /** Deletes every session of the user but the one named; the number deleted. One Query on byUser, then deletes. */
  deleteOtherSessions(userId: string, keepIdHash: string): Promise<number>;
  putLogin(idHash: string, login: LoginTransaction): Promise<void>;
  /** Reads and deletes in one request, so a login transaction is used at most once. Null when absent or expired. */
  takeLogin(idHash: string, now: Date): Promise<LoginTransaction | null>;
}

export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string;
}

export interface NewUserWithWorkspace {
  user: User;
  workspace: Workspace;
}

export interface IdentityStore {
  /** The user an identity signs in as; null before its first sign-in. */
  findUserId(identity: OidcIdentity): Promise<string | null>;
  /**
   * The identity, its user and the user's first workspace, in one transaction. Returns the user
   * id that now owns the identity: another one when a concurrent first sign-in won the race.
   */
  createUser(identity: OidcIdentity, created: NewUserWithWorkspace): Promise<string>;
}

export interface ApiKeySummary {
  id: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface ApiKeyStore {
  /** Newest first; one Query on byOwner (gsi1pk KEYS#<userId>). */
  listApiKeys(userId: string): Promise<ApiKeySummary[]>;
  /** Keys not revoked; one Query with Select COUNT. */
  countActiveApiKeys(userId: string): Promise<number>;
  /**
   * The key and one more on the owner's count of active keys, in one conditional write: false
   * (nothing written) when `max` keys are active already, however many creations race.
   */
  putApiKeyWithinCap(key: ApiKeyRecord, max: number): Promise<boolean>;
  /** False when the key does not exist or is not this user's (nothing changes then). A counted key frees its place once. */
  revokeOwnedApiKey(userId: string, keyId: string, revokedAt: string): Promise<boolean>;
}

/**
 * When each key was last used. The API path records a use after authentication
 * (authenticate-caller.ts) at most once per key per hour; the settings page reads the times.
 */
export interface ApiKeyUseRecorder {
  recordUse(keyId: string, now: Date): Promise<void>;
}

export interface ApiKeyUseReader {
  /** Keys never used (or not since the records began) are absent. */
  lastUsed(keyIds: readonly string[]): Promise<Map<string, string>>;
}

export interface WorkspaceStore {
  /** The user's workspaces, oldest first; one Query on the user's partition. */
  listWorkspaces(userId: string): Promise<Workspace[]>;
  /** False when the workspace does not exist or is not this user's. */
  renameWorkspace(userId: string, workspaceId: string, name: string): Promise<boolean>;
}

export interface AccountStore {
  countAccounts(userId: string): Promise<number>;
  /** Removes the account and its stored tokens. False when it does not exist or is not this user's. */
  disconnectAccount(userId: string, accountId: string): Promise<boolean>;
}

export interface PostCounter {
  /** Live posts of the user, counted up to `cap` (one Query with Select COUNT on byUser, bounded). */
  countPosts(userId: string, cap: number): Promise<{ count: number; capped: boolean }>;
  /** Units of the plan allowance spent in a cycle (YYYY-MM). */
  allowanceUsed(userId: string, cycle: string): Promise<number>;
}

export interface AuthorizationChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The OpenID provider as seen by the settings app (lib/web/oidc-relying-party.ts). */
export interface OidcRelyingParty {
  newChecks(): AuthorizationChecks;
  authorizationUrl(checks: AuthorizationChecks): Promise<string>;
  /** Exchanges the code of the callback URL, verifying state, PKCE and the ID token's nonce, issuer, audience and signature. */
  exchange(callbackUrl: URL, checks: AuthorizationChecks): Promise<OidcIdentity>;
  /** Where the browser ends the provider's own session too, then comes back signed out. */
  logoutUrl(): string;
}
