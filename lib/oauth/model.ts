/**
 * The assistant server's OAuth records and the ports its use cases take (lib/oauth/*), in one
 * place. Adapters: lib/store/dynamodb-oauth-client-store.ts, lib/store/dynamodb-grant-store.ts,
 * lib/oauth/client-metadata-fetcher.ts. Nothing here imports AWS or HTTP.
 */
import type { McpScope } from './scopes.js';

/** What an assistant told us about itself: by dynamic registration or by its Client ID Metadata Document. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  /** Home page of the assistant, shown on the consent page when given. */
  clientUri: string | null;
  redirectUris: string[];
  /** How the client was registered. */
  kind: 'registered' | 'metadata_document';
  createdAt: string;
}

/** An authorization request waiting for the person's answer on the consent page. */
export interface PendingAuthorization {
  requestId: string;
  /**
   * The person who answers: set when the first signed-in person opens the consent page (the
   * authorize endpoint itself needs no session), and from then on only they can answer.
   */
  userId: string | null;
  clientId: string;
  clientName: string;
  clientUri: string | null;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  /** Scopes the assistant asked for (every scope when it asked for none). */
  scopes: McpScope[];
  state: string | null;
  /** Echoed by the consent form: binds the answer to this request (and, through userId, to the session). */
  formToken: string;
  /** Epoch seconds. */
  expiresAt: number;
}

/** A one-use authorization code, stored by the SHA-256 of the code. */
export interface AuthorizationCode {
  codeHash: string;
  userId: string;
  clientId: string;
  clientName: string;
  clientUri: string | null;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: McpScope[];
  expiresAt: number;
  /**
   * The grant this code was exchanged for, once it was (the used code is kept a day so that a
   * second exchange can be recognised and the grant revoked: RFC 6749 4.1.2). Null while unused.
   */
  redeemedGrantId: string | null;
}

/** What one person let one assistant do; every token belongs to a grant, and revoking it ends them all. */
export interface Grant {
  grantId: string;
  userId: string;
  clientId: string;
  clientName: string;
  clientUri: string | null;
  scopes: McpScope[];
  resource: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface TokenRecord {
  tokenHash: string;
  kind: 'access' | 'refresh';
  grantId: string;
  scopes: McpScope[];
  resource: string;
  clientId: string;
  /** Epoch seconds. */
  expiresAt: number;
  /** Refresh tokens: set when it was exchanged (rotation); a second use revokes the grant. */
  usedAt: string | null;
}

export interface OAuthClientStore {
  putClient(client: OAuthClient): Promise<void>;
  getClient(clientId: string): Promise<OAuthClient | null>;
}

/** Fetches a Client ID Metadata Document (an https URL that is the client_id). */
export interface ClientMetadataFetcher {
  fetch(clientIdUrl: string): Promise<unknown>;
}

export interface NewTokens {
  access: TokenRecord;
  refresh: TokenRecord;
}

export interface GrantStore {
  putPendingAuthorization(pending: PendingAuthorization): Promise<void>;
  getPendingAuthorization(requestId: string): Promise<PendingAuthorization | null>;
  /** Binds the request to the person (first one wins). False when it is bound to someone else or gone. */
  bindPendingAuthorization(requestId: string, userId: string): Promise<boolean>;
  /** Deletes the pending request (it is answered once) and stores the code, in one transaction. False when already answered. */
  answerPendingAuthorization(requestId: string, userId: string, code: AuthorizationCode | null): Promise<boolean>;
  /**
   * One transaction: marks the code used by this grant (so it is used once, and a second use is
   * recognised), creates the grant and its first tokens. Null when the code does not exist (never
   * issued, expired and removed) or was already used.
   */
  redeemCode(codeHash: string, grant: Grant, tokens: NewTokens, nowSeconds: number): Promise<Grant | null>;
  getCode(codeHash: string): Promise<AuthorizationCode | null>;
  getToken(tokenHash: string): Promise<TokenRecord | null>;
  /** Strongly consistent: a revocation is seen by the very next request. */
  getGrant(grantId: string): Promise<Grant | null>;
  /** Marks the refresh token used and stores the new pair, in one transaction. False when it was used meanwhile. */
  rotateRefreshToken(used: TokenRecord, tokens: NewTokens, now: Date): Promise<boolean>;
  listGrants(userId: string): Promise<Grant[]>;
  /** Returns false when there is no such grant of this user. Revoking twice keeps the first time. */
  revokeGrant(userId: string, grantId: string, now: Date): Promise<boolean>;
}
