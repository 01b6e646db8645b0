/**
 * A usable access token for an account, refreshed before it expires. Shared by the publish and the
 * platform-deletion workers.
 *
 * X rotates refresh tokens (platforms.md): each refresh returns a new one and the old one stops
 * working, so the newest is stored every time. Two workers refreshing the same account at once
 * would have one of them refused for a refresh token the other just used up, and a retried older
 * write could overwrite the newer token and cut the account off. So:
 *   - one worker refreshes at a time: it takes the account's refresh lock (a conditional write on
 *     the credentials' revision); the others wait for the revision it stores and use that token;
 *   - the new tokens are written only over the revision they were refreshed from; a write that
 *     finds a newer revision uses what is stored instead of overwriting it;
 *   - refresh_failed is set only over the revision whose refresh was refused.
 * Refreshes of one account in one process also share a single request.
 */
import type { Account, AccountCredentials } from '../domain/model.js';
import { PlatformAuthError } from '../domain/platform-errors.js';
import type { CredentialStore } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PlatformPublisher } from './ports/platform-publisher.js';
import type { TokenCipher } from './ports/token-cipher.js';

/** Refresh when the access token has less than this left, so it cannot expire mid-send. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;
/** A refresh lock outlives the refresh request's own timeout (15 s); a holder that died is replaced after it. */
const REFRESH_LOCK_MS = 30_000;
/** Lock attempts before giving up (each waits up to a lock's length for the holder's result). */
const REFRESH_ROUNDS = 3;

/** The account has no credentials item (never connected, or disconnected). */
export class CredentialsMissingError extends Error {
  readonly code = 'credentials_missing';
  constructor(accountId: string) {
    super(`Account ${accountId} has no stored credentials`);
    this.name = 'CredentialsMissingError';
  }
}

/** The refresh grant was refused: the user must reconnect. `message` is what the platform said. */
export class TokenRefreshFailedError extends Error {
  readonly code = 'token_refresh_failed';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'TokenRefreshFailedError';
  }
}

export interface AccessTokensDeps {
  credentials: CredentialStore;
  cipher: TokenCipher;
  clock: Clock;
  sleep?: (ms: number) => Promise<void>;
}

export class AccessTokens {
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: AccessTokensDeps) {
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * The access token to use now; throws CredentialsMissingError, TokenRefreshFailedError or a
   * transient PlatformError. `known` is the credentials the caller already read (strongly
   * consistent) with the account, so they are not read again.
   */
  async accessToken(account: Account, publisher: PlatformPublisher, known?: { credentials: AccountCredentials | null }): Promise<string> {
    const stored = known ? known.credentials : await this.deps.credentials.getCredentials(account.id);
    if (!stored) throw new CredentialsMissingError(account.id);
    if (!this.needsRefresh(stored)) return this.decrypt(stored.accessTokenEncrypted, account.id);
    let pending = this.inFlight.get(account.id);
    if (!pending) {
      pending = this.refresh(account, stored, publisher).finally(() => this.inFlight.delete(account.id));
      this.inFlight.set(account.id, pending);
    }
    return pending;
  }

  private needsRefresh(credentials: AccountCredentials): boolean {
    // Without a refresh token (LinkedIn's normal apps) there is nothing to do but use what we have.
    if (credentials.refreshTokenEncrypted === null || credentials.accessTokenExpiresAt === null) return false;
    return Date.parse(credentials.accessTokenExpiresAt) - this.deps.clock.now().getTime() < REFRESH_MARGIN_MS;
  }

  private decrypt(cipherText: string, accountId: string): Promise<string> {
    return this.deps.cipher.decrypt(cipherText, { accountId });
  }

  private async refresh(account: Account, first: AccountCredentials, publisher: PlatformPublisher): Promise<string> {
    let stored = first;
    for (let round = 1; round <= REFRESH_ROUNDS; round++) {
      const now = this.deps.clock.now();
      const revision = stored.revision ?? null;
      if (await this.deps.credentials.lockRefresh(account.id, { revision, now, until: new Date(now.getTime() + REFRESH_LOCK_MS) })) {
        return this.refreshHoldingLock(account, stored, publisher);
      }
      // Another worker is refreshing, or already stored a newer revision: its result is ours too.
      const latest = await this.newerThan(account.id, revision);
      if (!latest) throw new CredentialsMissingError(account.id);
      if (!this.needsRefresh(latest)) return this.decrypt(latest.accessTokenEncrypted, account.id);
      // The holder's lock ran out with nothing stored (it died), or a newer revision needs refreshing too.
      stored = latest;
    }
    throw new TokenRefreshFailedError('The access token could not be refreshed: another refresh kept holding the account.');
  }

  /** The credentials once their revision differs from `revision`, or as they are when the lock's time ran out. */
  private async newerThan(accountId: string, revision: string | null): Promise<AccountCredentials | null> {
    const deadline = this.deps.clock.now().getTime() + REFRESH_LOCK_MS + 1_000;
    for (let wait = 100; ; wait = Math.min(1_000, wait * 2)) {
      const latest = await this.deps.credentials.getCredentials(accountId);
      if (!latest || (latest.revision ?? null) !== revision || this.deps.clock.now().getTime() > deadline) return latest;
      await this.sleep(wait);
    }
  }

  private async refreshHoldingLock(account: Account, stored: AccountCredentials, publisher: PlatformPublisher): Promise<string> {
    const revision = stored.revision ?? null;
    const refreshToken = await this.decrypt(stored.refreshTokenEncrypted as string, account.id);
    let tokens;
    try {
      tokens = await publisher.refreshAccessToken({ refreshToken });
    } catch (error) {
      if (!(error instanceof PlatformAuthError)) throw error;
      if (!(await this.deps.credentials.markRefreshFailed(account.id, revision))) {
        // Replaced meanwhile (the account was reconnected): what is stored now is what counts.
        const latest = await this.deps.credentials.getCredentials(account.id);
        if (latest && !this.needsRefresh(latest)) return this.decrypt(latest.accessTokenEncrypted, account.id);
      }
      throw new TokenRefreshFailedError(error.message, { cause: error });
    }
    const context = { accountId: account.id };
    const next: AccountCredentials = {
      accountId: account.id,
      accessTokenEncrypted: await this.deps.cipher.encrypt(tokens.accessToken, context),
      refreshTokenEncrypted:
        tokens.refreshToken === null ? stored.refreshTokenEncrypted : await this.deps.cipher.encrypt(tokens.refreshToken, context),
      accessTokenExpiresAt: tokens.expiresAt,
    };
    // The old refresh token is dead now: losing the new one would cut the account off, so insist.
    for (let attempt = 1; ; attempt++) {
      try {
        if (await this.deps.credentials.replaceRefreshed(next, revision)) return tokens.accessToken;
        // Not over the revision we started from: our own earlier try landed, or something newer is stored.
        const latest = await this.deps.credentials.getCredentials(account.id);
        if (latest && latest.accessTokenEncrypted !== next.accessTokenEncrypted && !this.needsRefresh(latest)) {
          return this.decrypt(latest.accessTokenEncrypted, account.id);
        }
        return tokens.accessToken;
      } catch (error) {
        if (attempt >= 4) throw error;
        await this.sleep(100 * 2 ** attempt);
      }
    }
  }
}
