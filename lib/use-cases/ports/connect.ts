/**
 * Ports of connecting accounts from settings (lib/use-cases/settings/connect-account.ts):
 * the platforms' OAuth side (lib/platforms/x-connect.ts, linkedin-connect.ts), the one-time
 * connect attempts that carry state and PKCE verifier between the redirect out and the redirect
 * back, and the account writes of a connection (lib/store/dynamodb-account-connections.ts).
 */
import type { Account, AccountCredentials, AccountType, PublishablePlatform } from '../../domain/model.js';
import type { PlatformTokens } from './platform-publisher.js';

/** What the person asked to connect: an X account, a LinkedIn member, or the LinkedIn pages they administer. */
export const CONNECT_KINDS = ['x', 'linkedin_member', 'linkedin_pages'] as const;
export type ConnectKind = (typeof CONNECT_KINDS)[number];

export function platformOfKind(kind: ConnectKind): PublishablePlatform {
  return kind === 'x' ? 'x' : 'linkedin';
}

/** Who the platform says was connected, after the exchange. */
export interface PlatformIdentity {
  /** X user id, LinkedIn member `sub` or organization id: the author id the adapters post as. */
  platformUserId: string;
  handle: string;
  name: string;
  accountType: AccountType;
  /** X: `subscription_type` from users/me (Premium and PremiumPlus post long texts); absent elsewhere. */
  xSubscription?: string | null;
}

export interface PlatformConnector {
  readonly kinds: readonly ConnectKind[];
  /** The platform's authorize URL for this attempt (state, scopes, PKCE S256 challenge where the platform takes one). */
  authorizeUrl(input: { kind: ConnectKind; state: string; codeChallenge: string; redirectUri: string }): Promise<string>;
  /** Code for tokens. Throws a PlatformError (lib/domain/platform-errors.ts) when refused. */
  exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<PlatformTokens>;
  /**
   * The identities this grant connects: one for X and a LinkedIn member, every page the member
   * administers for `linkedin_pages` (possibly none).
   */
  identities(input: { kind: ConnectKind; accessToken: string }): Promise<PlatformIdentity[]>;
}

/** One connect in progress: written when the person is sent to the platform, taken once when they come back. */
export interface ConnectAttempt {
  /** SHA-256 of the `state` sent to the platform (the state itself is never stored). */
  stateHash: string;
  userId: string;
  /** SHA-256 of the settings session the attempt was started from: another session cannot finish it. */
  sessionHash: string;
  workspaceId: string;
  kind: ConnectKind;
  codeVerifier: string;
  /** Set when reconnecting this account (the identity that comes back must be the same). */
  reconnectAccountId: string | null;
  createdAt: string;
  /** ISO time after which the attempt is refused (and later removed by TTL). */
  expiresAt: string;
}

export interface ConnectAttemptStore {
  put(attempt: ConnectAttempt): Promise<void>;
  /** Deletes and returns the attempt in one request: a state can be used once, whatever happens next. */
  take(stateHash: string): Promise<ConnectAttempt | null>;
}

/** A connection to write: the account as it should be, and its tokens already encrypted for its id. */
export interface AccountConnectionWrite {
  account: Account;
  credentials: AccountCredentials;
}

export interface AccountConnectionStore {
  /**
   * The account of this platform identity in this workspace, if connected before (one GetItem on
   * the identity's guard item), so connecting again updates it instead of adding a duplicate.
   */
  findConnected(input: { workspaceId: string; platform: string; accountType: AccountType; platformUserId: string }): Promise<string | null>;
  /**
   * A new account: credentials, account and connection guard in one transaction. False when the
   * identity was connected to this workspace meanwhile (the caller then updates that account).
   */
  create(write: AccountConnectionWrite): Promise<boolean>;
  /** Fresh tokens and identity fields on an existing account; tokenHealth healthy, active. */
  update(write: AccountConnectionWrite): Promise<void>;
  /** Removes the account, its credentials and its connection guard together. */
  remove(account: Account): Promise<void>;
}
